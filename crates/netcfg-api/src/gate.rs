//! The gate every request passes first: [`VersionGate`] reads the API
//! version the request selects (400 for an unknown one) and, when access
//! control is on, judges its token (401, 403); it then sets `Api-Version`
//! on whatever answers. Refusals get the envelope of the version selected.

use std::{
    future::{Future, Ready, ready},
    pin::Pin,
    rc::Rc,
};

use actix_web::{
    Error, HttpMessage,
    body::{EitherBody, MessageBody},
    dev::{Service, ServiceRequest, ServiceResponse, Transform},
    http::{
        StatusCode,
        header::{self, HeaderName, HeaderValue},
    },
};

use netcfg_service::Service as Operations;

use crate::{
    access::session_cookie,
    auth::{Auth, KeyReader, METRICS, Requester, Verdict},
    envelope::error_response,
    error_code::ErrorCode,
    reply::ApiError,
    version::{ApiVersion, VERSION_HEADER},
};

/// A request the gate refuses: the error, the version whose envelope
/// answers, and for a client locked out, the seconds until it may retry.
#[derive(Debug)]
struct Refusal {
    error: ApiError,
    version: ApiVersion,
    retry_after: Option<u64>,
}

/// The version-and-access middleware (see the module).
#[derive(Debug, Clone)]
pub struct VersionGate {
    default_version: ApiVersion,
    auth: Rc<Auth>,
    service: Operations,
}

impl VersionGate {
    /// A gate that answers with `default_version` when a request names
    /// none,
    /// and identifies it with `auth`'s tokens and `service`'s people.
    pub fn new(default_version: ApiVersion, auth: Auth, service: Operations) -> Self {
        Self {
            default_version,
            auth: Rc::new(auth),
            service,
        }
    }

    /// The version the request selects and who it is (when access
    /// control is on), or why it is refused.
    fn judge(&self, request: &ServiceRequest) -> Result<(ApiVersion, Requester), Refusal> {
        let version = select_version(request, self.default_version).map_err(|error| Refusal {
            error,
            version: self.default_version,
            retry_after: None,
        })?;
        let authorization = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok());
        let address = request.peer_addr().map(|address| address.ip());
        let service = &self.service;
        let keys = |secret: &str| service.identify_key(secret);
        let users = service.has_users();
        let verdict = self.auth.judge(
            request.method().as_str(),
            request.path(),
            authorization,
            address,
            users.then_some(&keys as KeyReader<'_>),
        );
        let refuse = |error: ApiError, retry_after: Option<u64>| Refusal {
            error,
            version,
            retry_after,
        };
        match verdict {
            Verdict::Open => Ok((
                version,
                Requester {
                    on: self.auth.is_on() || users,
                    ..Requester::default()
                },
            )),
            Verdict::Identified(identity) => Ok((
                version,
                Requester {
                    on: true,
                    identity: Some(identity),
                    session_ended: false,
                },
            )),
            Verdict::Anonymous => {
                let cookie = session_cookie(request.headers());
                let identity = cookie
                    .and_then(|id| service.identify_session(id))
                    .map(std::sync::Arc::new);
                if identity.is_none() && request.path() == METRICS {
                    return Err(refuse(
                        ApiError::new(ErrorCode::Unauthorized, crate::auth::SIGN_IN),
                        None,
                    ));
                }
                Ok((
                    version,
                    Requester {
                        on: true,
                        session_ended: cookie.is_some() && identity.is_none(),
                        identity,
                    },
                ))
            }
            Verdict::Unauthenticated => Err(refuse(
                ApiError::new(
                    ErrorCode::Unauthorized,
                    "the bearer credential is no known token, and no live API key (revoked, expired, or of a disabled user)",
                ),
                None,
            )),
            Verdict::LockedOut(wait) => {
                let seconds = wait.as_secs() + 1;
                Err(refuse(
                    ApiError::new(
                        ErrorCode::TooManyTokenFailures,
                        format!(
                            "too many unknown tokens or keys from this address; try again in {seconds} s"
                        ),
                    ),
                    Some(seconds),
                ))
            }
        }
    }
}

impl<S, B> Transform<S, ServiceRequest> for VersionGate
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<EitherBody<B>>;
    type Error = Error;
    type Transform = VersionGateService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(VersionGateService {
            gate: self.clone(),
            service: Rc::new(service),
        }))
    }
}

/// The gate around the application's service.
#[derive(Debug)]
pub struct VersionGateService<S> {
    gate: VersionGate,
    service: Rc<S>,
}

/// `Api-Version`, as a header name that needs no check at run time.
fn version_header() -> HeaderName {
    HeaderName::from_static("api-version")
}

impl<S, B> Service<ServiceRequest> for VersionGateService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<EitherBody<B>>;
    type Error = Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>>>>;

    actix_web::dev::forward_ready!(service);

    fn call(&self, request: ServiceRequest) -> Self::Future {
        match self.gate.judge(&request) {
            Ok((version, requester)) => {
                request.extensions_mut().insert(version);
                request.extensions_mut().insert(requester);
                let call = self.service.call(request);
                Box::pin(async move {
                    let mut response = call.await?;
                    response
                        .headers_mut()
                        .insert(version_header(), HeaderValue::from_static(version.full()));
                    Ok(response.map_into_left_body())
                })
            }
            Err(Refusal {
                error,
                version,
                retry_after,
            }) => {
                let mut response =
                    error_response(&error, netcfg_model::Level::Error, version, None);
                let headers = response.headers_mut();
                headers.insert(version_header(), HeaderValue::from_static(version.full()));
                if error.status == StatusCode::UNAUTHORIZED {
                    headers.insert(
                        header::WWW_AUTHENTICATE,
                        HeaderValue::from_static(crate::access::CHALLENGE),
                    );
                }
                if let Some(seconds) = retry_after {
                    headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
                }
                let answer = request.into_response(response).map_into_right_body();
                Box::pin(async move { Ok(answer) })
            }
        }
    }
}

/// Reads the version a request selects: its `Api-Version` header, or the
/// server's default.
fn select_version(
    request: &actix_web::dev::ServiceRequest,
    default: ApiVersion,
) -> Result<ApiVersion, ApiError> {
    match request.headers().get(VERSION_HEADER) {
        None => Ok(default),
        Some(value) => value
            .to_str()
            .map_err(|_| {
                ApiError::problem(
                    ErrorCode::UnsupportedApiVersion,
                    VERSION_HEADER,
                    "the header is not text",
                )
            })?
            .parse()
            .map_err(|error: crate::version::UnknownVersion| {
                ApiError::problem(
                    ErrorCode::UnsupportedApiVersion,
                    VERSION_HEADER,
                    error.to_string(),
                )
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::VERSION_HEADER;

    #[test]
    fn the_header_name_is_the_versions_header() {
        assert!(
            version_header()
                .as_str()
                .eq_ignore_ascii_case(VERSION_HEADER)
        );
    }
}
