//! Sign-in, sign-out and the sessions in memory: each known by the SHA-256
//! of its id (the cookie's value), ended when unused for `session_idle`,
//! after `session_max`, and at once when its user is deleted, disabled or
//! demoted, or changes its password elsewhere (its generation rose).

use std::{collections::HashMap, fmt, sync::Arc, sync::Mutex};

use netcfg_model::{
    UserName,
    people::{AuditEvent, SessionLimits, Via},
    sync::{lock, read},
    time::clock::wall_clock_ms_signed,
};
use netcfg_store::StoredUser;

use super::{Identity, Who, secrets};
use crate::{Service, ServiceError};

/// The most sessions kept: sign-ins are slowed per address and account,
/// but many addresses could still fill memory without a bound.
const MAX_SESSIONS: usize = 100_000;

/// A session's id: the cookie's value, known only to its browser.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionId(String);

impl SessionId {
    /// The id as the cookie carries it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionId(***)")
    }
}

#[derive(Debug, Clone)]
struct Session {
    user: UserName,
    generation: i64,
    began_ms: i64,
    used_ms: i64,
    csrf_token: Arc<str>,
    via: Via,
}

/// The sessions (see the module).
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    by_digest: Mutex<HashMap<[u8; 32], Session>>,
}

impl Sessions {
    fn begin(&self, user: &StoredUser, via: Via, now_ms: i64, limits: SessionLimits) -> SessionId {
        let id = secrets::random_hex();
        let session = Session {
            user: user.user.name.clone(),
            generation: user.generation,
            began_ms: now_ms,
            used_ms: now_ms,
            csrf_token: secrets::random_hex().into(),
            via,
        };
        let mut sessions = lock(&self.by_digest);
        if sessions.len() >= MAX_SESSIONS {
            sessions.retain(|_, kept| limits.alive(kept.began_ms, kept.used_ms, now_ms));
        }
        if sessions.len() >= MAX_SESSIONS
            && let Some(oldest) = sessions
                .iter()
                .min_by_key(|(_, kept)| kept.used_ms)
                .map(|(digest, _)| *digest)
        {
            sessions.remove(&oldest);
        }
        sessions.insert(secrets::digest(&id), session);
        SessionId(id)
    }

    /// Ends the sessions whose user is gone, disabled or of another
    /// generation.
    pub(crate) fn end_stale(&self, users: &HashMap<UserName, StoredUser>) {
        lock(&self.by_digest).retain(|_, session| {
            users
                .get(&session.user)
                .is_some_and(|user| !user.user.disabled && user.generation == session.generation)
        });
    }

    /// Keeps the session `id` alive across its own user's change (a new
    /// password ends the user's other sessions, not the one that set it).
    fn adopt(&self, digest: &[u8; 32], generation: i64) {
        if let Some(session) = lock(&self.by_digest).get_mut(digest) {
            session.generation = generation;
        }
    }

    fn end(&self, id: &str) -> Option<UserName> {
        lock(&self.by_digest)
            .remove(&secrets::digest(id))
            .map(|session| session.user)
    }
}

impl Service {
    /// The identity of a session's id (the cookie), if the session lives.
    pub fn identify_session(&self, id: &str) -> Option<Identity> {
        let now = wall_clock_ms_signed();
        let limits = self.people_settings().sessions;
        let digest = secrets::digest(id);
        let mut sessions = lock(&self.people().sessions.by_digest);
        let session = sessions.get_mut(&digest)?;
        let copy = read(&self.people().copy);
        let user = copy.users.get(&session.user);
        let alive = user.is_some_and(|user| {
            !user.user.disabled
                && user.generation == session.generation
                && limits.alive(session.began_ms, session.used_ms, now)
        });
        let Some(user) = user.filter(|_| alive) else {
            sessions.remove(&digest);
            return None;
        };
        session.used_ms = now;
        Some(Identity {
            who: Who::User(session.user.clone()),
            role: user.user.role,
            nets: user.user.nets.clone(),
            via: session.via,
            csrf_token: Some(session.csrf_token.clone()),
            session: Some(digest),
        })
    }

    /// Signs in with a name and password: a new session, or 401 saying
    /// only that the name or password is wrong (or that the user is
    /// disabled, once its password was right). Audited either way.
    pub async fn sign_in(
        &self,
        name: &str,
        password: String,
        address: Option<String>,
    ) -> Result<(Identity, SessionId), ServiceError> {
        let stored = name
            .parse::<UserName>()
            .ok()
            .and_then(|name| read(&self.people().copy).users.get(&name).cloned());
        let hash = stored.as_ref().and_then(|user| user.password_hash.clone());
        let matches = self
            .hashing(move || secrets::verify_password(&password, hash.as_deref()))
            .await?;
        let refuse = |reason: &str, message: &str| {
            self.audit(
                AuditEvent::SignInFailed,
                Some(name.chars().take(64).collect()),
                address.clone(),
                reason,
                None,
            );
            Err(ServiceError::Unauthenticated(message.to_owned()))
        };
        let Some(user) = stored.filter(|_| matches) else {
            return refuse(
                "unknown name or wrong password",
                "the name or the password is wrong",
            );
        };
        if user.user.disabled {
            return refuse(
                "the user is disabled",
                "this user is disabled: ask an admin",
            );
        }
        self.open_session(&user, Via::Password, address).await
    }

    /// Opens a session of `user`, signed in `via` (a password or the
    /// provider) from `address`: noted on the user and in the audit trail.
    pub(super) async fn open_session(
        &self,
        user: &StoredUser,
        via: Via,
        address: Option<String>,
    ) -> Result<(Identity, SessionId), ServiceError> {
        let now = wall_clock_ms_signed();
        let id = self
            .people()
            .sessions
            .begin(user, via, now, self.people_settings().sessions);
        let signed_in = user.user.name.clone();
        self.on_people(move |file| file.note_sign_in(&signed_in, now))
            .await?;
        self.audit(
            AuditEvent::SignIn,
            Some(user.user.name.to_string()),
            address,
            via.as_str(),
            None,
        );
        let identity = self
            .identify_session(id.expose())
            .ok_or_else(|| ServiceError::Unauthenticated("the session ended at once".to_owned()))?;
        Ok((identity, id))
    }

    /// Signs out: the server forgets the session.
    pub fn sign_out(&self, id: &str, address: Option<String>) {
        if let Some(user) = self.people().sessions.end(id) {
            self.audit(
                AuditEvent::SignOut,
                Some(user.to_string()),
                address,
                "",
                None,
            );
        }
    }

    /// After its own user's change through session `id`: the session stays.
    pub(crate) fn keep_session(&self, session: Option<&[u8; 32]>, generation: i64) {
        if let Some(digest) = session {
            self.people().sessions.adopt(digest, generation);
        }
    }

    /// Runs password hashing on a blocking thread, a few at a time.
    pub(crate) async fn hashing<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ServiceError> {
        let _permit = self
            .people()
            .hashing
            .acquire()
            .await
            .map_err(|error| ServiceError::Worker(error.to_string()))?;
        tokio::task::spawn_blocking(work)
            .await
            .map_err(|error| ServiceError::Worker(error.to_string()))
    }
}
