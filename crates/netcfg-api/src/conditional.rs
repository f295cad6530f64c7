//! Optimistic concurrency (decisions.md §10). A GET of a configuration's
//! item or list ([`Conditional::Tagged`]) carries a strong `ETag`: a
//! 128-bit xxh3 digest of the bytes it sends, so equal tags mean equal
//! bytes; `If-None-Match` with the current tag answers 304 with no body.
//!
//! A write to such a path ([`Conditional::IfMatch`]) with `If-Match`
//! answers 412 and changes nothing unless the tag is that of what the GET
//! of the same path sends now. The comparison is made after the handler
//! read the body (a bad body is a 400 whatever the tag), and it and the
//! write are one step: the configuration's generation is read before the
//! representation is rendered, and the request's first change checks on
//! the configuration's writer thread, inside its transaction, that nothing
//! was committed since (`Net::require_unchanged`). Two clients that send
//! the same tag cannot both succeed. Changes that are not a configuration's
//! content changes (renaming, deleting or starting a configuration) are
//! compared just before they run.

use std::sync::{Arc, Mutex, OnceLock};

use actix_web::{
    HttpRequest, HttpResponse,
    body::{BoxBody, MessageBody},
    http::{StatusCode, header},
    web,
};
use netcfg_model::ConfigName;
use netcfg_store::Net;

use crate::{
    context::Ctx,
    dispatch::render_reply,
    error_code::ErrorCode,
    operation::Operation,
    reply::ApiError,
    table::{Conditional, IF_MATCH, IF_NONE_MATCH, Route, Table},
    version::ApiVersion,
};

/// The strong entity tag of `bytes`.
pub(crate) fn tag_of(bytes: &[u8]) -> String {
    format!("\"{:032x}\"", xxhash_rust::xxh3::xxh3_128(bytes))
}

/// True when the header's list names `tag`, or is `*`. `If-Match` compares
/// strongly (a weak `W/` tag never matches); `If-None-Match` weakly.
fn list_names(list: &str, tag: &str, weak: bool) -> bool {
    list.split(',').map(str::trim).any(|candidate| {
        candidate == "*" || candidate == tag || (weak && candidate.strip_prefix("W/") == Some(tag))
    })
}

/// A conditional header's value; an empty one names no tag and counts as
/// absent.
fn header<'a>(request: &'a HttpRequest, name: &str) -> Option<&'a str> {
    request
        .headers()
        .get(name)
        .and_then(|value| value.to_str().ok())
        .filter(|value| !value.trim().is_empty())
}

/// The bytes of a rendered response, and the response to send them in.
fn split(response: HttpResponse) -> (HttpResponse<()>, Option<web::Bytes>) {
    let (head, body) = response.into_parts();
    match BoxBody::try_into_bytes(body) {
        Ok(bytes) => (head, Some(bytes)),
        Err(_) => (head, None),
    }
}

/// A tagged 200 as sent, kept to be sent again: the answer of a rendered
/// list (render_cache) for each API version, so that reading the same
/// generation again neither draws the envelope around the list nor hashes
/// the body again.
#[derive(Debug, Default)]
pub(crate) struct SentMemo {
    by_version: [OnceLock<Sent>; 2],
}

/// The parts of a tagged 200 that [`SentMemo`] keeps.
#[derive(Debug)]
struct Sent {
    content_type: Option<header::HeaderValue>,
    body: web::Bytes,
    tag: String,
}

impl SentMemo {
    fn slot(&self, version: ApiVersion) -> &OnceLock<Sent> {
        &self.by_version[match version {
            ApiVersion::V5_0 => 0,
            ApiVersion::V5_1 => 1,
        }]
    }

    /// The tag of the answer kept for `version`.
    pub(crate) fn tag(&self, version: ApiVersion) -> Option<&str> {
        self.slot(version).get().map(|sent| sent.tag.as_str())
    }

    /// The answer kept for `version`, as [`tagged`] would send it.
    pub(crate) fn answer(
        &self,
        request: &HttpRequest,
        version: ApiVersion,
    ) -> Option<HttpResponse> {
        let sent = self.slot(version).get()?;
        let mut head = HttpResponse::Ok().finish().into_parts().0;
        if let Some(content_type) = &sent.content_type {
            head.headers_mut()
                .insert(header::CONTENT_TYPE, content_type.clone());
        }
        Some(finish(request, head, sent.body.clone(), &sent.tag))
    }
}

/// A tagged row's answer: a 200 gets its `ETag`, and becomes a 304 with
/// no body when `If-None-Match` names it. The 200 is kept in `memo`, when
/// the reply had one, for `version`.
pub(crate) fn tagged(
    request: &HttpRequest,
    route: &Route,
    response: HttpResponse,
    memo: Option<(&SentMemo, ApiVersion)>,
) -> HttpResponse {
    if route.conditional != Conditional::Tagged || response.status() != StatusCode::OK {
        return response;
    }
    let (head, bytes) = split(response);
    let Some(bytes) = bytes else {
        return head.set_body(BoxBody::new(()));
    };
    let tag = tag_of(&bytes);
    if let Some((memo, version)) = memo {
        let _ = memo.slot(version).set(Sent {
            content_type: head.headers().get(header::CONTENT_TYPE).cloned(),
            body: bytes.clone(),
            tag: tag.clone(),
        });
    }
    finish(request, head, bytes, &tag)
}

fn finish(
    request: &HttpRequest,
    mut head: HttpResponse<()>,
    bytes: web::Bytes,
    tag: &str,
) -> HttpResponse {
    let fresh = header(request, IF_NONE_MATCH).is_some_and(|list| list_names(list, tag, true));
    if let Ok(value) = header::HeaderValue::from_str(tag) {
        head.headers_mut().insert(header::ETAG, value);
    }
    if fresh {
        *head.status_mut() = StatusCode::NOT_MODIFIED;
        head.headers_mut().remove(header::CONTENT_TYPE);
        return head.set_body(BoxBody::new(()));
    }
    head.set_body(BoxBody::new(bytes))
}

/// A write's `If-Match`, still to compare: shared between the dispatcher
/// and the handler's context, so the dispatcher can tell whether the
/// handler compared it.
pub(crate) type Pending = Arc<Mutex<Option<IfMatch>>>;

/// What a write's `If-Match` is compared with.
#[derive(Debug)]
pub(crate) struct IfMatch {
    /// The header's list of tags.
    list: String,
    /// The GET row of the same path, whose current representation it names.
    reader: Operation,
}

/// The comparison a request must make: for a [`Conditional::IfMatch`] row
/// with the header, against the tagged GET of the matched path.
pub(crate) fn pending(
    request: &HttpRequest,
    route: &Route,
    pattern: &str,
    table: &Table,
) -> Pending {
    let found = (route.conditional == Conditional::IfMatch)
        .then(|| header(request, IF_MATCH))
        .flatten()
        .and_then(|list| {
            table
                .routes
                .iter()
                .find(|other| {
                    other.conditional == Conditional::Tagged && other.paths.contains(&pattern)
                })
                .map(|reader| IfMatch {
                    list: list.to_owned(),
                    reader: reader.operation,
                })
        });
    Arc::new(Mutex::new(found))
}

fn lock(pending: &Pending) -> std::sync::MutexGuard<'_, Option<IfMatch>> {
    pending
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Compares the request's `If-Match`, once, with the current tag of the
/// path's GET: `Ok(None)` when there is none to compare (or it was
/// compared already), `Ok(Some(generation))` when it matches (the
/// configuration's generation read before the representation, for the
/// writer thread to check again), a 412 when it does not, or the GET's own
/// error (a 404 for an item that does not exist). Handlers call it after
/// reading the body: `handlers::change` does, and the configuration's
/// lifecycle handlers before they act.
pub(crate) async fn check_if_match(
    context: &Ctx,
    net: Option<&Net>,
) -> Result<Option<u64>, ApiError> {
    let Some(IfMatch { list, reader }) = lock(&context.if_match).take() else {
        return Ok(None);
    };
    let state = context.state_handle();
    let version = context.version();
    let Some(reader) = state.table(version).route(reader) else {
        return Ok(None);
    };
    // The generation before the representation: a change committed after
    // this read is seen by the writer thread's check.
    let generation = match net {
        Some(net) => net.generation(),
        None => {
            let name = context
                .request()
                .match_info()
                .get("net_name")
                .and_then(|name| name.parse::<ConfigName>().ok());
            match name {
                Some(name) => {
                    let store_state = state.clone();
                    web::block(move || store_state.store().net(&name).map(|net| net.generation()))
                        .await
                        .map_err(ApiError::internal)??
                }
                None => 0,
            }
        }
    };
    let reading = Ctx {
        request: context.request().clone(),
        body: web::Bytes::new(),
        stream: None,
        version,
        state: state.clone(),
        if_match: Arc::default(),
        summary: reader.summary,
    };
    let reply = reader.handler.call(reading).await?;
    let current = match reply.sent.as_ref().and_then(|sent| sent.tag(version)) {
        Some(tag) => tag.to_owned(),
        None => {
            let (_, bytes) = split(render_reply(reply, reader, version));
            tag_of(&bytes.unwrap_or_default())
        }
    };
    if list_names(&list, &current, false) {
        Ok(Some(generation))
    } else {
        Err(ApiError::new(
            ErrorCode::PreconditionFailed,
            format!(
                "{} changed since it was read (If-Match {list}; it is {current} now): nothing was changed; read it again",
                context.request().path()
            ),
        ))
    }
}

/// After a handler succeeded: an error when it never compared the
/// request's `If-Match` (a handler that writes without `handlers::change`
/// and without calling [`check_if_match`]). In release builds the write is
/// answered as it was made; in debug builds and tests it is a 500 naming
/// the operation, so the route walk catches the handler.
pub(crate) fn unchecked(pending: &Pending, route: &Route) -> Option<ApiError> {
    let left = lock(pending).take()?;
    if cfg!(debug_assertions) {
        Some(ApiError::internal(format!(
            "{} succeeded without comparing If-Match {}",
            route.operation, left.list
        )))
    } else {
        log::error!(
            "{} succeeded without comparing If-Match {}",
            route.operation,
            left.list
        );
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_compared_as_http_says() {
        let tag = tag_of(b"{}");
        assert!(tag.starts_with('"') && tag.ends_with('"') && tag.len() == 34);
        assert_ne!(tag, tag_of(b"{ }"));
        assert!(list_names(&tag, &tag, false));
        assert!(list_names(&format!("\"other\", {tag}"), &tag, false));
        assert!(list_names("*", &tag, false));
        assert!(!list_names(&format!("W/{tag}"), &tag, false));
        assert!(list_names(&format!("W/{tag}"), &tag, true));
        assert!(!list_names("\"other\"", &tag, true));
    }
}
