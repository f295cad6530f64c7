//! Access control (decisions §17), after the gate identified the request
//! (crate::gate, crate::auth): the row's least role, checked by the
//! dispatcher before the handler runs; the CSRF token of a change made
//! with the session cookie; and the configurations a user may see (one it
//! may not is answered as absent).

use actix_web::{
    HttpRequest, HttpResponse,
    http::{
        Method, StatusCode,
        header::{self, HeaderValue},
    },
};
use netcfg_model::{ConfigName, people::AuditEvent};
use netcfg_service::{Caller, Identity, Service};
use subtle::ConstantTimeEq;

use crate::{
    auth::{Requester, SIGN_IN, requester},
    error_code::ErrorCode,
    render::render_error,
    reply::ApiError,
    table::Route,
    version::ApiVersion,
};

/// The session cookie's name.
pub(crate) const SESSION_COOKIE: &str = "netcfg_session";
/// The cookie that binds a begun single sign-on to its browser.
pub(crate) const SIGN_ON_COOKIE: &str = "netcfg_sign_on";
/// The header a change made with the session cookie carries its CSRF token in.
pub(crate) const CSRF_HEADER: &str = "x-csrf-token";
/// `WWW-Authenticate` of a 401.
pub(crate) const CHALLENGE: &str = "Bearer realm=\"netcfg\"";

/// The session cookie's value, if the request sends one.
pub(crate) fn session_cookie(headers: &header::HeaderMap) -> Option<&str> {
    cookie(headers, SESSION_COOKIE)
}

/// The single sign-on's binding cookie, if the request sends one.
pub(crate) fn sign_on_cookie(headers: &header::HeaderMap) -> Option<&str> {
    cookie(headers, SIGN_ON_COOKIE)
}

fn cookie<'h>(headers: &'h header::HeaderMap, wanted: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == wanted)
        .map(|(_, value)| value.trim_matches('"'))
        .filter(|value| !value.is_empty())
}

/// The `Set-Cookie` of a new session (`Secure` when served over TLS).
pub(crate) fn session_set_cookie(id: &str, secure: bool, max_age_s: i64) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{SESSION_COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age_s}{secure}")
}

/// The `Set-Cookie` of a begun single sign-on's binding (`Lax`: it is only
/// read by the front end's own request after the provider sent it back).
pub(crate) fn sign_on_set_cookie(binding: &str, secure: bool, max_age_s: i64) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!(
        "{SIGN_ON_COOKIE}={binding}; HttpOnly; SameSite=Lax; Path=/; Max-Age={max_age_s}{secure}"
    )
}

/// The `Set-Cookie` that removes the session cookie.
pub(crate) fn session_removed_cookie(secure: bool) -> String {
    session_set_cookie("", secure, 0)
}

/// The service's view of who asks, and from where: anyone when access
/// control is off; 401 when it is on and the request shows no identity.
pub(crate) fn caller_of<'a>(
    request: &HttpRequest,
    requester: &'a Requester,
) -> Result<Caller<'a>, ApiError> {
    if requester.on && requester.identity.is_none() {
        return Err(unauthenticated(requester));
    }
    Ok(Caller {
        identity: requester.identity.as_deref(),
        address: request.peer_addr().map(|address| address.ip()),
    })
}

fn unauthenticated(requester: &Requester) -> ApiError {
    let message = if requester.session_ended {
        "the session ended (unused too long, too old, signed out, or its user changed): sign in again"
    } else {
        SIGN_IN
    };
    ApiError::new(ErrorCode::Unauthorized, message)
}

/// The answer refusing `request` before `route`'s handler runs, if any:
/// 401 without an identity, 403 with too little role or without the CSRF
/// token, 404 for a configuration the user may not see.
pub(crate) fn refusal(
    request: &HttpRequest,
    route: &Route,
    service: &Service,
    version: ApiVersion,
) -> Option<HttpResponse> {
    let requester = requester(request);
    if !requester.on {
        return None;
    }
    let least = route.least_role?;
    let identity = match &requester.identity {
        Some(identity) => identity,
        None => {
            return Some(refuse(
                request,
                service,
                None,
                unauthenticated(&requester),
                version,
            ));
        }
    };
    if identity.role < least {
        let error = ApiError::new(
            ErrorCode::Forbidden,
            format!(
                "{} {} needs the role {least}; {} has the role {}",
                request.method(),
                request.path(),
                identity.info().user,
                identity.role
            ),
        );
        return Some(refuse(request, service, Some(&**identity), error, version));
    }
    if let Some(expected) = &identity.csrf_token
        && !is_safe(request.method())
        && !csrf_matches(request, expected)
    {
        let error = ApiError::new(
            ErrorCode::Csrf,
            "a change made with the session cookie carries the header X-CSRF-Token with the session's token (GET /session gives it)",
        );
        return Some(refuse(request, service, Some(&**identity), error, version));
    }
    let hidden = net_of(request).filter(|net| !identity.sees(net))?;
    let error = ApiError::new(
        ErrorCode::ConfigurationNotFound,
        format!("configuration {hidden} does not exist"),
    );
    Some(render_error(&error, Some(route), version))
}

/// The configuration a request's path names.
pub(crate) fn net_of(request: &HttpRequest) -> Option<ConfigName> {
    request
        .match_info()
        .get("net_name")
        .and_then(|name| name.parse().ok())
}

fn is_safe(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

fn csrf_matches(request: &HttpRequest, expected: &str) -> bool {
    request
        .headers()
        .get(CSRF_HEADER)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|sent| bool::from(sent.as_bytes().ct_eq(expected.as_bytes())))
}

/// The refusal, audited: 401 and 403 are answered with the version's
/// envelope whatever the row declares (they are the gate's answers).
fn refuse(
    request: &HttpRequest,
    service: &Service,
    identity: Option<&Identity>,
    error: ApiError,
    version: ApiVersion,
) -> HttpResponse {
    service.audit(
        AuditEvent::Refused,
        identity.map(Identity::origin),
        request.peer_addr().map(|address| address.ip().to_string()),
        format!("{} {}", request.method(), request.path()),
        Some(error.status.as_u16()),
    );
    let mut response = render_error(&error, None, version);
    if error.status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static(CHALLENGE),
        );
    }
    response
}
