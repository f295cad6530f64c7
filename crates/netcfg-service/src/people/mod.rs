//! People (decisions §17): who a request is, and what users, keys and
//! sessions there are.
//!
//! The users and keys are kept by the store (`people.sqlite`); the service
//! holds a copy in memory, so that identifying a request (at every request)
//! reads no file: the copy is replaced after each change made here, and
//! within a second of a change made by another process (`netcfg-http
//! users ...`), which the background work notices by the file's data
//! version. Sessions live in memory only: a restart signs everyone out.
//! Key uses and audit entries are gathered and written once a second.

mod accounts;
pub mod offline;
mod secrets;
mod sessions;
mod single_sign_on;

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex, RwLock,
        atomic::{AtomicI64, Ordering},
    },
};

use netcfg_model::{
    ConfigName, KeyName, UserName,
    people::{AccessRole, AuditEvent, AuditRecord, SessionInfo, SessionLimits, Via},
    sync::{lock, read, write},
};
use netcfg_store::{People as PeopleFile, Signature, StoreError, StoredUser};

pub use accounts::Caller;
pub use sessions::SessionId;
pub use single_sign_on::{OidcStart, SingleSignOnError};

use crate::Service;

/// Who made a request, and what it may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// Who: a user (with a session or a key) or a configured token.
    pub who: Who,
    /// What it may do now.
    pub role: AccessRole,
    /// The only configurations it sees; none: all.
    pub nets: Option<Vec<ConfigName>>,
    /// How it proved who it is.
    pub via: Via,
    /// For a cookie session: the token its changes must carry.
    pub csrf_token: Option<Arc<str>>,
    /// For a cookie session: the SHA-256 of its id.
    pub session: Option<[u8; 32]>,
}

/// Who an [`Identity`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Who {
    /// A user signed in (a session).
    User(UserName),
    /// A user's API key.
    Key(UserName, KeyName),
    /// A token of the configuration file, by its name.
    Token(Arc<str>),
}

impl Identity {
    /// A configured token's identity.
    pub fn token(name: Arc<str>, role: AccessRole) -> Self {
        Self {
            who: Who::Token(name),
            role,
            nets: None,
            via: Via::Token,
            csrf_token: None,
            session: None,
        }
    }

    /// The origin its changes are journalled with: `user:<name>`,
    /// `key:<user>/<key>` or `token:<name>`.
    pub fn origin(&self) -> String {
        use netcfg_model::people::origin;
        match &self.who {
            Who::User(name) => origin::user(name),
            Who::Key(user, key) => origin::key(user, key),
            Who::Token(name) => origin::token(name),
        }
    }

    /// The user behind it, if any (a token has none).
    pub fn user(&self) -> Option<&UserName> {
        match &self.who {
            Who::User(name) | Who::Key(name, _) => Some(name),
            Who::Token(_) => None,
        }
    }

    /// Whether it sees configuration `net` (one outside its `nets` is
    /// answered as absent, never as forbidden).
    pub fn sees(&self, net: &ConfigName) -> bool {
        self.nets.as_ref().is_none_or(|nets| nets.contains(net))
    }

    /// What `GET /session` answers.
    pub fn info(&self) -> SessionInfo {
        SessionInfo {
            user: match &self.who {
                Who::User(name) | Who::Key(name, _) => name.to_string(),
                Who::Token(name) => name.to_string(),
            },
            role: self.role,
            nets: self.nets.clone(),
            via: self.via,
            csrf_token: self.csrf_token.as_deref().map(str::to_owned),
        }
    }
}

/// The users and keys as last read from the file.
#[derive(Debug, Default)]
struct Copy {
    users: HashMap<UserName, StoredUser>,
    /// The live keys (of enabled users), by digest: what a request with one
    /// is, ready to hand out.
    keys: HashMap<[u8; 32], LiveKey>,
    /// The file's signature when read.
    signature: Option<Signature>,
}

/// A key of an enabled user, as a request with it is identified.
#[derive(Debug)]
struct LiveKey {
    identity: Arc<Identity>,
    expires_ms: Option<i64>,
    /// When last used (ms since 1970; 0: not since the last write): noted
    /// without a lock at every request, written once a second.
    last_used_ms: AtomicI64,
}

/// The people's state in memory (see the module).
#[derive(Debug)]
pub(crate) struct PeopleState {
    copy: RwLock<Copy>,
    sessions: sessions::Sessions,
    /// Audit entries not written yet.
    audit: Mutex<Vec<AuditRecord>>,
    /// Passwords are hashed a few at a time (each takes 19 MiB and tens of
    /// milliseconds): a flood of sign-ins waits here, not on the workers.
    hashing: tokio::sync::Semaphore,
    settings: RwLock<PeopleSettings>,
    single_sign_on: single_sign_on::SingleSignOn,
}

/// The server settings people depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeopleSettings {
    /// How long sessions last.
    pub sessions: SessionLimits,
    /// The most audit entries kept.
    pub audit_keep: u64,
}

impl Default for PeopleSettings {
    fn default() -> Self {
        Self {
            sessions: SessionLimits::default(),
            audit_keep: 100_000,
        }
    }
}

/// Passwords hashed at once.
const HASHING_AT_ONCE: usize = 2;

impl Default for PeopleState {
    fn default() -> Self {
        Self {
            copy: RwLock::default(),
            sessions: sessions::Sessions::default(),
            audit: Mutex::default(),
            hashing: tokio::sync::Semaphore::new(HASHING_AT_ONCE),
            settings: RwLock::default(),
            single_sign_on: single_sign_on::SingleSignOn::default(),
        }
    }
}

impl Service {
    fn people(&self) -> &PeopleState {
        &self.inner.people
    }

    fn people_file(&self) -> &PeopleFile {
        self.store().people()
    }

    /// Sets how long sessions last and how many audit entries are kept.
    pub fn set_people_settings(&self, settings: PeopleSettings) {
        *write(&self.people().settings) = settings;
    }

    /// How long sessions last.
    pub fn session_limits(&self) -> SessionLimits {
        self.people_settings().sessions
    }

    fn people_settings(&self) -> PeopleSettings {
        *read(&self.people().settings)
    }

    /// Reads the users and keys from the file again (blocking). The uses
    /// of the keys read before are written first, so none is lost.
    fn reload_people(&self) -> Result<(), StoreError> {
        let file = self.people_file();
        file.note_key_uses(&self.take_key_uses())?;
        // Taken first: a change made while reading is read again next time.
        let signature = file.signature();
        let users: HashMap<UserName, StoredUser> = file
            .users()?
            .into_iter()
            .map(|user| (user.user.name.clone(), user))
            .collect();
        let keys = file
            .keys()?
            .into_iter()
            .filter_map(|stored| {
                let user = users.get(&stored.user).filter(|user| !user.user.disabled)?;
                let identity = Identity {
                    who: Who::Key(stored.user.clone(), stored.key.name.clone()),
                    role: stored.key.acting_role(user.user.role),
                    nets: user.user.nets.clone(),
                    via: Via::Key,
                    csrf_token: None,
                    session: None,
                };
                let live = LiveKey {
                    identity: Arc::new(identity),
                    expires_ms: stored.key.expires_ms,
                    last_used_ms: AtomicI64::new(0),
                };
                Some((stored.digest, live))
            })
            .collect();
        let mut copy = write(&self.people().copy);
        copy.users = users;
        copy.keys = keys;
        copy.signature = Some(signature);
        Ok(())
    }

    /// The keys used since the last write, and when last; reset.
    fn take_key_uses(&self) -> Vec<([u8; 32], i64)> {
        read(&self.people().copy)
            .keys
            .iter()
            .filter_map(|(digest, key)| {
                let used = key.last_used_ms.swap(0, Ordering::Relaxed);
                (used > 0).then_some((*digest, used))
            })
            .collect()
    }

    /// Whether any user exists: access control is then on. Single sign-on
    /// alone does not turn it on (decisions §17: with no user and no token
    /// the API stays open); its first person's sign-in makes a user.
    pub fn has_users(&self) -> bool {
        !read(&self.people().copy).users.is_empty()
    }

    /// The identity of an API key's secret, if it is a live key of an
    /// enabled user. Reads memory only, and takes no lock but the copy's
    /// (shared by every reader); notes the use.
    pub fn identify_key(&self, secret: &str) -> Option<Arc<Identity>> {
        let digest = secrets::digest(secret);
        let now = netcfg_model::time::clock::wall_clock_ms_signed();
        let copy = read(&self.people().copy);
        let key = copy.keys.get(&digest)?;
        if key.expires_ms.is_some_and(|expires| expires <= now) {
            return None;
        }
        key.last_used_ms.fetch_max(now, Ordering::Relaxed);
        Some(key.identity.clone())
    }

    /// Adds an audit entry (written within a second, or at the next read
    /// of the trail).
    pub fn audit(
        &self,
        event: AuditEvent,
        user: Option<String>,
        address: Option<String>,
        detail: impl Into<String>,
        status: Option<u16>,
    ) {
        let mut pending = lock(&self.people().audit);
        // A flood of refusals must not grow memory: beyond this many
        // waiting, the newest are counted in the log instead.
        if pending.len() >= 10_000 {
            log::warn!(
                "audit: too many entries waiting; one {} left out",
                event.as_str()
            );
            return;
        }
        pending.push(AuditRecord {
            time_ms: netcfg_model::time::clock::wall_clock_ms_signed(),
            event,
            user,
            address,
            detail: detail.into(),
            status,
        });
    }

    /// Writes the waiting key uses and audit entries, and reads the file
    /// again when it changed (another process's change, or this one's).
    fn flush_people(&self) -> Result<(), StoreError> {
        let uses = self.take_key_uses();
        let audit: Vec<AuditRecord> = std::mem::take(&mut *lock(&self.people().audit));
        let file = self.people_file();
        file.note_key_uses(&uses)?;
        if let Err(error) = file.append_audit(&audit, self.people_settings().audit_keep) {
            // Kept for the next try (a disk full or read-only for a while),
            // before what came since.
            let mut pending = lock(&self.people().audit);
            let since = std::mem::replace(&mut *pending, audit);
            pending.extend(since);
            return Err(error);
        }
        let changed = Some(file.signature()) != read(&self.people().copy).signature;
        if changed {
            self.reload_people()?;
            self.people()
                .sessions
                .end_stale(&read(&self.people().copy).users);
        }
        Ok(())
    }

    /// Reads the people's file at start-up (blocking): call before serving.
    pub fn load_people(&self) -> Result<(), crate::ServiceError> {
        Ok(self.reload_people()?)
    }

    /// The people's background work: once a second, what
    /// [`Service::flush_people`] does.
    pub(crate) async fn keep_people(self) {
        let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let service = self.clone();
            let flushed = tokio::task::spawn_blocking(move || service.flush_people()).await;
            match flushed {
                Ok(Ok(())) => {}
                Ok(Err(error)) => log::warn!("people: {error}"),
                Err(error) => log::error!("people: the flush failed: {error}"),
            }
        }
    }

    /// Ends the sessions of users deleted, disabled, demoted or with a new
    /// password.
    fn end_stale_sessions(&self) {
        self.people()
            .sessions
            .end_stale(&read(&self.people().copy).users);
    }

    /// Runs `work` on the people's file on a blocking thread, then reads
    /// the file again into memory (a caller that changed a user then ends
    /// the sessions it ended: [`Service::end_stale_sessions`]).
    async fn on_people<T, F>(&self, work: F) -> Result<T, crate::ServiceError>
    where
        T: Send + 'static,
        F: FnOnce(&PeopleFile) -> Result<T, StoreError> + Send + 'static,
    {
        let service = self.clone();
        tokio::task::spawn_blocking(move || {
            let result = work(service.people_file());
            service.reload_people()?;
            result
        })
        .await
        .map_err(|error| crate::ServiceError::Worker(error.to_string()))?
        .map_err(crate::ServiceError::from)
    }
}
