//! The HTTP layer of netcfg: both route tables (5.1 and 5.0) as data, the
//! JSON envelope, the OpenAPI documents, the API browser and the web front
//! end's files.
//!
//! [`create_app`] builds the actix-web application that the server binary
//! serves and that tests mount directly. This is the only crate that knows
//! HTTP, JSON envelopes and API versions.
//!
//! How a request is answered:
//! 1. the gate ([`VersionGate`]) reads `Api-Version` (400 if unknown),
//!    judges the token when access control is on (401, 403), and sets
//!    `Api-Version` on the response;
//! 2. the dispatcher finds the path pattern's row in that version's table
//!    (404 if the path exists only in the other table, 405 with `Allow` for a
//!    wrong method), reads the body within its limits (413, 415);
//! 3. the row's handler parses the request, calls one function of the
//!    service layer (`netcfg-service`) and answers a [`Reply`] or an
//!    [`ApiError`];
//! 4. the dispatcher draws the envelope, taking the classification level
//!    from the row's declared responses; an answer its row does not declare
//!    becomes a 500, which every row declares.
//!
//! The route tables ([`Tables`]) are data handed to actix beside the state
//! ([`AppState`]); the router and the OpenAPI documents are built from them.

mod access;
pub mod auth;
mod conditional;
mod context;
mod describe;
mod dispatch;
mod envelope;
mod error_code;
mod errors;
mod etag;
pub mod events;
mod gate;
mod handlers;
mod lockout;
mod metrics;
mod multipart;
pub mod openapi;
mod operation;
pub mod operations;
pub mod path;
pub mod payload;
mod render;
mod render_cache;
mod reply;
mod router;
mod routes;
mod state;
mod table;
mod table_changes;
mod tables;
mod version;
pub mod wire;

use actix_web::{
    App, Error,
    body::MessageBody,
    dev::{ServiceFactory, ServiceRequest, ServiceResponse},
    web,
};

pub use auth::{Access, Auth, AuthError};
pub use context::Ctx;
pub use dispatch::{JSON_BODY_LIMIT, UPLOAD_BODY_LIMIT};
pub use envelope::{CLASSIFICATION_HEADER, MESSAGE_HEADER};
pub use error_code::ErrorCode;
pub use gate::{VersionGate, VersionGateService};
pub use netcfg_service::{DEFAULT_COMMAND_TIMEOUT, RecordingLimits, Services};
pub use openapi::document;
pub use operation::Operation;
pub use payload::{PayloadKey, keys};
pub use reply::{ApiError, FieldProblem, Reply};
pub use state::AppState;
pub use table::{
    Body, Change, CheckBody, CheckPath, Conditional, Declared, Handler, HandlerFuture, Parameter,
    ParameterLocation, Payload, Route, SchemaFn, Stamp, Table, Tagging, apply_changes, schema_of,
};
pub use tables::Tables;
pub use version::{ApiVersion, UnknownVersion, VERSION_HEADER};

/// The route rows every table has whatever its version (the self description).
pub fn common_routes() -> Vec<Route> {
    vec![describe::api_json_route()]
}

/// The application: the version-and-access gate, the API browser, every
/// route of the API's own tables, the web front end, and an enveloped 404
/// for anything else.
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
    let tables = Tables::standard();
    create_app_with_tables(state, web::Data::new(tables))
}

/// [`create_app`] serving `tables` (one per version): for tests of the
/// framework. The tables are handed to actix as data of their own, beside
/// the state.
pub fn create_app_with_tables(
    state: web::Data<AppState>,
    tables: web::Data<Tables>,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = Error,
        InitError = (),
    >,
> {
    let router = std::rc::Rc::new(router::Router::new(&dispatch::patterns(&tables), &tables));
    let gate = VersionGate::new(
        state.default_version(),
        state.auth().clone(),
        state.service().clone(),
    );
    App::new()
        .app_data(state.clone())
        .app_data(tables.clone())
        .configure(describe::register_browser)
        .configure(netcfg_ui::register)
        .configure(operations::register)
        .default_service(actix_web::dev::fn_service(move |request| {
            let router = router.clone();
            async move { router::serve(&router, request).await }
        }))
        .wrap(gate)
        .wrap(actix_web::middleware::from_fn(operations::count_requests))
}
