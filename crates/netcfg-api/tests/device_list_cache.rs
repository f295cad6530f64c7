//! The device list is kept rendered between requests; every change to the
//! configuration must show in the next list (never a stale one).

mod common;

use actix_web::test as actix_test;
use netcfg_api::create_app;
use serde_json::{Value, json};

fn tag(serial: &str, name: &str) -> Value {
    json!({"serial_number": serial, "name": name, "disabled": false, "interfaces": [{"identifier": 0, "role_id": 4}]})
}

#[actix_web::test]
async fn every_change_shows_in_the_next_list() {
    let fixture = common::fixture();
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

    let created = actix_test::call_service(
        &app,
        call(
            actix_test::TestRequest::post()
                .uri("/nets")
                .set_json(json!({"name": "site", "instance": "sim"})),
        ),
    )
    .await;
    assert!(created.status().is_success());
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
    assert!(
        actix_test::call_service(&app, call(post(tag("01:05:0001", "one"))))
            .await
            .status()
            .is_success()
    );
    let body: Value = actix_test::call_and_read_body_json(&app, call(list())).await;
    assert_eq!(names(&body), ["one"]);

    let patch = actix_test::TestRequest::patch()
        .uri("/nets/site/devices/01:05:0001")
        .set_json(tag("01:05:0001", "renamed"));
    assert!(
        actix_test::call_service(&app, call(patch))
            .await
            .status()
            .is_success()
    );
    let body: Value = actix_test::call_and_read_body_json(&app, call(list())).await;
    assert_eq!(names(&body), ["renamed"]);

    assert!(
        actix_test::call_service(&app, call(post(tag("01:05:0002", "two"))))
            .await
            .status()
            .is_success()
    );
    let delete = actix_test::TestRequest::delete().uri("/nets/site/devices/01:05:0001");
    assert!(
        actix_test::call_service(&app, call(delete))
            .await
            .status()
            .is_success()
    );
    let body: Value = actix_test::call_and_read_body_json(&app, call(list())).await;
    assert_eq!(names(&body), ["two"]);
    assert_eq!(body["message"], "1 device");

    // A configuration deleted and created again under the same name.
    let delete = actix_test::TestRequest::delete().uri("/nets/site");
    assert!(
        actix_test::call_service(&app, call(delete))
            .await
            .status()
            .is_success()
    );
    let created = actix_test::call_service(
        &app,
        call(
            actix_test::TestRequest::post()
                .uri("/nets")
                .set_json(json!({"name": "site", "instance": "sim"})),
        ),
    )
    .await;
    assert!(created.status().is_success());
    let body: Value = actix_test::call_and_read_body_json(&app, call(list())).await;
    assert_eq!(names(&body), Vec::<String>::new());
}
