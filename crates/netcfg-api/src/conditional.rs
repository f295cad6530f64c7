//! Optimistic concurrency (decisions.md §10). A GET of a configuration's
//! item or list ([`Conditional::Tagged`]) carries a strong `ETag`;
//! `If-None-Match` with the current tag answers 304 with no body.
//!
//! The tag of a path that a write can target with `If-Match` names a
//! stamp ([`Tagging::Stamp`]): the configuration's stamp of the kind of
//! data the representation shows (its content, or its notifications),
//! read before the representation, with the API version and, for the
//! configuration itself, its run state. So a write's [`Precondition`] is
//! resolved before its handler runs, with no reading and no rendering: a
//! 412 that changes nothing when the tag is not current (after the body
//! was read as the row's body type: a bad body is a 400 whatever the
//! tag), else the stamp the change must still
//! find on the configuration's writer thread, inside its transaction
//! (`Net::require_stamp`), so that two clients that send the same tag
//! cannot both succeed. A commit of the other kind (the engine's
//! notifications while the network runs) leaves a content tag current.
//!
//! A stamp covers all of its kind: a change to one device makes every
//! device's tag stale, and a write with one of them is a 412 until the
//! client reads again. Paths nobody writes conditionally (the engine's
//! views, the history, the logs) are tagged by the digest of the bytes
//! sent ([`Tagging::Digest`]).

use actix_web::{
    HttpRequest, HttpResponse,
    body::BoxBody,
    http::{StatusCode, header},
};
use netcfg_model::{ConfigName, RunState};
use netcfg_service::{Expected, Service, StampKind, Write};

use crate::{
    context::{Ctx, Precondition},
    error_code::ErrorCode,
    etag::{IF_MATCH, Sent, SentMemo, finish, header, list_names, split, tag_of},
    reply::ApiError,
    table::{Conditional, Route, Stamp, Tagging},
    version::ApiVersion,
};

/// The configuration a request's path names, if it names one.
fn net_name(request: &HttpRequest) -> Option<ConfigName> {
    request
        .match_info()
        .get("net_name")
        .and_then(|name| name.parse().ok())
}

/// A random value of this process: stamps start again after a restart, and
/// a tag sent before it must not name a state after it.
fn process_nonce() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static NONCE: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *NONCE.get_or_init(|| {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(netcfg_model::time::clock::wall_clock_us());
        hasher.write_u32(std::process::id());
        hasher.finish()
    })
}

/// The tag of a stamped representation: equal tags for one URL mean equal
/// bytes, because the bytes are a function of the stamped data, the
/// version and the run state.
fn stamped_tag(kind: StampKind, value: u64, run: Option<RunState>, version: ApiVersion) -> String {
    let mut parts = Vec::with_capacity(32);
    parts.extend_from_slice(&process_nonce().to_le_bytes());
    parts.push(match kind {
        StampKind::Content => b'c',
        StampKind::Notifications => b'n',
        StampKind::Schedules => b's',
    });
    parts.extend_from_slice(&value.to_le_bytes());
    parts.push(match run {
        None => b'-',
        Some(RunState::Running) => b'r',
        Some(RunState::Stopped) => b's',
    });
    parts.extend_from_slice(version.short().as_bytes());
    tag_of(&parts)
}

/// The current stamp of `stamp`'s kind and the tag it gives: with no I/O
/// when the configuration is awake.
async fn current(
    service: &Service,
    name: &ConfigName,
    stamp: Stamp,
    version: ApiVersion,
) -> Result<(u64, String), ApiError> {
    let value = match service.stamp_if_awake(name, stamp.kind) {
        Some(value) => value,
        None => service.stamp(name, stamp.kind).await?,
    };
    let run = stamp.run_state.then(|| service.run_state(name));
    Ok((value, stamped_tag(stamp.kind, value, run, version)))
}

/// A stamped GET's tag, read before its handler reads what it shows: a
/// representation is then at least as new as its tag says. `None` for a
/// row tagged otherwise, or when the configuration cannot be read (the
/// handler answers why).
pub(crate) async fn tag_before_reading(
    request: &HttpRequest,
    route: &Route,
    service: &Service,
    version: ApiVersion,
) -> Option<String> {
    let Conditional::Tagged(Tagging::Stamp(stamp)) = route.conditional else {
        return None;
    };
    let name = net_name(request)?;
    current(service, &name, stamp, version)
        .await
        .ok()
        .map(|(_, tag)| tag)
}

/// A tagged row's answer: a 200 gets its `ETag` (`stamped`, read before
/// the handler, or the digest of its bytes), and becomes a 304 with no
/// body when `If-None-Match` names it. The 200 is kept in `memo`, when the
/// reply had one, for `version`.
pub(crate) fn tagged(
    request: &HttpRequest,
    route: &Route,
    response: HttpResponse,
    stamped: Option<String>,
    memo: Option<(&SentMemo, ApiVersion)>,
) -> HttpResponse {
    if !matches!(route.conditional, Conditional::Tagged(_)) || response.status() != StatusCode::OK {
        return response;
    }
    let (head, bytes) = split(response);
    let Some(bytes) = bytes else {
        return head.set_body(BoxBody::new(()));
    };
    let tag = stamped.unwrap_or_else(|| tag_of(&bytes));
    if let Some((memo, version)) = memo {
        let _ = memo.slot(version).set(Sent {
            content_type: head.headers().get(header::CONTENT_TYPE).cloned(),
            body: bytes.clone(),
            tag: tag.clone(),
        });
    }
    finish(request, head, bytes, &tag)
}

/// True when the request is a write with `If-Match` to compare.
pub(crate) fn compares(request: &HttpRequest, route: &Route) -> bool {
    matches!(route.conditional, Conditional::IfMatch(_)) && header(request, IF_MATCH).is_some()
}

/// Compares a write's `If-Match` with the current tag of the path's GET,
/// before its handler runs: a 412 (envelope, nothing changed) when it
/// names another, the configuration's 404 when it does not exist, else the
/// stamp the change must still find. `*` holds for any current
/// representation. No precondition for a row that takes no part, or a
/// request with no `If-Match`.
pub(crate) async fn precondition(
    request: &HttpRequest,
    route: &Route,
    service: &Service,
    version: ApiVersion,
) -> Result<Precondition, ApiError> {
    let Conditional::IfMatch(stamp) = route.conditional else {
        return Ok(Precondition::NONE);
    };
    let (Some(list), Some(name)) = (header(request, IF_MATCH), net_name(request)) else {
        return Ok(Precondition::NONE);
    };
    let (value, tag) = current(service, &name, stamp, version).await?;
    if !list_names(list, &tag, false) {
        return Err(ApiError::new(
            ErrorCode::PreconditionFailed,
            format!(
                "{} changed since it was read (If-Match {list}; it is {tag} now): nothing was changed; read it again",
                request.path()
            ),
        ));
    }
    Ok(Precondition {
        expected: Some(Expected {
            kind: stamp.kind,
            stamp: value,
        }),
    })
}

impl Ctx {
    /// A change as this request makes it: recorded under [`Ctx::record`],
    /// refused on the writer thread when the request's `If-Match` (already
    /// compared) no longer holds there.
    pub(crate) fn write(&self) -> Write {
        Write {
            record: self.record(),
            expected: self.precondition.expected,
        }
    }

    /// A lifecycle step as this request makes it (rename, delete, copy,
    /// start, stop): its `If-Match` was compared before the handler ran,
    /// and what it journals is recorded under [`Ctx::record`].
    pub(crate) fn lifecycle_write(&self) -> Write {
        Write::new(self.record())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stamped tag changes with each of what it stands for.
    #[test]
    fn a_stamped_tag_names_kind_stamp_run_state_and_version() {
        let base = stamped_tag(StampKind::Content, 7, None, ApiVersion::V5_1);
        assert_eq!(
            base,
            stamped_tag(StampKind::Content, 7, None, ApiVersion::V5_1)
        );
        let others = [
            stamped_tag(StampKind::Notifications, 7, None, ApiVersion::V5_1),
            stamped_tag(StampKind::Content, 8, None, ApiVersion::V5_1),
            stamped_tag(
                StampKind::Content,
                7,
                Some(RunState::Running),
                ApiVersion::V5_1,
            ),
            stamped_tag(
                StampKind::Content,
                7,
                Some(RunState::Stopped),
                ApiVersion::V5_1,
            ),
            stamped_tag(StampKind::Content, 7, None, ApiVersion::V5_0),
        ];
        for (index, other) in others.iter().enumerate() {
            assert_ne!(&base, other, "{index}");
            assert!(other.starts_with('"') && other.len() == 34);
        }
    }
}
