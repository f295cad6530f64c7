//! Single sign-on (decisions §17, `auth.oidc`): OpenID Connect's
//! authorization code flow with PKCE, through the `openidconnect` crate.
//!
//! [`Service::oidc_begin`] makes the provider's authorization URL and
//! keeps, under its `state`, the PKCE verifier, the nonce and the digest of
//! a binding the browser holds (a cookie): the code can only be redeemed by
//! the browser that began. [`Service::oidc_finish`] redeems the code, checks
//! the ID token (signature by the provider's published keys, issuer,
//! audience, expiry, nonce), reads the person's claims (the ID token's and
//! the user info's), and signs the person in as the user named by
//! `preferred_username`: created at the first sign-in, its role updated
//! from the role claim at each later one.
//!
//! The provider's discovery document and keys are read at the first
//! sign-in and kept for an hour (or until an ID token fails to verify,
//! when the keys may have rotated). Every call to the provider is blocking
//! and runs on a blocking thread.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, RwLock},
    time::{Duration, Instant},
};

use openidconnect::{
    AdditionalClaims, AuthenticationFlow, AuthorizationCode, ClientId, ClientSecret, CsrfToken,
    IssuerUrl, Nonce, OAuth2TokenResponse, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl,
    RequestTokenError, Scope,
    core::{CoreClient, CoreGenderClaim, CoreProviderMetadata, CoreResponseType},
};
use serde::{Deserialize, Serialize};

use netcfg_model::{
    UserName,
    people::{AccessRole, AuditEvent, OidcSettings, User, Via, user_name_of},
    sync::{lock, read, write},
    time::clock::wall_clock_ms_signed,
};
use netcfg_store::{ConflictKind, People as PeopleFile, StoreError, StoredUser, UserChange};

use super::{Identity, SessionId, secrets};
use crate::{Service, ServiceError};

/// How long a begun sign-in may take to come back.
const PENDING_FOR: Duration = Duration::from_secs(600);
/// The most sign-ins begun and not finished kept at once.
const MAX_PENDING: usize = 10_000;
/// How long the discovery document and keys are trusted.
const PROVIDER_FOR: Duration = Duration::from_secs(3600);
/// How long one call to the provider may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest answer read from the provider.
const MAX_ANSWER: u64 = 1 << 20;

/// Why a single sign-on failed.
#[derive(Debug, thiserror::Error)]
pub enum SingleSignOnError {
    /// `auth.oidc` is not set.
    #[error("single sign-on is not set up on this server (auth.oidc)")]
    NotConfigured,
    /// The provider could not be reached or answered wrongly.
    #[error("the OpenID provider: {0}")]
    Provider(String),
    /// The sign-in is refused; the text says why.
    #[error("{0}")]
    Refused(String),
}

/// A sign-in begun: what its return needs.
struct Pending {
    verifier: String,
    nonce: String,
    binding: [u8; 32],
    redirect_url: String,
    began: Instant,
}

/// The single sign-on's state (see the module).
#[derive(Default)]
pub(crate) struct SingleSignOn {
    settings: RwLock<Option<Arc<OidcSettings>>>,
    provider: Mutex<Option<(Arc<CoreProviderMetadata>, Instant)>>,
    pending: Mutex<HashMap<String, Pending>>,
}

impl std::fmt::Debug for SingleSignOn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SingleSignOn")
            .field(
                "settings",
                &read(&self.settings).as_ref().map(|s| &s.issuer),
            )
            .finish_non_exhaustive()
    }
}

/// A sign-in begun: where to send the browser, and the binding it keeps
/// (a cookie) until it comes back.
#[derive(Debug)]
pub struct OidcStart {
    /// The provider's authorization URL.
    pub url: String,
    /// The browser's proof that it began this sign-in.
    pub binding: String,
}

/// Every claim beyond the standard ones (the role claim among them).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
struct OtherClaims {
    #[serde(flatten)]
    claims: serde_json::Map<String, serde_json::Value>,
}

impl AdditionalClaims for OtherClaims {}

/// What the provider says of a person, once verified.
struct Person {
    name: UserName,
    display_name: String,
    role: Option<AccessRole>,
}

impl Service {
    fn sso(&self) -> &SingleSignOn {
        &self.inner.people.single_sign_on
    }

    /// Sets (or, with none, removes) single sign-on.
    pub fn set_oidc(&self, settings: Option<OidcSettings>) {
        *write(&self.sso().settings) = settings.map(Arc::new);
        *lock(&self.sso().provider) = None;
    }

    /// The provider's issuer, when single sign-on is set.
    pub fn oidc_issuer(&self) -> Option<String> {
        read(&self.sso().settings)
            .as_ref()
            .map(|settings| settings.issuer.clone())
    }

    fn oidc_settings(&self) -> Result<Arc<OidcSettings>, SingleSignOnError> {
        read(&self.sso().settings)
            .clone()
            .ok_or(SingleSignOnError::NotConfigured)
    }

    /// Begins a sign-in: the provider's authorization URL (with PKCE, a
    /// state and a nonce), the provider coming back to `redirect_url`
    /// unless the settings name one.
    pub async fn oidc_begin(&self, redirect_url: &str) -> Result<OidcStart, ServiceError> {
        let settings = self.oidc_settings()?;
        let redirect_url = settings
            .redirect_url
            .clone()
            .unwrap_or_else(|| redirect_url.to_owned());
        let service = self.clone();
        let metadata = self
            .on_provider(move || service.provider_metadata())
            .await??;
        let client = client(&settings, &metadata, &redirect_url)?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = client.authorize_url(
            AuthenticationFlow::<CoreResponseType>::AuthorizationCode,
            CsrfToken::new_random,
            Nonce::new_random,
        );
        for scope in &settings.scopes {
            request = request.add_scope(Scope::new(scope.clone()));
        }
        let (url, state, nonce) = request.set_pkce_challenge(challenge).url();
        let binding = secrets::random_hex();
        let now = Instant::now();
        let mut pending = lock(&self.sso().pending);
        pending.retain(|_, begun| now.duration_since(begun.began) < PENDING_FOR);
        if pending.len() >= MAX_PENDING {
            return Err(SingleSignOnError::Refused(
                "too many sign-ins are under way: try again in a few minutes".to_owned(),
            )
            .into());
        }
        pending.insert(
            state.secret().clone(),
            Pending {
                verifier: verifier.secret().clone(),
                nonce: nonce.secret().clone(),
                binding: secrets::digest(&binding),
                redirect_url,
                began: now,
            },
        );
        Ok(OidcStart {
            url: url.to_string(),
            binding,
        })
    }

    /// Finishes a sign-in with what the provider sent the browser back
    /// with: a new session, or why not (audited either way).
    pub async fn oidc_finish(
        &self,
        code: String,
        state: &str,
        binding: Option<&str>,
        address: Option<String>,
    ) -> Result<(Identity, SessionId), ServiceError> {
        let refuse = |reason: String| {
            self.audit(
                AuditEvent::SignInFailed,
                None,
                address.clone(),
                format!("oidc: {reason}"),
                None,
            );
            ServiceError::from(SingleSignOnError::Refused(reason))
        };
        let settings = self.oidc_settings()?;
        let pending = lock(&self.sso().pending)
            .remove(state)
            .filter(|begun| begun.began.elapsed() < PENDING_FOR)
            .ok_or_else(|| {
                refuse("this sign-in is unknown or older than 10 minutes: sign in again".to_owned())
            })?;
        if binding.map(secrets::digest) != Some(pending.binding) {
            return Err(refuse(
                "this sign-in was begun in another browser: sign in again".to_owned(),
            ));
        }
        let service = self.clone();
        let person = self
            .on_provider(move || service.redeem(&settings, code, &pending))
            .await?;
        let person = match person {
            Ok(person) => person,
            Err(SingleSignOnError::Refused(reason)) => return Err(refuse(reason)),
            Err(error) => return Err(error.into()),
        };
        let Some(role) = person.role else {
            return Err(refuse(format!(
                "the provider's claims give {} no role here: an admin maps one of its values in auth.oidc.roles",
                person.name
            )));
        };
        let now = wall_clock_ms_signed();
        let kept = self
            .on_people(move |file| keep_user(file, &person, role, now))
            .await?;
        let user = kept.map_err(refuse)?;
        self.end_stale_sessions();
        self.open_session(&user, Via::Oidc, address).await
    }

    /// The provider's discovery document and keys: kept, or read again.
    fn provider_metadata(&self) -> Result<Arc<CoreProviderMetadata>, SingleSignOnError> {
        let settings = self.oidc_settings()?;
        if let Some((metadata, read_at)) = lock(&self.sso().provider).as_ref()
            && read_at.elapsed() < PROVIDER_FOR
        {
            return Ok(metadata.clone());
        }
        let issuer = IssuerUrl::new(settings.issuer.clone()).map_err(|error| {
            SingleSignOnError::Provider(format!(
                "the issuer {:?} is not a URL: {error}",
                settings.issuer
            ))
        })?;
        let http = HttpClient::new(settings.ca_file.as_deref())?;
        let metadata = CoreProviderMetadata::discover(&issuer, &http).map_err(|error| {
            SingleSignOnError::Provider(format!(
                "could not read its discovery document at {}: {}",
                settings.issuer,
                chain(&error)
            ))
        })?;
        let metadata = Arc::new(metadata);
        *lock(&self.sso().provider) = Some((metadata.clone(), Instant::now()));
        Ok(metadata)
    }

    /// Redeems the code and reads who the person is (blocking).
    fn redeem(
        &self,
        settings: &OidcSettings,
        code: String,
        pending: &Pending,
    ) -> Result<Person, SingleSignOnError> {
        let metadata = self.provider_metadata()?;
        let client = client(settings, &metadata, &pending.redirect_url)?;
        let http = HttpClient::new(settings.ca_file.as_deref())?;
        let tokens = client
            .exchange_code(AuthorizationCode::new(code))
            .map_err(|error| SingleSignOnError::Provider(error.to_string()))?
            .set_pkce_verifier(PkceCodeVerifier::new(pending.verifier.clone()))
            .request(&http)
            .map_err(|error| match error {
                RequestTokenError::ServerResponse(answer) => SingleSignOnError::Refused(format!(
                    "the provider refused the code: {}",
                    answer
                        .error_description()
                        .cloned()
                        .unwrap_or_else(|| answer.error().to_string())
                )),
                other => {
                    SingleSignOnError::Provider(format!("redeeming the code: {}", chain(&other)))
                }
            })?;
        let id_token = openidconnect::TokenResponse::id_token(&tokens)
            .ok_or_else(|| SingleSignOnError::Provider("it sent no ID token".to_owned()))?;
        let verified = id_token
            .claims(
                &client.id_token_verifier(),
                &Nonce::new(pending.nonce.clone()),
            )
            .map_err(|error| {
                // The provider may have rotated its keys: read them again next time.
                *lock(&self.sso().provider) = None;
                SingleSignOnError::Refused(format!(
                    "the provider's ID token did not verify: {}",
                    chain(&error)
                ))
            })?;
        let mut claims = payload_claims(&id_token.to_string());
        let mut preferred = verified.preferred_username().map(|name| name.to_string());
        let mut display_name = verified
            .name()
            .and_then(|name| name.get(None))
            .map(|name| name.to_string());
        if metadata.userinfo_endpoint().is_some() {
            let info = client
                .user_info(
                    tokens.access_token().clone(),
                    Some(verified.subject().clone()),
                )
                .map_err(|error| SingleSignOnError::Provider(error.to_string()))?
                .request::<OtherClaims, CoreGenderClaim, _>(&http)
                .map_err(|error| {
                    SingleSignOnError::Provider(format!("reading the user info: {}", chain(&error)))
                })?;
            preferred =
                preferred.or_else(|| info.preferred_username().map(|name| name.to_string()));
            display_name = display_name.or_else(|| {
                info.name()
                    .and_then(|name| name.get(None))
                    .map(|name| name.to_string())
            });
            claims.extend(info.additional_claims().claims.clone());
        }
        let name = user_name_of(preferred.as_deref()).map_err(SingleSignOnError::Refused)?;
        Ok(Person {
            name,
            display_name: display_name.unwrap_or_default(),
            role: settings.role_of(&claims),
        })
    }

    /// Runs `work`, which calls the provider, on a blocking thread.
    async fn on_provider<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ServiceError> {
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|error| ServiceError::Worker(error.to_string()))
    }
}

/// The user a person signs in as (blocking): made at its first sign-in,
/// its role set from the claims at each later one; or why not (a user
/// with a password, a disabled one, the last admin demoted).
fn keep_user(
    file: &PeopleFile,
    person: &Person,
    role: AccessRole,
    now: i64,
) -> Result<Result<StoredUser, String>, StoreError> {
    let name = &person.name;
    let user = match file.user(name) {
        Ok(user) => user,
        Err(StoreError::NotFound { .. }) => {
            let user = User {
                name: name.clone(),
                display_name: person.display_name.clone(),
                role,
                nets: None,
                disabled: false,
                created_ms: now,
                last_sign_in_ms: None,
            };
            // Two first sign-ins at once: the second finds the name taken.
            return match file.create_user(&user, None) {
                Ok(user) => Ok(Ok(user)),
                Err(StoreError::Conflict { .. }) => Ok(Err(format!(
                    "{name} was being created by another sign-in: sign in again"
                ))),
                Err(error) => Err(error),
            };
        }
        Err(error) => return Err(error),
    };
    if user.password_hash.is_some() {
        return Ok(Err(format!(
            "{name} is a user with a password here: it signs in with its password, not through the provider"
        )));
    }
    if user.user.disabled {
        return Ok(Err(format!("{name} is disabled: ask an admin")));
    }
    if user.user.role == role {
        return Ok(Ok(user));
    }
    let change = UserChange {
        role: Some(role),
        ..UserChange::default()
    };
    match file.change_user(name, &change) {
        Ok(user) => Ok(Ok(user)),
        // The provider demotes the last enabled admin: refused (a 401 with
        // the reason), the user left as it is.
        Err(StoreError::Conflict {
            kind: ConflictKind::LastAdmin,
            ..
        }) => Ok(Err(format!(
            "the provider gives {name} the role {role}, but it is the last enabled admin here: make another admin first"
        ))),
        Err(error) => Err(error),
    }
}

/// The client of `settings` at the provider of `metadata`.
fn client(
    settings: &OidcSettings,
    metadata: &CoreProviderMetadata,
    redirect_url: &str,
) -> Result<
    CoreClient<
        openidconnect::EndpointSet,
        openidconnect::EndpointNotSet,
        openidconnect::EndpointNotSet,
        openidconnect::EndpointNotSet,
        openidconnect::EndpointMaybeSet,
        openidconnect::EndpointMaybeSet,
    >,
    SingleSignOnError,
> {
    let redirect = RedirectUrl::new(redirect_url.to_owned()).map_err(|error| {
        SingleSignOnError::Provider(format!(
            "the redirect URL {redirect_url:?} is not a URL: {error}"
        ))
    })?;
    Ok(CoreClient::from_provider_metadata(
        metadata.clone(),
        ClientId::new(settings.client_id.clone()),
        settings.client_secret.clone().map(ClientSecret::new),
    )
    .set_redirect_uri(redirect))
}

/// The claims of a JWT's payload (already verified by the caller), as
/// JSON: the role claim may be in the ID token rather than the user info.
fn payload_claims(jwt: &str) -> serde_json::Map<String, serde_json::Value> {
    use base64::Engine;
    jwt.split('.')
        .nth(1)
        .and_then(|payload| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(payload)
                .ok()
        })
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// An error and its causes, on one line.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}

/// The provider's HTTP client: the outputs' agent (rustls, no redirects).
struct HttpClient(ureq::Agent);

impl HttpClient {
    fn new(ca_file: Option<&str>) -> Result<Self, SingleSignOnError> {
        netcfg_outputs::http_agent(ca_file, CALL_TIMEOUT)
            .map(Self)
            .map_err(|error| SingleSignOnError::Provider(error.to_string()))
    }
}

impl openidconnect::SyncHttpClient for HttpClient {
    type Error = ureq::Error;

    fn call(
        &self,
        request: openidconnect::HttpRequest,
    ) -> Result<openidconnect::HttpResponse, ureq::Error> {
        let answer = self.0.run(request)?;
        let (parts, mut body) = answer.into_parts();
        let bytes = body.with_config().limit(MAX_ANSWER).read_to_vec()?;
        Ok(openidconnect::http::Response::from_parts(parts, bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(name: &str) -> Person {
        Person {
            name: name.parse().expect("a user name"),
            display_name: "Someone".to_owned(),
            role: None,
        }
    }

    fn local_user(file: &PeopleFile, name: &str, role: AccessRole, password: Option<&str>) {
        let user = User {
            name: name.parse().expect("a user name"),
            display_name: String::new(),
            role,
            nets: None,
            disabled: false,
            created_ms: 1,
            last_sign_in_ms: None,
        };
        file.create_user(&user, password).expect("the user is made");
    }

    /// Made at the first sign-in, its role set by each later one; refused,
    /// the user left as it was, for a password user, a disabled user and
    /// the last enabled admin demoted.
    #[test]
    fn a_person_is_kept_as_a_user_or_refused_with_the_reason() {
        let dir = tempfile::tempdir().expect("a directory");
        let file = PeopleFile::open(dir.path()).expect("the people's file");

        let made = keep_user(&file, &person("grace"), AccessRole::Admin, 5)
            .expect("the file works")
            .expect("grace is made");
        assert_eq!(
            (made.user.role, made.password_hash.is_none()),
            (AccessRole::Admin, true)
        );
        let kept = keep_user(&file, &person("grace"), AccessRole::Operator, 6);
        let refused = kept
            .expect("the file works")
            .expect_err("the last admin demoted");
        assert!(refused.contains("last enabled admin"), "{refused}");

        local_user(&file, "ada", AccessRole::Admin, None);
        let demoted = keep_user(&file, &person("grace"), AccessRole::Operator, 7)
            .expect("the file works")
            .expect("grace demoted, ada is an admin");
        assert_eq!(demoted.user.role, AccessRole::Operator);

        local_user(
            &file,
            "margaret",
            AccessRole::Viewer,
            Some("$argon2id$v=19$not-a-real-hash"),
        );
        let refused = keep_user(&file, &person("margaret"), AccessRole::Admin, 8)
            .expect("the file works")
            .expect_err("a password user is not taken over");
        assert!(refused.contains("a user with a password"), "{refused}");
        assert_eq!(
            file.user(&"margaret".parse().expect("a name"))
                .expect("kept")
                .user
                .role,
            AccessRole::Viewer
        );

        let change = UserChange {
            disabled: Some(true),
            ..UserChange::default()
        };
        file.change_user(&"grace".parse().expect("a name"), &change)
            .expect("disabled");
        let refused = keep_user(&file, &person("grace"), AccessRole::Admin, 9)
            .expect("the file works")
            .expect_err("a disabled user");
        assert!(refused.contains("disabled"), "{refused}");
    }
}
