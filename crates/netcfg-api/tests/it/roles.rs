//! Every row of both tables, walked with every role (decisions §17): no
//! identity is 401, too little role is 403 naming the role the row needs,
//! and enough role reaches the handler (whatever it answers then, never
//! the dispatcher's 401 or 403). The rows come from the tables themselves,
//! so a new row is walked without a line here; the identities are real: a
//! read-only and an admin token, and API keys of an operator and an editor
//! made through the API.

use actix_web::{
    body::MessageBody,
    dev::{Service, ServiceResponse},
    http::StatusCode,
    test as actix_test,
};
use netcfg_api::{Access, ApiVersion, Auth, create_app};
use netcfg_model::people::AccessRole;
use serde_json::{Value, json};

use crate::support::app_state;

const ADMIN: &str = "roles-admin-token-0123456789";
const VIEWER: &str = "roles-viewer-token-0123456789";

/// A row's first path with each parameter given a value: the configuration
/// `demo`, the user and key `nobody` (never one of the walk's own users,
/// which a DELETE would remove), `1` for the rest.
fn concrete(path: &str) -> String {
    let mut concrete = String::new();
    let mut rest = path;
    while let Some(start) = rest.find('{') {
        concrete.push_str(&rest[..start]);
        let end = rest[start..]
            .find('}')
            .map_or(rest.len(), |end| start + end);
        concrete.push_str(match &rest[start + 1..end] {
            "net_name" => "demo",
            "user_name" | "key_name" => "nobody",
            _ => "1",
        });
        rest = &rest[(end + 1).min(rest.len())..];
    }
    concrete.push_str(rest);
    concrete
}

async fn call<S, R, B>(app: &S, request: R) -> (StatusCode, Value)
where
    S: Service<R, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let response = actix_test::call_service(app, request).await;
    let status = response.status();
    // Only the refusals are read: an event stream that was let through
    // never ends.
    let body = if matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
        serde_json::from_slice(&actix_test::read_body(response).await).unwrap_or(Value::Null)
    } else {
        Value::Null
    };
    (status, body)
}

fn bearer(secret: &str) -> (&'static str, String) {
    ("Authorization", format!("Bearer {secret}"))
}

#[actix_web::test]
async fn every_row_refuses_too_little_role_and_lets_enough_through() {
    let auth = Auth::off()
        .with_token(ADMIN, Access::Admin)
        .and_then(|auth| auth.with_token(VIEWER, Access::ReadOnly))
        .expect("tokens");
    let fixture = app_state::fixture_with(auth);
    let app = actix_test::init_service(create_app(fixture.state.clone())).await;
    let admin = |request: actix_test::TestRequest| request.insert_header(bearer(ADMIN));
    let demo = json!({"name": "demo", "instance": "sim"});
    let create = admin(actix_test::TestRequest::post().uri("/nets").set_json(demo));
    let (status, _) = call(&app, create.to_request()).await;
    assert_eq!(status, StatusCode::CREATED);
    let mut identities: Vec<(Option<String>, Option<AccessRole>)> = vec![
        (None, None),
        (Some(VIEWER.to_owned()), Some(AccessRole::Viewer)),
        (Some(ADMIN.to_owned()), Some(AccessRole::Admin)),
    ];
    for role in [AccessRole::Operator, AccessRole::Editor] {
        let user =
            json!({"name": role.as_str(), "role": role, "password": "a password for the walk"});
        let request = admin(actix_test::TestRequest::post().uri("/users").set_json(user));
        assert_eq!(
            call(&app, request.to_request()).await.0,
            StatusCode::CREATED
        );
        let key = json!({"name": "walk", "role": role});
        let request = admin(
            actix_test::TestRequest::post()
                .uri(&format!("/users/{role}/keys"))
                .set_json(key),
        );
        let response = actix_test::call_service(&app, request.to_request()).await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let body: Value = serde_json::from_slice(&actix_test::read_body(response).await).unwrap();
        identities.push((
            body["api_key"]["key"].as_str().map(str::to_owned),
            Some(role),
        ));
    }

    let mut problems = Vec::new();
    let mut walked = 0;
    for version in ApiVersion::ALL {
        for route in &fixture.tables.table(version).routes {
            let path = concrete(route.paths[0]);
            for (secret, role) in &identities {
                let mut request = actix_test::TestRequest::default()
                    .method(route.method.clone())
                    .uri(&path)
                    .insert_header(("Api-Version", version.short()))
                    .set_json(json!({}));
                if let Some(secret) = secret {
                    request = request.insert_header(bearer(secret));
                }
                let (status, body) = call(&app, request.to_request()).await;
                walked += 1;
                let who = role.map_or("nobody", AccessRole::as_str);
                let seen = format!(
                    "{version} {} {path} as {who}: {status} {body}",
                    route.method
                );
                // The dispatcher's refusal names the request and the role
                // (a handler's own 403, another user's record, does not).
                let refused_here = body["message"].as_str().is_some_and(|message| {
                    message.starts_with(&format!("{} {path} needs the role", route.method))
                });
                match (route.least_role, role) {
                    (None, _) if refused_here => {
                        problems.push(format!("open to all, yet refused: {seen}"));
                    }
                    (None, _) => {}
                    (Some(_), None) if status != StatusCode::UNAUTHORIZED => {
                        problems.push(format!("no identity, not 401: {seen}"));
                    }
                    (Some(least), Some(role)) if *role < least => {
                        let named = format!("needs the role {least}");
                        if status != StatusCode::FORBIDDEN
                            || body["code"] != "forbidden"
                            || !body["message"].as_str().unwrap_or("").contains(&named)
                        {
                            problems.push(format!("too little role, not 403 ({named}): {seen}"));
                        }
                    }
                    (Some(_), Some(_)) if status == StatusCode::UNAUTHORIZED || refused_here => {
                        problems.push(format!("enough role, yet refused: {seen}"));
                    }
                    _ => {}
                }
            }
        }
    }
    // Both tables, five identities: a lost table would walk far fewer.
    assert!(walked > 900, "only {walked} requests");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
