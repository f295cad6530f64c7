//! Optimistic concurrency (decisions.md §10). A GET of a configuration's
//! item or list ([`Conditional::Tagged`]) carries a strong `ETag`: a
//! 128-bit xxh3 digest of the bytes it sends, so equal tags mean equal
//! bytes; `If-None-Match` with the current tag answers 304 with no body.
//!
//! A write to such a path ([`Conditional::IfMatch`]) with `If-Match`
//! answers 412 and changes nothing unless the tag is that of what the GET
//! of the same path sends now. The comparison and the write are one step:
//! the configuration's generation is read before the representation is
//! rendered, and the request's first change checks on the configuration's
//! writer thread, inside its transaction, that nothing was committed since
//! (`Net::require_unchanged`). Two clients that send the same tag cannot
//! both succeed. Changes that are not a configuration's content changes
//! (renaming, deleting or starting a configuration) are compared just
//! before they run.

use actix_web::{
    HttpRequest, HttpResponse,
    body::{BoxBody, MessageBody},
    http::{StatusCode, header},
    web,
};
use netcfg_model::ConfigName;

use crate::{
    context::Ctx,
    dispatch::{render_error, render_reply},
    error_code::ErrorCode,
    reply::ApiError,
    state::AppState,
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

fn header<'a>(request: &'a HttpRequest, name: &str) -> Option<&'a str> {
    request
        .headers()
        .get(name)
        .and_then(|value| value.to_str().ok())
}

/// The bytes of a rendered response, and the response to send them in.
fn split(response: HttpResponse) -> (HttpResponse<()>, Option<web::Bytes>) {
    let (head, body) = response.into_parts();
    match BoxBody::try_into_bytes(body) {
        Ok(bytes) => (head, Some(bytes)),
        Err(_) => (head, None),
    }
}

/// A tagged row's answer: a 200 gets its `ETag`, and becomes a 304 with
/// no body when `If-None-Match` names it.
pub(crate) fn tagged(request: &HttpRequest, route: &Route, response: HttpResponse) -> HttpResponse {
    if route.conditional != Conditional::Tagged || response.status() != StatusCode::OK {
        return response;
    }
    let (mut head, bytes) = split(response);
    let Some(bytes) = bytes else {
        return head.set_body(BoxBody::new(()));
    };
    let tag = tag_of(&bytes);
    let fresh = header(request, IF_NONE_MATCH).is_some_and(|list| list_names(list, &tag, true));
    if let Ok(value) = header::HeaderValue::from_str(&tag) {
        head.headers_mut().insert(header::ETAG, value);
    }
    if fresh {
        *head.status_mut() = StatusCode::NOT_MODIFIED;
        head.headers_mut().remove(header::CONTENT_TYPE);
        return head.set_body(BoxBody::new(()));
    }
    head.set_body(BoxBody::new(bytes))
}

/// For a write with `If-Match`: compares it with the current tag of the
/// path's GET. `Ok(generation)` to check again on the writer thread;
/// `Err(response)` to answer now (412, or the GET's own error, such as a
/// 404 for an item that does not exist).
pub(crate) async fn check_if_match(
    request: &HttpRequest,
    route: &Route,
    pattern: &str,
    table: &Table,
    state: &web::Data<AppState>,
    version: ApiVersion,
) -> Result<u64, HttpResponse> {
    let Some(list) = header(request, IF_MATCH) else {
        return Ok(0);
    };
    let list = list.to_owned();
    let Some(reader) = table
        .routes
        .iter()
        .find(|other| other.conditional == Conditional::Tagged && other.paths.contains(&pattern))
    else {
        return Ok(0);
    };
    let refuse = |error: ApiError| render_error(&error, Some(route), version);
    let name = request
        .match_info()
        .get("net_name")
        .and_then(|name| name.parse::<ConfigName>().ok());
    // The generation before the representation: a change committed after
    // this read is seen by the writer thread's check.
    let generation = match name {
        Some(name) => {
            let store_state = state.clone();
            match web::block(move || store_state.store().net(&name).map(|net| net.generation()))
                .await
            {
                Ok(Ok(generation)) => generation,
                Ok(Err(error)) => return Err(refuse(error.into())),
                Err(error) => return Err(refuse(ApiError::internal(error))),
            }
        }
        None => 0,
    };
    let reading = Ctx {
        request: request.clone(),
        body: web::Bytes::new(),
        stream: None,
        version,
        state: state.clone(),
        precondition: std::sync::atomic::AtomicU64::new(0),
    };
    let reply = reader.handler.call(reading).await.map_err(refuse)?;
    let (_, bytes) = split(render_reply(reply, reader, version));
    let current = tag_of(&bytes.unwrap_or_default());
    if list_names(&list, &current, false) {
        Ok(generation)
    } else {
        Err(refuse(ApiError::new(
            ErrorCode::PreconditionFailed,
            format!(
                "{} changed since it was read (If-Match {list}; it is {current} now): nothing was changed; read it again",
                request.path()
            ),
        )))
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
