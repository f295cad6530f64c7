//! What a handler answers: a success [`Reply`] or an [`ApiError`].
//!
//! Neither knows its classification level nor its version's envelope: the
//! level comes from the route table's declared responses, and the envelope
//! is drawn by the dispatcher for the version that answered.

use actix_web::http::StatusCode;
use serde::Serialize;

use crate::{error_code::ErrorCode, payload::PayloadKey};

/// A successful answer.
#[derive(Debug)]
pub struct Reply {
    pub(crate) status: StatusCode,
    pub(crate) message: String,
    pub(crate) content: Content,
    /// A partial success: sent at the row's partial level.
    pub(crate) partial: bool,
    /// The configuration a write made, when its path does not name it (a
    /// creation, a copy, an upload): the `change` event names it.
    pub(crate) made: Option<netcfg_model::ConfigName>,
    /// Where a tagged 200 of these exact bytes is kept once sent (with a
    /// rendered list in the render cache), to be sent again as it is.
    pub(crate) sent: Option<std::sync::Arc<crate::etag::SentMemo>>,
    /// The `Set-Cookie`s the answer carries (signing in and out).
    pub(crate) set_cookies: Vec<String>,
}

/// What a reply carries beside its message.
#[derive(Debug)]
pub(crate) enum Content {
    /// A stream of Server-Sent Events.
    Events(crate::events::EventStream),
    /// The message alone.
    Message,
    /// A payload beside the message, already serialised: the envelope is
    /// written around these bytes (under the key the route's row declares),
    /// so a large list is rendered once, straight from its types.
    Payload {
        json: actix_web::web::Bytes,
        /// The key's type: the renderer sends the payload only where the
        /// row declares that key for the status.
        key_type: std::any::TypeId,
        /// The key, for the log when a reply breaks its row.
        key: &'static str,
    },
    /// A file, sent as it is (download, log file).
    File {
        bytes: Vec<u8>,
        content_type: &'static str,
        file_name: String,
    },
    /// A file sent as it is read (a recording), with its length.
    FileStream {
        length: u64,
        chunks: tokio::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>,
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
            partial: false,
            made: None,
            sent: None,
            set_cookies: Vec::new(),
        }
    }

    /// Sets a cookie with the answer (`Set-Cookie: <cookie>`).
    pub(crate) fn set_cookie(mut self, cookie: String) -> Self {
        self.set_cookies.push(cookie);
        self
    }

    /// Names the configuration this write made (its path names another or none).
    pub fn made(mut self, name: &netcfg_model::ConfigName) -> Self {
        self.made = Some(name.clone());
        self
    }

    /// A stream of Server-Sent Events.
    pub(crate) fn events(stream: crate::events::EventStream) -> Self {
        Self {
            content: Content::Events(stream),
            ..Self::new(StatusCode::OK, String::new())
        }
    }

    /// Marks the reply a partial success (some of the work failed): it is
    /// sent at the level its row declares for that.
    pub fn partial(mut self) -> Self {
        self.partial = true;
        self
    }

    /// 200 with a message.
    pub fn ok(message: impl Into<String>) -> Self {
        Self::new(StatusCode::OK, message)
    }

    /// 201 with a message.
    pub fn created(message: impl Into<String>) -> Self {
        Self::new(StatusCode::CREATED, message)
    }

    /// Adds `value` under the key `K` (the key the API's table of payload
    /// keys gives for this endpoint), whose value's type it must be.
    pub fn with<K: PayloadKey>(self, value: &K::Value) -> Result<Self, ApiError> {
        let json = serde_json::to_vec(value).map_err(|error| {
            ApiError::internal(format!("could not render the {}: {error}", K::KEY))
        })?;
        Ok(self.with_json::<K>(json.into()))
    }

    /// Sends, and keeps in `sent`, the tagged 200 of this reply: a reply
    /// whose bytes are those of every other reply given the same memo.
    pub(crate) fn kept_as(mut self, sent: std::sync::Arc<crate::etag::SentMemo>) -> Self {
        self.sent = Some(sent);
        self
    }

    /// Adds a value of key `K` already serialised as JSON (shared, not
    /// copied).
    pub(crate) fn with_json<K: PayloadKey>(mut self, json: actix_web::web::Bytes) -> Self {
        self.content = Content::Payload {
            json,
            key_type: crate::payload::key_id::<K>(),
            key: K::KEY,
        };
        self
    }

    /// A file download read as it is sent: `length` bytes in `chunks`.
    pub fn file_stream(
        length: u64,
        chunks: tokio::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>,
        content_type: &'static str,
        file_name: impl Into<String>,
    ) -> Self {
        Self {
            content: Content::FileStream {
                length,
                chunks,
                content_type,
                file_name: file_name.into(),
            },
            ..Self::ok(String::new())
        }
    }

    /// A file download.
    pub fn file(bytes: Vec<u8>, content_type: &'static str, file_name: impl Into<String>) -> Self {
        Self {
            content: Content::File {
                bytes,
                content_type,
                file_name: file_name.into(),
            },
            ..Self::ok(String::new())
        }
    }

    /// An HTML page.
    pub fn html(page: String) -> Self {
        Self {
            content: Content::Html(page),
            ..Self::ok(String::new())
        }
    }

    /// A document served as it is (not as an attachment, not in the envelope).
    pub fn document(bytes: actix_web::web::Bytes, content_type: &'static str) -> Self {
        Self {
            content: Content::Document {
                bytes,
                content_type,
            },
            ..Self::ok(String::new())
        }
    }

    /// The status.
    pub fn status(&self) -> StatusCode {
        self.status
    }
}

/// One problem of a 400, beside the field it concerns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FieldProblem {
    /// The path of the field in the body (`interfaces[0].x`), or the name
    /// of a parameter; empty for the request as a whole.
    pub field: String,
    /// What is wrong with it.
    pub problem: String,
}

/// A failed request: its kind (`code`), status and message; for 400 every
/// problem with its field; for a fault of the server, the incident id under
/// which the cause was logged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{status}: {message}")]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// The kind of error, from the one table of codes.
    pub code: ErrorCode,
    /// What went wrong, for the person who sent the request.
    pub message: String,
    /// For 400: every problem found, each with its field.
    pub problems: Vec<FieldProblem>,
    /// For faults of the server: the id the cause was logged under.
    pub incident: Option<String>,
    /// For 429: the seconds until the client may try again (`Retry-After`).
    pub retry_after: Option<u64>,
}

impl ApiError {
    /// An error of kind `code`, with the status the code gives.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            status: code.status(),
            code,
            message: message.into(),
            problems: Vec::new(),
            incident: None,
            retry_after: None,
        }
    }

    /// The same error, with `Retry-After: seconds`.
    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    /// The same error answered with another status (a row's remap).
    pub fn with_status(mut self, status: StatusCode) -> Self {
        self.status = status;
        self
    }

    /// A conflict answered as 400 (where the seed's row lists no 409): it
    /// keeps its code and becomes one problem of `field` (empty for the
    /// request as a whole). The one place that turns a 409 into a 400, for
    /// rows that remap it and for the copy action.
    pub fn conflict_as_invalid(mut self, field: &str) -> Self {
        if self.status == StatusCode::CONFLICT {
            self.status = StatusCode::BAD_REQUEST;
            self.problems = vec![FieldProblem {
                field: field.to_owned(),
                problem: self.message.clone(),
            }];
        }
        self
    }

    /// 400 with one problem at `field` (a parameter, a form field, or empty).
    pub fn problem(code: ErrorCode, field: &str, problem: impl Into<String>) -> Self {
        let problem = problem.into();
        let message = if field.is_empty() {
            format!("invalid request: {problem}")
        } else {
            format!("invalid request: {field}: {problem}")
        };
        let mut error = Self::new(code, message);
        error.problems.push(FieldProblem {
            field: field.to_owned(),
            problem,
        });
        error
    }

    /// 400 listing every problem of the query and headers
    /// (`invalid_parameter`), each with the parameter it concerns.
    pub fn parameters(problems: Vec<FieldProblem>) -> Self {
        let listed: Vec<String> = problems
            .iter()
            .map(|problem| format!("{}: {}", problem.field, problem.problem))
            .collect();
        let mut error = Self::new(
            ErrorCode::InvalidParameter,
            format!("invalid request: {}", listed.join("; ")),
        );
        error.problems = problems;
        error
    }

    /// 400 listing every problem of the body.
    pub fn invalid(problems: &netcfg_model::Problems) -> Self {
        Self::new(
            ErrorCode::InvalidBody,
            format!("invalid request: {problems}"),
        )
        .with_problems(problems)
    }

    /// The same error naming the fields it concerns: a 409 whose values
    /// conflict with each other sends them as `problems`, so a client can
    /// show each beside its field as for a 400.
    pub fn with_problems(mut self, problems: &netcfg_model::Problems) -> Self {
        self.problems = problems
            .as_slice()
            .iter()
            .map(|problem| FieldProblem {
                field: problem.path.clone(),
                problem: problem.message.clone(),
            })
            .collect();
        self
    }

    /// A fault of the server: the client learns only that the server failed
    /// and the incident id; `cause` goes to the log under the same id.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        Self::fault(ErrorCode::Internal, cause)
    }

    /// A fault of kind `code` (internal, disk full, read-only data
    /// directory, link down): a public message of its own, the cause logged.
    pub fn fault(code: ErrorCode, cause: impl std::fmt::Display) -> Self {
        let incident = incident_id();
        log::error!("incident {incident}: {cause}");
        let what = match code {
            ErrorCode::DiskFull => "the data directory is full; nothing was changed",
            ErrorCode::DataDirectoryReadOnly => {
                "the data directory cannot be written; nothing was changed"
            }
            ErrorCode::LinkDown => "the link to the network's interface device failed",
            _ => "the server failed to answer this request",
        };
        let mut error = Self::new(
            code,
            format!("{what} (incident {incident}; the cause is in the server's log)"),
        );
        error.incident = Some(incident);
        error
    }

    /// The problems a 400 sends: those found, or the message as one problem
    /// of the whole request (a 5.0 row that answers a conflict with 400).
    pub(crate) fn problems_to_send(&self) -> Vec<FieldProblem> {
        if self.problems.is_empty() {
            vec![FieldProblem {
                field: String::new(),
                problem: self.message.clone(),
            }]
        } else {
            self.problems.clone()
        }
    }
}

/// A short id that is unique enough to find one incident in a log.
fn incident_id() -> String {
    use std::{
        hash::{BuildHasher, Hasher},
        sync::atomic::{AtomicU64, Ordering},
    };
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // RandomState is seeded from the operating system's randomness.
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    format!("{:012x}", hasher.finish() & 0xffff_ffff_ffff)
}

impl From<netcfg_model::Problems> for ApiError {
    fn from(problems: netcfg_model::Problems) -> Self {
        Self::invalid(&problems)
    }
}
