//! Single sign-on (decisions §17, `auth.oidc`): the front end asks whether
//! a provider is set (`GET /session/oidc`, 200 either way: a question, not
//! an error), begins (`POST /session/oidc`:
//! the provider's URL, and a cookie that binds the sign-in to this
//! browser), sends the browser there, and hands back what the provider
//! returned it with (`POST /session/oidc/callback`): a session, as a
//! sign-in with a password gives.

use netcfg_model::{body::OidcCallbackBody, people::OidcInfo};

use super::people::{address, over_tls};
use crate::{
    access::{session_set_cookie, sign_on_cookie, sign_on_set_cookie},
    context::Ctx,
    error_code::ErrorCode,
    path::NoPath,
    payload::keys,
    reply::{ApiError, Reply},
};

/// How long the binding cookie lives: as long as a begun sign-in.
const SIGN_ON_COOKIE_S: i64 = 600;

fn issuer(context: &Ctx) -> Result<String, ApiError> {
    context.service().oidc_issuer().ok_or_else(|| {
        ApiError::new(
            ErrorCode::SignOnNotConfigured,
            "single sign-on is not set up on this server (auth.oidc)",
        )
    })
}

pub(crate) async fn get(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let issuer = context.service().oidc_issuer();
    let message = match &issuer {
        Some(issuer) => format!("Single sign-on through {issuer}"),
        None => "Single sign-on is not set up".to_owned(),
    };
    let info = OidcInfo {
        enabled: issuer.is_some(),
        issuer,
        url: None,
    };
    Reply::ok(message).with::<keys::Oidc>(&info)
}

pub(crate) async fn begin(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let issuer = issuer(&context)?;
    // The provider sends the browser back to the front end's page, at the
    // address the browser used (unless the settings name another).
    let redirect_url = {
        let connection = context.request().connection_info();
        format!("{}://{}/", connection.scheme(), connection.host())
    };
    let start = context.service().oidc_begin(&redirect_url).await?;
    let message = format!("Sign in at {issuer}");
    let info = OidcInfo {
        enabled: true,
        issuer: Some(issuer),
        url: Some(start.url),
    };
    let cookie = sign_on_set_cookie(&start.binding, over_tls(&context), SIGN_ON_COOKIE_S);
    Reply::ok(message)
        .with::<keys::Oidc>(&info)
        .map(|reply| reply.set_cookie(cookie))
}

pub(crate) async fn finish(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let body: OidcCallbackBody = context.body()?;
    let binding = sign_on_cookie(context.request().headers()).map(str::to_owned);
    let (identity, id) = context
        .service()
        .oidc_finish(
            body.code,
            &body.state,
            binding.as_deref(),
            address(&context),
        )
        .await?;
    let secure = over_tls(&context);
    let max_age_s = context.service().session_limits().max_ms / 1000;
    let info = identity.info();
    Reply::ok(format!("Signed in as {} through the provider", info.user))
        .with::<keys::Session>(&info)
        .map(|reply| {
            reply
                .set_cookie(session_set_cookie(id.expose(), secure, max_age_s))
                .set_cookie(sign_on_set_cookie("", secure, 0))
        })
}
