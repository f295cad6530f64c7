//! The response envelope (decisions.md §2), drawn around a message, a
//! level and a payload's bytes, and the envelope of an error. A leaf: it
//! knows versions and errors, not routes, so the gate, the dispatcher and
//! the published description all draw the same envelope.

use actix_web::{HttpResponse, http::StatusCode};
use netcfg_model::Level;

use crate::{reply::ApiError, version::ApiVersion};

/// The header that carries the message of a 204 response.
pub const MESSAGE_HEADER: &str = "Netcfg-Message";
/// The header that carries the classification level of a 204 response (5.1).
pub const CLASSIFICATION_HEADER: &str = "Netcfg-Classification";

/// The response of `error` at `level`: its code, a 400's problems (each
/// with its field), a 409's problems, a fault's incident id; `payload_key`
/// null when the row declares a payload for the error.
pub(crate) fn error_response(
    error: &ApiError,
    level: Level,
    version: ApiVersion,
    payload_key: Option<&'static str>,
) -> HttpResponse {
    let payload = payload_key.map(|key| (key, &b"null"[..]));
    let mut details = Vec::with_capacity(64);
    details.extend_from_slice(b",\"code\":\"");
    details.extend_from_slice(error.code.as_str().as_bytes());
    details.push(b'"');
    if error.status == StatusCode::BAD_REQUEST {
        details.extend_from_slice(b",\"problems\":");
        // Plain strings in a derived Serialize: writing cannot fail.
        let _ = serde_json::to_writer(&mut details, &error.problems_to_send());
    } else if error.status == StatusCode::CONFLICT && !error.problems.is_empty() {
        details.extend_from_slice(b",\"problems\":");
        let _ = serde_json::to_writer(&mut details, &error.problems);
    }
    if let Some(incident) = &error.incident {
        details.extend_from_slice(b",\"incident\":");
        let _ = serde_json::to_writer(&mut details, incident);
    }
    envelope(
        error.status,
        &error.message,
        level,
        version,
        payload,
        &details,
    )
}

/// The response envelope: `{"message", "Classification" (5.1), <key>: payload}`,
/// written around the payload's bytes; or, for 204, the same message and
/// level in headers.
pub(crate) fn envelope(
    status: StatusCode,
    message: &str,
    level: Level,
    version: ApiVersion,
    payload: Option<(&'static str, &[u8])>,
    details: &[u8],
) -> HttpResponse {
    let mut builder = HttpResponse::build(status);
    if status == StatusCode::NO_CONTENT {
        builder.insert_header((MESSAGE_HEADER, header_text(message)));
        if version.has_classification() {
            builder.insert_header((CLASSIFICATION_HEADER, level.value().to_string()));
        }
        return builder.finish();
    }
    let payload_length = payload.map_or(0, |(key, json)| key.len() + json.len() + 6);
    let mut body = Vec::with_capacity(message.len() + payload_length + 40);
    body.extend_from_slice(b"{\"message\":");
    // A string always serialises; the fallback keeps the body valid JSON.
    if serde_json::to_writer(&mut body, message).is_err() {
        body.extend_from_slice(b"\"\"");
    }
    if version.has_classification() {
        body.extend_from_slice(format!(",\"Classification\":{}", level.value()).as_bytes());
    }
    if let Some((key, json)) = payload {
        // Payload keys are the fixed words of the API's table: no escaping needed.
        body.extend_from_slice(format!(",\"{key}\":").as_bytes());
        body.extend_from_slice(json);
    }
    body.extend_from_slice(details);
    body.push(b'}');
    builder.content_type("application/json").body(body)
}

/// A message made safe for a header: printable ASCII stays, anything else is
/// percent-encoded as UTF-8.
fn header_text(message: &str) -> String {
    let mut text = String::with_capacity(message.len());
    for byte in message.bytes() {
        if (0x20..0x7f).contains(&byte) && byte != b'%' {
            text.push(char::from(byte));
        } else {
            text.push_str(&format!("%{byte:02X}"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_text_is_printable_ascii() {
        assert_eq!(header_text("Zone Ä 100%\n"), "Zone %C3%84 100%25%0A");
    }
}
