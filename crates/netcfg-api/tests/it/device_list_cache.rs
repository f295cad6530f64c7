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

/// A response's status, `ETag` and body.
async fn answer<B: actix_web::body::MessageBody>(
    response: actix_web::dev::ServiceResponse<B>,
) -> (actix_web::http::StatusCode, String, actix_web::web::Bytes) {
    let status = response.status();
    let tag = response
        .headers()
        .get("ETag")
        .map_or(String::new(), |tag| tag.to_str().unwrap().to_owned());
    (status, tag, actix_test::read_body(response).await)
}

/// The answer sent for a kept list is kept too, once per API version: the
/// same bytes and tag again, each version its own, and a change makes both
/// new.
#[actix_web::test]
async fn a_kept_answer_is_per_version_and_follows_changes() {
    let fixture = app_state::fixture();
    let app = actix_test::init_service(create_app(fixture.state.clone())).await;
    let read = |version: &str, if_none_match: Option<&str>| {
        let mut request = actix_test::TestRequest::get()
            .uri("/nets/site/devices")
            .insert_header(("Api-Version", version.to_owned()));
        if let Some(tag) = if_none_match {
            request = request.insert_header(("If-None-Match", tag.to_owned()));
        }
        request.to_request()
    };
    succeeds!(&app, create_site());
    let post = |serial: &str, if_match: &str| {
        actix_test::TestRequest::post()
            .uri("/nets/site/devices")
            .insert_header(("If-Match", if_match.to_owned()))
            .set_json(tag(serial, "t"))
            .to_request()
    };

    let (_, tag_51, body_51) =
        answer(actix_test::call_service(&app, read("5.1", None)).await).await;
    let (_, tag_50, body_50) =
        answer(actix_test::call_service(&app, read("5.0", None)).await).await;
    assert_ne!(tag_51, tag_50);
    let parse = |body: &[u8]| serde_json::from_slice::<Value>(body).unwrap();
    assert!(parse(&body_51).get("Classification").is_some());
    assert!(parse(&body_50).get("Classification").is_none());
    for (version, tag, body) in [("5.1", &tag_51, &body_51), ("5.0", &tag_50, &body_50)] {
        let again = answer(actix_test::call_service(&app, read(version, None)).await).await;
        assert_eq!(
            (&again.1, &again.2),
            (tag, body),
            "{version}: the kept answer"
        );
        let fresh = actix_test::call_service(&app, read(version, Some(tag))).await;
        assert_eq!(fresh.status(), actix_web::http::StatusCode::NOT_MODIFIED);
    }

    // The kept tag is the list's current one for If-Match.
    let response = actix_test::call_service(&app, post("01:05:0001", &tag_51)).await;
    assert_eq!(response.status(), actix_web::http::StatusCode::CREATED);
    let response = actix_test::call_service(&app, post("01:05:0002", &tag_51)).await;
    assert_eq!(
        response.status(),
        actix_web::http::StatusCode::PRECONDITION_FAILED
    );
    for (version, tag) in [("5.1", &tag_51), ("5.0", &tag_50)] {
        let (status, new_tag, body) =
            answer(actix_test::call_service(&app, read(version, Some(tag))).await).await;
        assert_eq!(status, actix_web::http::StatusCode::OK, "{version}");
        assert_ne!(&new_tag, tag);
        assert_eq!(parse(&body)["devices"].as_array().unwrap().len(), 1);
    }
}
