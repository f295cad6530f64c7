//! The device list is kept rendered between requests; every change to the
//! configuration must show in the next list (never a stale one).

use crate::support::app_state;

use actix_web::test as actix_test;
use netcfg_api::create_app;
use serde_json::{Value, json};

/// Sends a `TestRequest` to the app and checks that it succeeded (a macro:
/// the request type `call_service` takes is not nameable from here).
macro_rules! succeeds {
    ($app:expr, $request:expr) => {{
        let request = $request.to_request();
        let what = format!("{} {}", request.method(), request.uri());
        let status = actix_test::call_service($app, request).await.status();
        assert!(status.is_success(), "{what}: {status}");
    }};
}

fn create_site() -> actix_test::TestRequest {
    actix_test::TestRequest::post()
        .uri("/nets")
        .set_json(json!({"name": "site", "instance": "sim"}))
}

fn tag(serial: &str, name: &str) -> Value {
    json!({"serial_number": serial, "name": name, "disabled": false, "interfaces": [{"identifier": 0, "role_id": 4}]})
}

#[actix_web::test]
async fn every_change_shows_in_the_next_list() {
    let fixture = app_state::fixture();
    let app = actix_test::init_service(create_app(fixture.state.clone())).await;
    let call = |request: actix_test::TestRequest| request.to_request();
    let list = || actix_test::TestRequest::get().uri("/nets/site/devices");
    let names = |body: &Value| -> Vec<String> {
        body["devices"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|device| device["name"].as_str().unwrap_or("").to_owned())
            .collect()
    };

    succeeds!(&app, create_site());
    let body: Value = actix_test::call_and_read_body_json(&app, call(list())).await;
    assert_eq!(names(&body), Vec::<String>::new());
    // Twice, so the second answer comes from the kept rendering.
    let body: Value = actix_test::call_and_read_body_json(&app, call(list())).await;
    assert_eq!(body["message"], "0 devices");

    let post = |body: Value| {
        actix_test::TestRequest::post()
            .uri("/nets/site/devices")
            .set_json(body)
    };
    succeeds!(&app, post(tag("01:05:0001", "one")));
    let body: Value = actix_test::call_and_read_body_json(&app, call(list())).await;
    assert_eq!(names(&body), ["one"]);

    let patch = actix_test::TestRequest::patch()
        .uri("/nets/site/devices/01:05:0001")
        .set_json(tag("01:05:0001", "renamed"));
    succeeds!(&app, patch);
    let body: Value = actix_test::call_and_read_body_json(&app, call(list())).await;
    assert_eq!(names(&body), ["renamed"]);

    succeeds!(&app, post(tag("01:05:0002", "two")));
    let delete = actix_test::TestRequest::delete().uri("/nets/site/devices/01:05:0001");
    succeeds!(&app, delete);
    let body: Value = actix_test::call_and_read_body_json(&app, call(list())).await;
    assert_eq!(names(&body), ["two"]);
    assert_eq!(body["message"], "1 device");

    // A configuration deleted and created again under the same name.
    let delete = actix_test::TestRequest::delete().uri("/nets/site");
    succeeds!(&app, delete);
    succeeds!(&app, create_site());
    let body: Value = actix_test::call_and_read_body_json(&app, call(list())).await;
    assert_eq!(names(&body), Vec::<String>::new());

    // Renamed, its list follows it; a new configuration takes the old name
    // with an empty list.
    succeeds!(&app, post(tag("01:05:0003", "three")));
    let body: Value = actix_test::call_and_read_body_json(&app, call(list())).await;
    assert_eq!(names(&body), ["three"]);
    let rename = actix_test::TestRequest::patch()
        .uri("/nets/site")
        .set_json(json!({"name": "moved", "instance": "sim"}));
    succeeds!(&app, rename);
    let moved = actix_test::TestRequest::get().uri("/nets/moved/devices");
    let body: Value = actix_test::call_and_read_body_json(&app, call(moved)).await;
    assert_eq!(names(&body), ["three"]);
    succeeds!(&app, create_site());
    let body: Value = actix_test::call_and_read_body_json(&app, call(list())).await;
    assert_eq!(names(&body), Vec::<String>::new());
}
