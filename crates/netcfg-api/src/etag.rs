//! Entity tags (decisions.md §10): a strong tag is a 128-bit xxh3 digest,
//! of the bytes sent or of what they are made from
//! (`conditional::stamped_tag`), so equal tags for one URL mean equal
//! bytes; how
//! `If-Match` and `If-None-Match` compare them; and a tagged answer kept to
//! be sent again. A leaf: it knows responses and versions, not routes.

use std::sync::OnceLock;

use actix_web::{
    HttpRequest, HttpResponse,
    body::{BoxBody, MessageBody},
    http::{StatusCode, header},
    web,
};

use crate::version::ApiVersion;

/// The header a client sends back with a tag it read.
pub(crate) const IF_NONE_MATCH: &str = "If-None-Match";
/// The header a write sends with the tag of what it changes.
pub(crate) const IF_MATCH: &str = "If-Match";

/// The strong entity tag of `bytes`.
pub(crate) fn tag_of(bytes: &[u8]) -> String {
    format!("\"{:032x}\"", xxhash_rust::xxh3::xxh3_128(bytes))
}

/// True when the header's list names `tag`, or is `*`. `If-Match` compares
/// strongly (a weak `W/` tag never matches); `If-None-Match` weakly.
pub(crate) fn list_names(list: &str, tag: &str, weak: bool) -> bool {
    list.split(',').map(str::trim).any(|candidate| {
        candidate == "*" || candidate == tag || (weak && candidate.strip_prefix("W/") == Some(tag))
    })
}

/// A conditional header's value; an empty one names no tag and counts as
/// absent.
pub(crate) fn header<'a>(request: &'a HttpRequest, name: &str) -> Option<&'a str> {
    request
        .headers()
        .get(name)
        .and_then(|value| value.to_str().ok())
        .filter(|value| !value.trim().is_empty())
}

/// The bytes of a rendered response, and the response to send them in.
pub(crate) fn split(response: HttpResponse) -> (HttpResponse<()>, Option<web::Bytes>) {
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
pub(crate) struct Sent {
    pub(crate) content_type: Option<header::HeaderValue>,
    pub(crate) body: web::Bytes,
    pub(crate) tag: String,
}

impl SentMemo {
    pub(crate) fn slot(&self, version: ApiVersion) -> &OnceLock<Sent> {
        &self.by_version[match version {
            ApiVersion::V5_0 => 0,
            ApiVersion::V5_1 => 1,
        }]
    }

    /// The answer kept for `version`, as `conditional::tagged` would send
    /// it: tagged `tag` when given (a stamped row's tag, read for this
    /// request), else with the digest kept.
    pub(crate) fn answer(
        &self,
        request: &HttpRequest,
        version: ApiVersion,
        tag: Option<&str>,
    ) -> Option<HttpResponse> {
        let sent = self.slot(version).get()?;
        let mut head = HttpResponse::Ok().finish().into_parts().0;
        if let Some(content_type) = &sent.content_type {
            head.headers_mut()
                .insert(header::CONTENT_TYPE, content_type.clone());
        }
        Some(finish(
            request,
            head,
            sent.body.clone(),
            tag.unwrap_or(&sent.tag),
        ))
    }
}

/// Sends `bytes` in `head` under `tag`: a 304 with no body when the
/// request's `If-None-Match` names it.
pub(crate) fn finish(
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
