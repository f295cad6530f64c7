//! What a handler answers: a success [`Reply`] or an [`ApiError`].
//!
//! Neither knows its classification level nor its version's envelope: the
//! level comes from the route table's declared responses, and the envelope
//! is drawn by the dispatcher for the version that answered.

use actix_web::http::StatusCode;
use serde::Serialize;

/// A successful answer.
#[derive(Debug, Clone)]
pub struct Reply {
    pub(crate) status: StatusCode,
    pub(crate) message: String,
    pub(crate) content: Content,
}

/// What a reply carries beside its message.
#[derive(Debug, Clone)]
pub(crate) enum Content {
    /// The message alone.
    Message,
    /// A payload under one key beside the message, already serialised: the
    /// envelope is written around these bytes, so a large list is rendered
    /// once, straight from its types.
    Payload { key: &'static str, json: Vec<u8> },
    /// A file, sent as it is (download, log file).
    File {
        bytes: Vec<u8>,
        content_type: &'static str,
        file_name: String,
    },
    /// An HTML page.
    Html(String),
    /// A document in its own format, not an attachment (the API description).
    Document {
        bytes: actix_web::web::Bytes,
        content_type: &'static str,
    },
}

impl Reply {
    /// A reply with `status` and `message` and nothing else.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
            content: Content::Message,
        }
    }

    /// 200 with a message.
    pub fn ok(message: impl Into<String>) -> Self {
        Self::new(StatusCode::OK, message)
    }

    /// 201 with a message.
    pub fn created(message: impl Into<String>) -> Self {
        Self::new(StatusCode::CREATED, message)
    }

    /// Adds the payload `value` under `key` (the key the API's table of
    /// payload keys gives for this endpoint).
    pub fn with<T: Serialize + ?Sized>(
        mut self,
        key: &'static str,
        value: &T,
    ) -> Result<Self, ApiError> {
        let json = serde_json::to_vec(value).map_err(|error| {
            ApiError::internal(format!("could not render the {key} payload: {error}"))
        })?;
        self.content = Content::Payload { key, json };
        Ok(self)
    }

    /// Adds a payload already serialised as JSON under `key`.
    pub(crate) fn with_json(mut self, key: &'static str, json: &[u8]) -> Self {
        self.content = Content::Payload {
            key,
            json: json.to_vec(),
        };
        self
    }

    /// A file download.
    pub fn file(bytes: Vec<u8>, content_type: &'static str, file_name: impl Into<String>) -> Self {
        Self {
            status: StatusCode::OK,
            message: String::new(),
            content: Content::File {
                bytes,
                content_type,
                file_name: file_name.into(),
            },
        }
    }

    /// An HTML page.
    pub fn html(page: String) -> Self {
        Self {
            status: StatusCode::OK,
            message: String::new(),
            content: Content::Html(page),
        }
    }

    /// A document served as it is (not as an attachment, not in the envelope).
    pub fn document(bytes: actix_web::web::Bytes, content_type: &'static str) -> Self {
        Self {
            status: StatusCode::OK,
            message: String::new(),
            content: Content::Document {
                bytes,
                content_type,
            },
        }
    }

    /// The status.
    pub fn status(&self) -> StatusCode {
        self.status
    }
}

/// A failed request: a status and a message for the person who sent it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{status}: {message}")]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What went wrong; for 400, every problem found, each with its field.
    pub message: String,
}

impl ApiError {
    /// An error with any status.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }

    /// 400: the request is wrong.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    /// 404: what the request names does not exist.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, message)
    }

    /// 409: the request conflicts with the configuration's state.
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, message)
    }

    /// 500: a fault of the server or its host, never of the request.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }
}

impl From<netcfg_model::Problems> for ApiError {
    fn from(problems: netcfg_model::Problems) -> Self {
        Self::bad_request(format!("invalid request: {problems}"))
    }
}
