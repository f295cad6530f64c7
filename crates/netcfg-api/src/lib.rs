//! The HTTP layer of netcfg: both route tables (5.1 and 5.0) as data, the
//! JSON envelope, the OpenAPI documents and the API browser.
//!
//! [`create_app`] builds the actix-web application that the server binary
//! serves and that tests mount directly. This is the only crate that knows
//! HTTP, JSON envelopes and API versions.
//!
//! How a request is answered:
//! 1. the version middleware reads `Api-Version` (400 if unknown) and sets
//!    the same header on the response;
//! 2. the dispatcher finds the path pattern's row in that version's table
//!    (404 if the path exists only in the other table, 405 with `Allow` for a
//!    wrong method), reads the body within its limits (413, 415);
//! 3. the row's handler answers a [`Reply`] or an [`ApiError`];
//! 4. the dispatcher draws the envelope, taking the classification level
//!    from the row's declared responses.

pub mod auth;
mod context;
mod describe;
mod dispatch;
mod error_code;
mod errors;
pub mod events;
mod handlers;
mod multipart;
pub mod openapi;
mod operation;
pub mod path;
mod render_cache;
mod reply;
mod routes;
mod state;
mod table;
mod version;
pub mod wire;

use std::{future::Future, pin::Pin};

use actix_web::{
    App, Error, HttpMessage,
    body::{EitherBody, MessageBody},
    dev::{Service, ServiceFactory, ServiceRequest, ServiceResponse},
    http::{
        StatusCode,
        header::{self, HeaderValue},
    },
    web,
};
use auth::Verdict;

pub use auth::{Access, Auth, AuthError};
pub use context::Ctx;
pub use dispatch::{CLASSIFICATION_HEADER, JSON_BODY_LIMIT, MESSAGE_HEADER, UPLOAD_BODY_LIMIT};
pub use error_code::ErrorCode;
pub use openapi::document;
pub use operation::Operation;
pub use reply::{ApiError, FieldProblem, Reply};
pub use state::{AppState, DEFAULT_COMMAND_TIMEOUT, Services};
pub use table::{
    Body, Change, Declared, Handler, HandlerFuture, Payload, Route, SchemaFn, Table, apply_changes,
    schema_of,
};
pub use version::{ApiVersion, UnknownVersion, VERSION_HEADER};

/// The route rows every table has whatever its version (the self description).
pub fn common_routes() -> Vec<Route> {
    vec![describe::api_json_route()]
}

type Answer<B> = Pin<Box<dyn Future<Output = Result<ServiceResponse<EitherBody<B>>, Error>>>>;

/// The application: the version middleware, the API browser, every route
/// of every table, and an enveloped 404 for anything else.
pub fn create_app(
    state: web::Data<AppState>,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = Error,
        InitError = (),
    >,
> {
    let patterns = dispatch::patterns(&state);
    let default_version = state.default_version();
    let auth = state.auth().clone();
    App::new()
        .app_data(state.clone())
        .configure(describe::register_browser)
        .configure(|config| dispatch::register(config, &patterns, &state))
        .default_service(web::to(dispatch::unknown_route))
        .wrap_fn(move |request, service| -> Answer<_> {
            // The version first, so that every refusal has its envelope and
            // Api-Version; then the token, when access control is on.
            let judged = match dispatch::select_version(&request, default_version) {
                Err(error) => Err((error, default_version)),
                Ok(version) => {
                    let authorization = request
                        .headers()
                        .get(header::AUTHORIZATION)
                        .and_then(|value| value.to_str().ok());
                    match auth.judge(request.method().as_str(), request.path(), authorization) {
                        Verdict::Allowed => Ok(version),
                        Verdict::Unauthenticated => Err((
                            ApiError::new(
                                ErrorCode::Unauthorized,
                                "a token is required: send Authorization: Bearer <token>",
                            ),
                            version,
                        )),
                        Verdict::Forbidden => Err((
                            ApiError::new(
                                ErrorCode::Forbidden,
                                "this token may only read; a change needs an admin token",
                            ),
                            version,
                        )),
                    }
                }
            };
            match judged {
                Ok(version) => {
                    request.extensions_mut().insert(version);
                    let call = service.call(request);
                    Box::pin(async move {
                        let mut response = call.await?;
                        response.headers_mut().insert(
                            VERSION_HEADER.try_into().expect("a valid header name"),
                            HeaderValue::from_static(version.full()),
                        );
                        Ok(response.map_into_left_body())
                    })
                }
                Err((error, version)) => {
                    let mut response = dispatch::render_error(&error, None, version);
                    let headers = response.headers_mut();
                    headers.insert(
                        VERSION_HEADER.try_into().expect("a valid header name"),
                        HeaderValue::from_static(version.full()),
                    );
                    if error.status == StatusCode::UNAUTHORIZED {
                        headers
                            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                    }
                    let answer = request.into_response(response).map_into_right_body();
                    Box::pin(async move { Ok(answer) })
                }
            }
        })
}
