//! The web front end (the netcfg-ui crate, which tests its own files) as
//! the API's application mounts it: behind the version-and-access gate,
//! its files still load before a token is known (they hold no data), while
//! the data needs one.

use actix_web::{
    http::{StatusCode, header},
    test as actix_test,
};
use netcfg_api::{Access, Auth, create_app};

use crate::support::app_state;

#[actix_web::test]
async fn the_front_end_loads_before_a_token_is_known() {
    let fixture = app_state::fixture_with(
        Auth::off()
            .with_token("admin-token-0123456789", Access::Admin)
            .expect("a valid token"),
    );
    let app = actix_test::init_service(create_app(fixture.state.clone())).await;
    let status_of = async |uri: &str| {
        let request = actix_test::TestRequest::get().uri(uri).to_request();
        actix_test::call_service(&app, request).await.status()
    };
    assert_eq!(status_of("/").await, StatusCode::OK);
    assert!(!netcfg_ui::assets().is_empty());
    for asset in netcfg_ui::assets() {
        let uri = format!("/ui/{}", asset.path);
        assert_eq!(status_of(&uri).await, StatusCode::OK, "{uri}");
    }
    assert_eq!(
        status_of("/nets").await,
        StatusCode::UNAUTHORIZED,
        "the data still needs a token"
    );
    let response = actix_test::call_service(
        &app,
        actix_test::TestRequest::get()
            .uri("/ui/app.js")
            .to_request(),
    )
    .await;
    assert_eq!(
        response
            .headers()
            .get(header::CONTENT_SECURITY_POLICY)
            .and_then(|value| value.to_str().ok()),
        Some(netcfg_ui::CONTENT_SECURITY_POLICY),
        "the gate keeps the front end's own headers"
    );
}

/// The front end's assets and the API browser are actix scopes (their
/// expressions then run only under their prefixes): a path beside them,
/// or the bare prefix, is still the API's, answered as before.
#[actix_web::test]
async fn the_scopes_of_the_assets_and_the_browser_take_only_their_own_paths() {
    let fixture = app_state::fixture_with(Auth::off());
    let app = actix_test::init_service(create_app(fixture.state.clone())).await;
    for (uri, expected) in [
        ("/ui", StatusCode::NOT_FOUND),
        ("/uix", StatusCode::NOT_FOUND),
        ("/ui/no-such-file.js", StatusCode::NOT_FOUND),
        ("/api.json?version=5.1", StatusCode::OK),
        ("/apis", StatusCode::NOT_FOUND),
    ] {
        let request = actix_test::TestRequest::get().uri(uri).to_request();
        let response = actix_test::call_service(&app, request).await;
        assert_eq!(response.status(), expected, "{uri}");
        if expected == StatusCode::NOT_FOUND && uri != "/ui/no-such-file.js" {
            let body = actix_test::read_body(response).await;
            let answer: serde_json::Value = serde_json::from_slice(&body).unwrap();
            assert!(answer["message"].is_string(), "{uri}: {answer}");
        }
    }
}
