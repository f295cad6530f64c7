//! Access control through the real app with the configuration's tokens:
//! off by default; with tokens, 401 without a known one, 403 for a
//! read-only token (a viewer) on a change, the self description open, and
//! the published documents declaring the schemes. Users, keys and
//! sessions: `people.rs`.

use crate::support::app_state;

use actix_web::{http::StatusCode, test as actix_test, web};
use netcfg_api::{Access, AppState, Auth, create_app};
use serde_json::Value;

const ADMIN: &str = "admin-token-0123456789";
const READER: &str = "reader-token-0123456789";

fn tokens() -> Auth {
    let reader_digest: String = {
        use sha2::Digest;
        sha2::Sha256::digest(READER.as_bytes())
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    };
    Auth::off()
        .with_token(ADMIN, Access::Admin)
        .and_then(|auth| auth.with_digest(&reader_digest, Access::ReadOnly))
        .expect("valid tokens")
}

async fn send(
    state: &web::Data<AppState>,
    request: actix_test::TestRequest,
) -> (StatusCode, actix_web::http::header::HeaderMap, Value) {
    let app = actix_test::init_service(create_app(state.clone())).await;
    let response = actix_test::call_service(&app, request.to_request()).await;
    let status = response.status();
    let headers = response.headers().clone();
    let body = actix_test::read_body(response).await;
    let value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    (status, headers, value)
}

fn create(token: Option<&str>) -> actix_test::TestRequest {
    let request = actix_test::TestRequest::post()
        .uri("/nets")
        .set_json(serde_json::json!({"name": "site", "instance": "sim"}));
    match token {
        Some(token) => request.insert_header(("Authorization", format!("Bearer {token}"))),
        None => request,
    }
}

#[actix_web::test]
async fn without_tokens_everything_is_open() {
    let fixture = app_state::fixture();
    let (status, _, _) = send(&fixture.state, create(None)).await;
    assert_eq!(status, StatusCode::CREATED);
    let (_, _, document) = send(
        &fixture.state,
        actix_test::TestRequest::get().uri("/api.json"),
    )
    .await;
    // Described all the same: the first user or token turns it on.
    assert_eq!(
        document["components"]["securitySchemes"]["session"]["in"],
        "cookie"
    );
}

#[actix_web::test]
async fn tokens_are_required_and_read_only_ones_only_read() {
    let fixture = app_state::fixture_with(tokens());
    let (status, headers, body) = send(&fixture.state, create(None)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(
        headers
            .get("WWW-Authenticate")
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("Bearer")
    );
    assert_eq!(headers.get("Api-Version").unwrap(), "5.1.0");
    assert_eq!(body["Classification"], 1);

    let (status, _, _) = send(&fixture.state, create(Some("not-a-token-at-all"))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _, body) = send(&fixture.state, create(Some(READER))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(
        body["message"],
        "POST /nets needs the role editor; token-2 has the role viewer"
    );
    let (status, _, _) = send(&fixture.state, create(Some(ADMIN))).await;
    assert_eq!(status, StatusCode::CREATED);

    let read = |token: &str| {
        actix_test::TestRequest::get()
            .uri("/nets/site")
            .insert_header(("Authorization", format!("Bearer {token}")))
    };
    let (status, _, body) = send(&fixture.state, read(READER)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _, _) = send(
        &fixture.state,
        actix_test::TestRequest::get().uri("/nets/site"),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[actix_web::test]
async fn the_description_stays_open_and_declares_the_scheme() {
    let fixture = app_state::fixture_with(tokens());
    let (status, _, document) = send(
        &fixture.state,
        actix_test::TestRequest::get().uri("/api.json"),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        document["components"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );
    assert_eq!(
        document["paths"]["/api.json"]["get"]["security"],
        serde_json::json!([])
    );
    let create = &document["paths"]["/nets"]["post"]["responses"];
    assert!(create["401"].is_object() && create["403"].is_object() && create["429"].is_object());
    let (status, _, _) = send(&fixture.state, actix_test::TestRequest::get().uri("/api/")).await;
    assert_eq!(status, StatusCode::OK);
}

#[actix_web::test]
async fn the_event_streams_need_a_read_token_in_the_header() {
    let fixture = app_state::fixture_with(tokens());
    let app = actix_test::init_service(create_app(fixture.state.clone())).await;
    let open = |token: Option<&str>, uri: &str| {
        let request = actix_test::TestRequest::get().uri(uri);
        match token {
            Some(token) => request.insert_header(("Authorization", format!("Bearer {token}"))),
            None => request,
        }
        .to_request()
    };
    let refused = actix_test::call_service(&app, open(None, "/events")).await;
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    // A token in the URL is not a token.
    let in_url =
        actix_test::call_service(&app, open(None, &format!("/events?token={READER}"))).await;
    assert_eq!(in_url.status(), StatusCode::UNAUTHORIZED);
    // The head is the answer: the stream itself does not end.
    let streaming = actix_test::call_service(&app, open(Some(READER), "/events")).await;
    assert_eq!(streaming.status(), StatusCode::OK);
    assert_eq!(
        streaming.headers().get("content-type").unwrap(),
        "text/event-stream"
    );
}

#[actix_web::test]
async fn the_history_names_the_token_and_the_client() {
    let auth = tokens()
        .named("reader")
        .and_then(|auth| auth.with_token("ops-token-0123456789", Access::Admin))
        .and_then(|auth| auth.named("site engineer"))
        .expect("valid tokens");
    let fixture = app_state::fixture_with(auth);
    let (status, _, _) = send(&fixture.state, create(Some(ADMIN))).await;
    assert_eq!(status, StatusCode::CREATED);
    let device = actix_test::TestRequest::post()
        .uri("/nets/site/devices")
        .insert_header(("Authorization", "Bearer ops-token-0123456789"))
        .peer_addr("192.0.2.44:50123".parse().unwrap())
        .set_json(serde_json::json!({
            "serial_number": "01:05:0001", "disabled": false,
            "interfaces": [{"identifier": 0, "role_id": 4}]
        }));
    let (status, _, _) = send(&fixture.state, device).await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, _, body) = send(
        &fixture.state,
        actix_test::TestRequest::get()
            .uri("/nets/site/history")
            .insert_header(("Authorization", format!("Bearer {READER}"))),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let history = body["history"].as_array().expect("a list");
    assert_eq!(history.len(), 2, "{body}");
    assert_eq!(history[0]["origin"], "token:site engineer");
    assert_eq!(history[0]["address"], "192.0.2.44");
    assert_eq!(history[0]["method"], "POST");
    assert_eq!(history[0]["path"], "/nets/site/devices");
    assert_eq!(
        history[0]["summary"],
        "Add a device: device 01:05:0001 added, 1 interface added"
    );
    // The first token has no name of its own: its place in the list.
    assert_eq!(history[1]["origin"], "token:token-1");
}

#[actix_web::test]
async fn a_client_that_sends_wrong_tokens_is_locked_out_and_others_are_not() {
    let fixture = app_state::fixture_with(tokens());
    let from = |address: &str, token: &str| {
        actix_test::TestRequest::get()
            .uri("/nets")
            .peer_addr(format!("{address}:40000").parse().unwrap())
            .insert_header(("Authorization", format!("Bearer {token}")))
    };
    for attempt in 0..10 {
        let (status, _, _) = send(
            &fixture.state,
            from("198.51.100.7", "guess-0123456789abcdef"),
        )
        .await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "attempt {attempt}");
    }
    let (status, headers, body) = send(
        &fixture.state,
        from("198.51.100.7", "guess-0123456789abcdef"),
    )
    .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(body["code"], "too_many_token_failures");
    let wait: u64 = headers
        .get("Retry-After")
        .and_then(|value| value.to_str().ok())
        .and_then(|text| text.parse().ok())
        .expect("Retry-After in seconds");
    assert!((1..=7).contains(&wait), "{wait}");
    // Locked out, a live token still works (decisions §17: a valid
    // credential is never refused or slowed)...
    let (status, _, _) = send(&fixture.state, from("198.51.100.7", READER)).await;
    assert_eq!(status, StatusCode::OK);
    // ... another client goes on, and a request without a token (a browser
    // before its sign-in) is a plain 401.
    let (status, _, _) = send(&fixture.state, from("198.51.100.8", READER)).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _, _) = send(
        &fixture.state,
        actix_test::TestRequest::get()
            .uri("/nets")
            .peer_addr("198.51.100.7:40001".parse().unwrap()),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}
