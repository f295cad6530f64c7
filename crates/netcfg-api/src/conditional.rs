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

use std::sync::{Arc, Mutex};

use actix_web::{
    HttpRequest, HttpResponse,
    body::BoxBody,
    http::{StatusCode, header},
    web,
};
use netcfg_model::ConfigName;
use netcfg_service::Write;

use crate::{
    context::{Ctx, IfMatch, Pending},
    error_code::ErrorCode,
    etag::{IF_MATCH, Sent, SentMemo, finish, header, list_names, split, tag_of},
    render::render_reply,
    reply::ApiError,
    table::{Conditional, Route, Table},
    version::ApiVersion,
};

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
                    reader: reader.clone(),
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
pub(crate) async fn check_if_match(context: &Ctx) -> Result<Option<u64>, ApiError> {
    let Some(IfMatch { list, reader }) = lock(&context.if_match).take() else {
        return Ok(None);
    };
    let state = context.state_handle();
    let version = context.version();
    // The generation before the representation: a change committed after
    // this read is seen by the writer thread's check.
    let name = context
        .request()
        .match_info()
        .get("net_name")
        .and_then(|name| name.parse::<ConfigName>().ok());
    let generation = match name {
        Some(name) => state.service().generation(&name).await?,
        None => 0,
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
            let (_, bytes) = split(render_reply(reply, &reader, version));
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

impl Ctx {
    /// A change as this request makes it: recorded under [`Ctx::record`],
    /// with the configuration's generation to hold when the request sent
    /// `If-Match` (compared here: a 412 when the tag is stale). Call it
    /// after reading the body, so that a bad body is a 400 whatever the tag.
    pub(crate) async fn write(&self) -> Result<Write, ApiError> {
        let expected = check_if_match(self).await?;
        Ok(Write {
            record: self.record(),
            expected,
        })
    }

    /// A lifecycle step as this request makes it (rename, delete, copy,
    /// start, stop): `If-Match` is compared just before it runs, and what
    /// it journals is recorded under [`Ctx::record`].
    pub(crate) async fn lifecycle_write(&self) -> Result<Write, ApiError> {
        check_if_match(self).await?;
        Ok(Write::new(self.record()))
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
