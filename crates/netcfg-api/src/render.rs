//! A route's answer drawn for the version that serves it: the status its
//! row sends (remapped), the level the row declares for it, the payload
//! under the row's key, the event stream or file as it is. What a row does
//! not declare is refused here.

use actix_web::{
    HttpResponse,
    http::{StatusCode, header},
};
use netcfg_model::Level;

use crate::{
    envelope::{envelope, error_response},
    reply::{ApiError, Content, Reply},
    table::{Payload, Route},
    version::ApiVersion,
};

/// The response of an event stream: sent chunk by chunk as the stream
/// yields, never buffered by a proxy, ended when the stream ends.
fn event_stream(stream: crate::events::EventStream) -> HttpResponse {
    let chunks = futures_util::stream::unfold(stream, |mut stream| async move {
        let chunk = stream.next_chunk().await?;
        Some((Ok::<_, std::convert::Infallible>(chunk), stream))
    });
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(chunks)
}

/// The head of a file download named `file_name`.
fn attachment(
    status: StatusCode,
    content_type: &'static str,
    file_name: &str,
) -> actix_web::HttpResponseBuilder {
    let mut builder = HttpResponse::build(status);
    builder.content_type(content_type).insert_header((
        header::CONTENT_DISPOSITION,
        format!(
            "attachment; filename=\"{}\"",
            file_name.replace(['"', '\\'], "_")
        ),
    ));
    builder
}

/// A file's pieces as a body; a read error ends the body short (the
/// declared length tells the client it is incomplete).
fn file_chunks(
    chunks: tokio::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>,
) -> impl futures_core::Stream<Item = Result<actix_web::web::Bytes, std::io::Error>> {
    futures_util::stream::unfold(chunks, |mut chunks| async move {
        let chunk = chunks.recv().await?;
        Some((chunk.map(actix_web::web::Bytes::from), chunks))
    })
}

/// The level of a response with `status` on `route`: its declared level,
/// else level 1 (a failure no row names).
fn level_of(route: Option<&Route>, status: StatusCode) -> Level {
    route
        .and_then(|route| route.declared(status))
        .map_or(Level::Error, |declared| declared.level)
}

pub(crate) fn render_reply(mut reply: Reply, route: &Route, version: ApiVersion) -> HttpResponse {
    if let Some(to) = route.remapped(reply.status) {
        reply.status = to;
    }
    let declared = route.declared(reply.status);
    if declared.is_none() {
        return broken_row(
            route,
            format!("answered status {}", reply.status.as_u16()),
            version,
        );
    }
    let level = match declared {
        None => Level::Error,
        Some(declared) if reply.partial => match declared.partial_level {
            Some(level) => level,
            None => {
                let what = "sent a partial success, for which its row declares no level";
                return broken_row(route, what.to_owned(), version);
            }
        },
        Some(declared) => declared.level,
    };
    match reply.content {
        Content::Events(stream) => event_stream(stream),
        Content::File {
            bytes,
            content_type,
            file_name,
        } => attachment(reply.status, content_type, &file_name).body(bytes),
        Content::FileStream {
            length,
            chunks,
            content_type,
            file_name,
        } => attachment(reply.status, content_type, &file_name)
            .no_chunking(length)
            .streaming(file_chunks(chunks)),
        Content::Document {
            bytes,
            content_type,
        } => HttpResponse::build(reply.status)
            .content_type(content_type)
            .body(bytes),
        Content::Html(page) => HttpResponse::build(reply.status)
            .content_type("text/html; charset=utf-8")
            .body(page),
        Content::Message => envelope(reply.status, &reply.message, level, version, None, &[]),
        Content::Payload {
            json,
            key_type,
            key: sent_key,
        } => {
            let Some(Payload::Json {
                key,
                key_type: declared_type,
                ..
            }) = declared.map(|declared| declared.payload)
            else {
                let what = format!(
                    "sent a payload with status {}, for which its row declares none",
                    reply.status.as_u16()
                );
                return broken_row(route, what, version);
            };
            if key_type != declared_type() {
                return broken_row(
                    route,
                    format!("sent a payload of key {sent_key} where its row declares {key}"),
                    version,
                );
            }
            envelope(
                reply.status,
                &reply.message,
                level,
                version,
                Some((key, &json)),
                &[],
            )
        }
    }
}

/// When a handler's answer breaks its row (a status, payload or level the
/// row does not declare): a 500, which every row declares, in every build,
/// with the breach logged under its incident id. No answer leaves with a
/// status its row does not declare; the route walk and schemathesis, which
/// fail on an unexpected 500, catch the handler.
fn broken_row(route: &Route, what: String, version: ApiVersion) -> HttpResponse {
    let cause = format!("the reply breaks its row: {} {what}", route.operation);
    render_error(&ApiError::internal(cause), None, version)
}

pub(crate) fn render_error(
    error: &ApiError,
    route: Option<&Route>,
    version: ApiVersion,
) -> HttpResponse {
    let mut error = error.clone();
    if let Some(route) = route {
        if let Some(to) = route.remapped(error.status) {
            error = if error.status == StatusCode::CONFLICT && to == StatusCode::BAD_REQUEST {
                error.conflict_as_invalid("")
            } else {
                error.with_status(to)
            };
        }
        if route.declared(error.status).is_none() {
            return broken_row(
                route,
                format!(
                    "answered status {} ({})",
                    error.status.as_u16(),
                    error.message
                ),
                version,
            );
        }
    }
    let level = level_of(route, error.status);
    // A row that declares a payload for an error (5.0's maximum-tag 500)
    // gets its key, null: nothing was produced.
    let payload_key = route
        .and_then(|route| route.declared(error.status))
        .and_then(|declared| match declared.payload {
            Payload::Json { key, .. } => Some(key),
            _ => None,
        });
    let mut response = error_response(&error, level, version, payload_key);
    if let Some(seconds) = error.retry_after {
        response.headers_mut().insert(
            actix_web::http::header::RETRY_AFTER,
            actix_web::http::header::HeaderValue::from(seconds),
        );
    }
    response
}
