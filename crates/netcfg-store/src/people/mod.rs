//! The people of decisions §17: users, their API keys and the audit trail,
//! server-wide, in the data directory's `people/people.sqlite` (outside
//! every configuration's file, so no download, copy or upload carries
//! them; in a directory of its own, as a configuration named `people`
//! would own `people.sqlite` beside the others).
//!
//! The file is SQLite in write-ahead-log mode with `synchronous = FULL`: a
//! change is whole and durable when its call returns, whatever crashes
//! after. Another process (`netcfg-http users ...`) may change it while a
//! server runs: [`People::signature`] tells the server to read it again.
//! Each call opens its own connection and closes it when done: the file is
//! used rarely (a request is identified from the server's memory), and a
//! file held open for writing would keep its filesystem from being
//! remounted read-only.
//!
//! Every call blocks on SQLite: callers on async workers run them on a
//! blocking thread.

mod audit;

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use netcfg_model::{
    ConfigName, KeyName, UserName,
    people::{AccessRole, ApiKey, User},
    time::clock,
};
use rusqlite::{Connection, OptionalExtension, params};

use crate::{
    database::{connect, use_wal},
    error::{ConflictKind, Missing, StoreError},
};

/// The file's directory in the data directory.
pub const PEOPLE_DIR: &str = "people";
/// The file's name in that directory.
pub const PEOPLE_FILE: &str = "people.sqlite";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY NOT NULL,
    display_name TEXT NOT NULL DEFAULT '',
    role TEXT NOT NULL CHECK (role IN ('viewer', 'operator', 'editor', 'admin')),
    nets TEXT,
    disabled INTEGER NOT NULL DEFAULT 0,
    password_hash TEXT,
    created_ms INTEGER NOT NULL,
    last_sign_in_ms INTEGER,
    generation INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE TABLE IF NOT EXISTS api_keys (
    user TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,
    name TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('viewer', 'operator', 'editor', 'admin')),
    digest BLOB NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    last_used_ms INTEGER,
    expires_ms INTEGER,
    PRIMARY KEY (user, name)
) STRICT;
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY,
    time_ms INTEGER NOT NULL,
    event TEXT NOT NULL,
    user TEXT,
    address TEXT,
    detail TEXT NOT NULL DEFAULT '',
    status INTEGER
) STRICT;
CREATE TABLE IF NOT EXISTS audit_dropped (
    only INTEGER PRIMARY KEY CHECK (only = 0),
    count INTEGER NOT NULL
) STRICT;
PRAGMA user_version = 1;
";

/// A user as kept: its record, its password's hash (none for a user of
/// single sign-on) and its generation, which rises whenever its sessions
/// must end (disabled, demoted, a new password).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredUser {
    /// What a GET shows.
    pub user: User,
    /// The Argon2id hash in PHC form.
    pub password_hash: Option<String>,
    /// Rises when the user's sessions must end.
    pub generation: i64,
}

/// An API key as kept: its owner, its record and its secret's SHA-256.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredKey {
    /// Its user.
    pub user: UserName,
    /// What its list shows.
    pub key: ApiKey,
    /// The SHA-256 of its secret.
    pub digest: [u8; 32],
}

/// A change to a user: each field given is set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserChange {
    /// A new display name.
    pub display_name: Option<String>,
    /// A new role.
    pub role: Option<AccessRole>,
    /// New configurations; `Some(None)`: all.
    pub nets: Option<Option<Vec<ConfigName>>>,
    /// Enabled or disabled.
    pub disabled: Option<bool>,
    /// A new password's hash.
    pub password_hash: Option<String>,
}

/// The people's file (see the module).
#[derive(Debug)]
pub struct People {
    path: PathBuf,
}

/// What the file's metadata says of its content: it differs after a
/// change by any process (the database file or its write-ahead log grew,
/// shrank or was written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature(Vec<Option<(u64, std::time::SystemTime)>>);

impl People {
    /// Opens (creating it when missing) the data directory's people file.
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        let dir = data_dir.join(PEOPLE_DIR);
        std::fs::create_dir_all(&dir)
            .map_err(|error| StoreError::file(format!("creating {}", dir.display()), error))?;
        let path = dir.join(PEOPLE_FILE);
        let conn = connect(&path, Duration::from_secs(5), true)?;
        use_wal(&conn)?;
        let version: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        if version > 1 {
            return Err(StoreError::NewerSchema {
                what: PEOPLE_FILE.to_owned(),
                found: version,
                supported: 1,
            });
        }
        conn.execute_batch(&format!("BEGIN IMMEDIATE; {SCHEMA} COMMIT;"))?;
        Ok(Self { path })
    }

    /// A connection of its own for one call.
    fn connect(&self) -> Result<Connection, StoreError> {
        connect(&self.path, Duration::from_secs(5), false)
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's [`Signature`] now, read from its metadata alone.
    pub fn signature(&self) -> Signature {
        let stat = |path: &Path| {
            std::fs::metadata(path)
                .ok()
                .and_then(|meta| Some((meta.len(), meta.modified().ok()?)))
        };
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        Signature(vec![stat(&self.path), stat(Path::new(&wal))])
    }

    /// Every user, by name.
    pub fn users(&self) -> Result<Vec<StoredUser>, StoreError> {
        let conn = self.connect()?;
        let mut statement = conn.prepare_cached(&format!("{SELECT_USER} ORDER BY name"))?;
        let users = statement
            .query_map([], read_user)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(users)
    }

    /// One user.
    pub fn user(&self, name: &UserName) -> Result<StoredUser, StoreError> {
        let conn = self.connect()?;
        find_user(&conn, name)
    }

    /// Adds a user: 409 `name_taken` when its name is.
    pub fn create_user(
        &self,
        user: &User,
        password_hash: Option<&str>,
    ) -> Result<StoredUser, StoreError> {
        let mut conn = self.connect()?;
        let transaction =
            conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        refuse_taken(
            &transaction,
            "SELECT EXISTS (SELECT 1 FROM users WHERE name = ?1)",
            &[user.name.as_str()],
            || format!("user {}", user.name),
        )?;
        transaction.execute(
            "INSERT INTO users (name, display_name, role, nets, disabled, password_hash, created_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                user.name.as_str(),
                user.display_name,
                user.role.as_str(),
                nets_text(user.nets.as_ref()),
                user.disabled,
                password_hash,
                user.created_ms,
            ],
        )?;
        let stored = find_user(&transaction, &user.name)?;
        transaction.commit()?;
        Ok(stored)
    }

    /// Changes a user; 409 `last_admin` when it would leave no enabled admin.
    pub fn change_user(
        &self,
        name: &UserName,
        change: &UserChange,
    ) -> Result<StoredUser, StoreError> {
        let mut conn = self.connect()?;
        let transaction =
            conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let before = find_user(&transaction, name)?;
        let role = change.role.unwrap_or(before.user.role);
        let disabled = change.disabled.unwrap_or(before.user.disabled);
        if (role != AccessRole::Admin || disabled) && is_last_admin(&transaction, &before)? {
            return Err(last_admin(name));
        }
        let demoted = role < before.user.role;
        let ends_sessions = demoted
            || (disabled && !before.user.disabled)
            || change.password_hash.is_some()
            || change.nets.is_some();
        let nets = match &change.nets {
            Some(nets) => nets.clone(),
            None => before.user.nets.clone(),
        };
        transaction.execute(
            "UPDATE users SET display_name = ?2, role = ?3, nets = ?4, disabled = ?5,
                 password_hash = ?6, generation = generation + ?7
             WHERE name = ?1",
            params![
                name.as_str(),
                change
                    .display_name
                    .as_ref()
                    .unwrap_or(&before.user.display_name),
                role.as_str(),
                nets_text(nets.as_ref()),
                disabled,
                change
                    .password_hash
                    .as_deref()
                    .or(before.password_hash.as_deref()),
                i64::from(ends_sessions),
            ],
        )?;
        let after = find_user(&transaction, name)?;
        transaction.commit()?;
        Ok(after)
    }

    /// Deletes a user and its keys; 409 `last_admin` for the last enabled admin.
    pub fn delete_user(&self, name: &UserName) -> Result<(), StoreError> {
        let mut conn = self.connect()?;
        let transaction =
            conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let before = find_user(&transaction, name)?;
        if is_last_admin(&transaction, &before)? {
            return Err(last_admin(name));
        }
        transaction.execute("DELETE FROM users WHERE name = ?1", [name.as_str()])?;
        transaction.commit()?;
        Ok(())
    }

    /// Notes a sign-in.
    pub fn note_sign_in(&self, name: &UserName, time_ms: i64) -> Result<(), StoreError> {
        let conn = self.connect()?;
        conn.prepare_cached("UPDATE users SET last_sign_in_ms = ?2 WHERE name = ?1")?
            .execute(params![name.as_str(), time_ms])?;
        Ok(())
    }

    /// Every API key.
    pub fn keys(&self) -> Result<Vec<StoredKey>, StoreError> {
        let conn = self.connect()?;
        let mut statement = conn.prepare_cached(
            "SELECT user, name, role, prefix, created_ms, last_used_ms, expires_ms, digest
             FROM api_keys ORDER BY user, name",
        )?;
        let keys = statement
            .query_map([], |row| {
                Ok(StoredKey {
                    user: parsed(row, 0)?,
                    key: ApiKey {
                        name: parsed(row, 1)?,
                        role: parsed(row, 2)?,
                        prefix: row.get(3)?,
                        created_ms: row.get(4)?,
                        last_used_ms: row.get(5)?,
                        expires_ms: row.get(6)?,
                    },
                    digest: row.get(7)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(keys)
    }

    /// Adds a key of `user`: 409 `name_taken` when the user has one of that name.
    pub fn create_key(&self, stored: &StoredKey) -> Result<(), StoreError> {
        let mut conn = self.connect()?;
        let transaction =
            conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        find_user(&transaction, &stored.user)?;
        refuse_taken(
            &transaction,
            "SELECT EXISTS (SELECT 1 FROM api_keys WHERE user = ?1 AND name = ?2)",
            &[stored.user.as_str(), stored.key.name.as_str()],
            || format!("key {} of user {}", stored.key.name, stored.user),
        )?;
        transaction.execute(
            "INSERT INTO api_keys (user, name, role, digest, prefix, created_ms, expires_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                stored.user.as_str(),
                stored.key.name.as_str(),
                stored.key.role.as_str(),
                stored.digest,
                stored.key.prefix,
                stored.key.created_ms,
                stored.key.expires_ms,
            ],
        )?;
        transaction.commit()?;
        Ok(())
    }

    /// Revokes a key.
    pub fn delete_key(&self, user: &UserName, name: &KeyName) -> Result<(), StoreError> {
        let conn = self.connect()?;
        let deleted = conn.execute(
            "DELETE FROM api_keys WHERE user = ?1 AND name = ?2",
            params![user.as_str(), name.as_str()],
        )?;
        if deleted == 0 {
            find_user(&conn, user)?;
            return Err(StoreError::not_found(
                Missing::ApiKey,
                format!("key {name} of user {user}"),
            ));
        }
        Ok(())
    }

    /// Notes when keys were last used, in one transaction (the server
    /// gathers uses for a few seconds rather than write at every request).
    pub fn note_key_uses(&self, uses: &[([u8; 32], i64)]) -> Result<(), StoreError> {
        if uses.is_empty() {
            return Ok(());
        }
        let mut conn = self.connect()?;
        let transaction = conn.transaction()?;
        {
            let mut statement = transaction.prepare_cached(
                "UPDATE api_keys SET last_used_ms = max(coalesce(last_used_ms, 0), ?2)
                 WHERE digest = ?1",
            )?;
            for (digest, time_ms) in uses {
                statement.execute(params![digest, time_ms])?;
            }
        }
        transaction.commit()?;
        Ok(())
    }

    /// Whether any user exists.
    pub fn anyone(&self) -> Result<bool, StoreError> {
        let conn = self.connect()?;
        Ok(conn.query_row("SELECT EXISTS (SELECT 1 FROM users)", [], |row| row.get(0))?)
    }

    /// The time now, as the people's records write it (ms since 1970).
    pub fn now_ms() -> i64 {
        clock::wall_clock_ms_signed()
    }
}

const SELECT_USER: &str = "SELECT name, display_name, role, nets, disabled, created_ms,
    last_sign_in_ms, password_hash, generation FROM users";

fn find_user(conn: &Connection, name: &UserName) -> Result<StoredUser, StoreError> {
    conn.prepare_cached(&format!("{SELECT_USER} WHERE name = ?1"))?
        .query_row([name.as_str()], read_user)
        .optional()?
        .ok_or_else(|| StoreError::not_found(Missing::User, format!("user {name}")))
}

fn read_user(row: &rusqlite::Row<'_>) -> rusqlite::Result<StoredUser> {
    let nets: Option<String> = row.get(3)?;
    let nets = nets
        .map(|text| serde_json::from_str::<Vec<ConfigName>>(&text))
        .transpose()
        .map_err(|error| {
            rusqlite::Error::FromSqlConversionFailure(3, rusqlite::types::Type::Text, error.into())
        })?;
    Ok(StoredUser {
        user: User {
            name: parsed(row, 0)?,
            display_name: row.get(1)?,
            role: parsed(row, 2)?,
            nets,
            disabled: row.get(4)?,
            created_ms: row.get(5)?,
            last_sign_in_ms: row.get(6)?,
        },
        password_hash: row.get(7)?,
        generation: row.get(8)?,
    })
}

/// Column `index` read as text and parsed.
fn parsed<T>(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<T>
where
    T: std::str::FromStr,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    let text: String = row.get(index)?;
    text.parse().map_err(|error: T::Err| {
        rusqlite::Error::FromSqlConversionFailure(
            index,
            rusqlite::types::Type::Text,
            Box::new(error),
        )
    })
}

fn nets_text(nets: Option<&Vec<ConfigName>>) -> Option<String> {
    nets.map(|nets| serde_json::to_string(nets).unwrap_or_else(|_| "[]".to_owned()))
}

/// 409 `name_taken` when `exists` (a query of one boolean) finds the name.
fn refuse_taken(
    conn: &Connection,
    exists: &str,
    names: &[&str],
    what: impl FnOnce() -> String,
) -> Result<(), StoreError> {
    let taken: bool =
        conn.query_row(exists, rusqlite::params_from_iter(names), |row| row.get(0))?;
    if taken {
        return Err(StoreError::conflict(
            ConflictKind::Taken,
            what(),
            "the name is taken",
        ));
    }
    Ok(())
}

/// Whether `user` is the only enabled admin.
fn is_last_admin(conn: &Connection, user: &StoredUser) -> Result<bool, StoreError> {
    if user.user.role != AccessRole::Admin || user.user.disabled {
        return Ok(false);
    }
    let others: i64 = conn.query_row(
        "SELECT count(*) FROM users WHERE role = 'admin' AND disabled = 0 AND name != ?1",
        [user.user.name.as_str()],
        |row| row.get(0),
    )?;
    Ok(others == 0)
}

fn last_admin(name: &UserName) -> StoreError {
    StoreError::conflict(
        ConflictKind::LastAdmin,
        format!("user {name}"),
        "it is the last enabled admin: make another admin first",
    )
}
