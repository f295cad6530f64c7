//! People (decisions §17): sign-in and sign-out, users, their API keys and
//! the audit trail. Who may do what is the service's to say (an admin
//! anything; a user itself); the row's least role is checked before.

use std::time::Instant;

use actix_web::http::StatusCode;
use netcfg_model::body::{ApiKeyPostBody, SessionPostBody, UserPatchBody, UserPostBody};

use super::count;
use crate::{
    access::{caller_of, session_cookie, session_removed_cookie, session_set_cookie},
    auth::requester,
    context::Ctx,
    error_code::ErrorCode,
    lockout::Client,
    path::{ApiKeyPath, NoPath, UserPath},
    payload::keys,
    reply::{ApiError, Reply},
};

/// The most audit entries a page holds.
const AUDIT_PAGE_MAX: u32 = 1_000;
/// A page's entries when `limit` is not given.
const AUDIT_PAGE_DEFAULT: u32 = 100;

pub(super) fn address(context: &Ctx) -> Option<String> {
    context
        .request()
        .peer_addr()
        .map(|address| address.ip().to_string())
}

/// Whether the request came over TLS (the cookie is then `Secure`).
pub(super) fn over_tls(context: &Ctx) -> bool {
    context.request().connection_info().scheme() == "https"
}

pub(crate) async fn sign_in(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let body: SessionPostBody = context.body()?;
    let lockout = context.state().auth().lockout();
    let ip = context.request().peer_addr().map(|address| address.ip());
    let now = Instant::now();
    let clients = [Client::at(ip), Client::Account(body.name.to_lowercase())];
    if let Some(wait) = clients
        .iter()
        .filter_map(|client| lockout.refused_client(client, now))
        .max()
    {
        let seconds = wait.as_secs() + 1;
        return Err(ApiError::new(
            ErrorCode::TooManySignInFailures,
            format!("too many failed sign-ins from this address or for this user; try again in {seconds} s"),
        )
        .retry_after(seconds));
    }
    let signed_in = context
        .service()
        .sign_in(&body.name, body.password, address(&context))
        .await;
    let (identity, id) = match signed_in {
        Ok(signed_in) => signed_in,
        Err(error) => {
            for client in clients {
                lockout.failed_client(client, now);
            }
            return Err(error.into());
        }
    };
    let max_age_s = context.service().session_limits().max_ms / 1000;
    let info = identity.info();
    Reply::ok(format!("Signed in as {}", info.user))
        .with::<keys::Session>(&info)
        .map(|reply| {
            reply.set_cookie(session_set_cookie(
                id.expose(),
                over_tls(&context),
                max_age_s,
            ))
        })
}

pub(crate) async fn get(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let requester = requester(context.request());
    let identity = requester.identity.ok_or_else(|| {
        ApiError::new(
            ErrorCode::Unauthorized,
            if requester.session_ended {
                "the session ended: sign in again"
            } else {
                "nobody is signed in, and the request sends no key or token"
            },
        )
    })?;
    let info = identity.info();
    Reply::ok(format!("Signed in as {} ({})", info.user, info.role)).with::<keys::Session>(&info)
}

pub(crate) async fn sign_out(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    if let Some(id) = session_cookie(context.request().headers()) {
        context.service().sign_out(id, address(&context));
    }
    Ok(Reply::new(StatusCode::NO_CONTENT, "Signed out")
        .set_cookie(session_removed_cookie(over_tls(&context))))
}

pub(crate) async fn list_users(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let requester = requester(context.request());
    let caller = caller_of(context.request(), &requester)?;
    let users = context.service().list_users(caller).await?;
    Reply::ok(count(users.len(), "user")).with::<keys::Users>(&users)
}

pub(crate) async fn create_user(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let body: UserPostBody = context.body()?;
    let requester = requester(context.request());
    let caller = caller_of(context.request(), &requester)?;
    let user = context.service().create_user(caller, body).await?;
    Reply::created(format!("User {} created ({})", user.name, user.role)).with::<keys::User>(&user)
}

pub(crate) async fn get_user(context: Ctx, path: UserPath) -> Result<Reply, ApiError> {
    let requester = requester(context.request());
    let caller = caller_of(context.request(), &requester)?;
    let user = context.service().get_user(caller, &path.user_name).await?;
    Reply::ok(format!("User {}", user.name)).with::<keys::User>(&user)
}

pub(crate) async fn update_user(context: Ctx, path: UserPath) -> Result<Reply, ApiError> {
    let body: UserPatchBody = context.body()?;
    let requester = requester(context.request());
    let caller = caller_of(context.request(), &requester)?;
    let user = context
        .service()
        .change_user(caller, &path.user_name, body)
        .await?;
    Reply::ok(format!("User {} updated", user.name)).with::<keys::User>(&user)
}

pub(crate) async fn delete_user(context: Ctx, path: UserPath) -> Result<Reply, ApiError> {
    let requester = requester(context.request());
    let caller = caller_of(context.request(), &requester)?;
    context
        .service()
        .delete_user(caller, &path.user_name)
        .await?;
    Ok(Reply::new(
        StatusCode::NO_CONTENT,
        format!("User {} deleted", path.user_name),
    ))
}

pub(crate) async fn list_keys(context: Ctx, path: UserPath) -> Result<Reply, ApiError> {
    let requester = requester(context.request());
    let caller = caller_of(context.request(), &requester)?;
    let keys = context.service().list_keys(caller, &path.user_name).await?;
    Reply::ok(count(keys.len(), "API key")).with::<keys::ApiKeys>(&keys)
}

pub(crate) async fn create_key(context: Ctx, path: UserPath) -> Result<Reply, ApiError> {
    let body: ApiKeyPostBody = context.body()?;
    let requester = requester(context.request());
    let caller = caller_of(context.request(), &requester)?;
    let key = context
        .service()
        .create_key(caller, &path.user_name, body)
        .await?;
    Reply::created(format!(
        "API key {} of {} created: its secret is shown this once",
        key.record.name, path.user_name
    ))
    .with::<keys::NewApiKey>(&key)
}

pub(crate) async fn delete_key(context: Ctx, path: ApiKeyPath) -> Result<Reply, ApiError> {
    let requester = requester(context.request());
    let caller = caller_of(context.request(), &requester)?;
    context
        .service()
        .delete_key(caller, &path.user_name, &path.key_name)
        .await?;
    Ok(Reply::new(
        StatusCode::NO_CONTENT,
        format!("API key {} of {} revoked", path.key_name, path.user_name),
    ))
}

pub(crate) async fn audit(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let before_id = match context.query("before_id") {
        None => None,
        Some(text) => Some(text.parse::<i64>().map_err(|_| {
            ApiError::problem(
                ErrorCode::InvalidParameter,
                "before_id",
                "an entry's id: a whole number",
            )
        })?),
    };
    let limit = match context.query("limit") {
        None => AUDIT_PAGE_DEFAULT,
        Some(text) => text
            .parse::<u32>()
            .ok()
            .filter(|limit| (1..=AUDIT_PAGE_MAX).contains(limit))
            .ok_or_else(|| {
                ApiError::problem(
                    ErrorCode::InvalidParameter,
                    "limit",
                    "how many entries: 1 to 1000",
                )
            })?,
    };
    let requester = requester(context.request());
    let caller = caller_of(context.request(), &requester)?;
    let page = context
        .service()
        .audit_trail(caller, before_id, limit)
        .await?;
    let message = match page.entries.len() {
        1 => "1 audit entry".to_owned(),
        entries => format!("{entries} audit entries"),
    };
    Reply::ok(message).with::<keys::Audit>(&page)
}
