//! What a handler gets: the request, its body, the version that answers and
//! the application's state, with readers that turn bad input into 400s.

use actix_web::{HttpRequest, web};
use netcfg_model::people::AccessRole;
use netcfg_model::{ChangeRecord, FromJson};
use netcfg_service::{Expected, Service};

use crate::{error_code::ErrorCode, reply::ApiError, state::AppState, version::ApiVersion};

/// One request, as a handler sees it.
pub struct Ctx {
    pub(crate) request: HttpRequest,
    pub(crate) body: web::Bytes,
    /// The body as a stream, for a route that reads it so (the upload).
    pub(crate) stream: Option<web::Payload>,
    pub(crate) version: ApiVersion,
    pub(crate) state: web::Data<AppState>,
    /// A write's `If-Match`, resolved before the handler runs; what
    /// `Ctx::write` hands the service to check again on the writer thread.
    pub(crate) precondition: Precondition,
    /// The summary of the route's row: what the change history calls the
    /// request.
    pub(crate) summary: &'static str,
}

impl std::fmt::Debug for Ctx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx")
            .field("request", &self.request)
            .field("body", &self.body.len())
            .field("stream", &self.stream.is_some())
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

impl Ctx {
    /// The version whose table is answering.
    pub fn version(&self) -> ApiVersion {
        self.version
    }

    /// The application's state.
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// The operations on configurations.
    pub fn service(&self) -> &Service {
        self.state.service()
    }

    /// A shared handle on the application's state, for work that outlives
    /// the borrow of the context (blocking tasks).
    pub fn state_handle(&self) -> web::Data<AppState> {
        self.state.clone()
    }

    /// The request.
    pub fn request(&self) -> &HttpRequest {
        &self.request
    }

    /// The query parameter `name`, if given.
    pub fn query(&self, name: &str) -> Option<String> {
        web::Query::<std::collections::HashMap<String, String>>::from_query(
            self.request.query_string(),
        )
        .ok()
        .and_then(|query| query.get(name).cloned())
    }

    /// The JSON body, read with the model's reader: a 400 names every problem.
    pub fn body<T: FromJson>(&self) -> Result<T, ApiError> {
        read_json(&self.body)
    }

    /// What the change history records of this request: its origin
    /// (`user:<name>`, `key:<user>/<key>`, `token:<name>` or `anonymous`), the client's address, the method and path, and
    /// the route's summary, short (its first words: `short_summary`).
    pub fn record(&self) -> ChangeRecord {
        self.record_as(short_summary(self.summary))
    }

    /// [`Ctx::record`] with a summary of the handler's own.
    pub fn record_as(&self, summary: impl Into<String>) -> ChangeRecord {
        let origin = crate::auth::requester(&self.request).identity.map_or_else(
            || ChangeRecord::ANONYMOUS.to_owned(),
            |identity| identity.origin(),
        );
        ChangeRecord {
            origin,
            address: self
                .request
                .peer_addr()
                .map(|address| address.ip().to_string()),
            method: self.request.method().to_string(),
            path: self.request.path().to_owned(),
            summary: summary.into(),
        }
    }

    /// Refuses the request unless its identity has at least `role`, for
    /// the part of a row that needs more than the row's least role (a
    /// copy or deletion through the configuration's action).
    pub(crate) fn require(&self, role: AccessRole, what: &str) -> Result<(), ApiError> {
        let requester = crate::auth::requester(&self.request);
        match (&requester.identity, requester.on) {
            (_, false) => Ok(()),
            (Some(identity), true) if identity.role >= role => Ok(()),
            (Some(identity), true) => Err(ApiError::new(
                ErrorCode::Forbidden,
                format!(
                    "{what} needs the role {role}; {} has the role {}",
                    identity.info().user,
                    identity.role
                ),
            )),
            (None, true) => Err(ApiError::new(ErrorCode::Unauthorized, crate::auth::SIGN_IN)),
        }
    }

    /// Whether the request's identity sees configuration `net` (every one
    /// when access control is off or the identity is not limited).
    pub(crate) fn sees(&self, net: &netcfg_model::ConfigName) -> bool {
        crate::auth::requester(&self.request)
            .identity
            .is_none_or(|identity| identity.sees(net))
    }

    /// Whether the request's identity is limited to some configurations.
    pub(crate) fn limited_to_some_nets(&self) -> bool {
        crate::auth::requester(&self.request)
            .identity
            .is_some_and(|identity| identity.nets.is_some())
    }

    /// The body as a stream, once: for a route whose body is read as it
    /// arrives (the upload's multipart form).
    pub fn take_stream(&mut self) -> Option<web::Payload> {
        self.stream.take()
    }
}

/// The first words of a route's summary: what the request did, without
/// the description after a colon or in brackets ("Add an output: an MQTT
/// broker or ... (username ...)" is "Add an output"). The history adds
/// what the change touched, by name.
pub(crate) fn short_summary(summary: &str) -> &str {
    let end = summary.find([':', '(']).unwrap_or(summary.len());
    summary[..end].trim_end()
}

/// A write's `If-Match`, resolved before its handler runs
/// (`conditional::precondition`): what the change must still find on the
/// configuration's writer thread.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Precondition {
    pub(crate) expected: Option<Expected>,
}

impl Precondition {
    /// None: the row takes no part, or the request sent no `If-Match`.
    pub(crate) const NONE: Self = Self { expected: None };
}

/// `bytes` read as `T`: a 400 naming every problem, or that the body is
/// missing or not JSON.
pub(crate) fn read_json<T: FromJson>(bytes: &[u8]) -> Result<T, ApiError> {
    if bytes.is_empty() {
        return Err(ApiError::problem(
            ErrorCode::InvalidBody,
            "",
            "a JSON body is required",
        ));
    }
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|error| {
        ApiError::problem(
            ErrorCode::MalformedJson,
            "",
            format!("the body is not valid JSON: {error}"),
        )
    })?;
    Ok(T::from_json(&value)?)
}
