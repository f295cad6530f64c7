//! The one error type of the store, and how SQLite's errors map onto it.

use std::{fmt, sync::Arc};

use netcfg_model::Problems;
use rusqlite::ErrorCode;

/// Everything that can go wrong in the store. Each variant maps to one answer
/// of the HTTP layer without looking inside it: `NotFound` 404, `Conflict`
/// and `Locked` and `NewerSchema` 409, `Invalid` and `BadUpload` 400, `Io` 500.
/// Kinds are types ([`Missing`], [`ConflictKind`], [`IoFault`]), so a caller
/// tells one kind from another by matching, never by reading text.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// The configuration or item does not exist.
    #[error("{what} does not exist")]
    NotFound {
        /// What kind of thing was looked for.
        kind: Missing,
        /// What was looked for, for example `device 01:04:0719`.
        what: String,
    },
    /// The request conflicts with the configuration's state: a name already
    /// taken, an item in use, a built-in item.
    #[error("{what}: {why}")]
    Conflict {
        /// Why, as a kind.
        kind: ConflictKind,
        /// The item concerned.
        what: String,
        /// Why the change cannot be made, in words.
        why: String,
    },
    /// The input breaks the model's rules; every problem is listed.
    #[error("invalid input: {0}")]
    Invalid(Problems),
    /// A conditional change found the configuration changed since its
    /// caller read it ([`crate::Net::require_stamp`]); nothing was
    /// written.
    #[error("{what} changed since it was read; nothing was changed")]
    Changed {
        /// The configuration concerned.
        what: String,
    },
    /// Another program holds the configuration's file and did not let go
    /// within the busy timeout.
    #[error("{what} is locked by another program; try again later")]
    Locked {
        /// The configuration (or file) concerned.
        what: String,
    },
    /// The file was written by a newer version of this program.
    #[error("{what} has schema version {found}; this program supports up to {supported}")]
    NewerSchema {
        /// The configuration concerned.
        what: String,
        /// The file's schema version.
        found: i64,
        /// The newest schema version this program knows.
        supported: i64,
    },
    /// An uploaded file was refused; nothing was written.
    #[error("the uploaded file was refused: {0}")]
    BadUpload(BadUpload),
    /// A fault of the host or of a file: disk full, permission denied, a
    /// damaged file in the data directory.
    #[error("{context}: {source}")]
    Io {
        /// What kind of fault: a full or read-only disk, or anything else.
        fault: IoFault,
        /// What the store was doing.
        context: String,
        /// The underlying error.
        source: Arc<dyn std::error::Error + Send + Sync>,
    },
}

/// What kind of thing a [`StoreError::NotFound`] looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Missing {
    /// A configuration (its file).
    Configuration,
    /// A device of a configuration.
    Device,
    /// An interface of a device.
    Interface,
    /// A role.
    Role,
    /// An RF setting.
    RfSetting,
    /// A data stream.
    DataStream,
    /// A position limit.
    PositionLimit,
    /// A setting.
    Setting,
    /// A notification.
    Notification,
    /// A log file.
    LogFile,
    /// A pair of interfaces.
    DevicePair,
    /// A device's magnetometer calibration.
    MagnetometerCalibration,
    /// An entry of the change history.
    HistoryEntry,
    /// An alert rule.
    AlertRule,
    /// A schedule.
    Schedule,
    /// A zone.
    Zone,
    /// An output.
    Output,
    /// A recording (decisions §15).
    Recording,
    /// A user (decisions §17).
    User,
    /// A user's API key.
    ApiKey,
}

/// Why a change conflicts with a configuration's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConflictKind {
    /// The name, serial number, id or key is taken.
    Taken,
    /// The item is in use (a role that interfaces use, the active RF setting,
    /// a device's last interface, an item another refers to).
    InUse,
    /// A built-in item that cannot be deleted or renamed.
    BuiltIn,
    /// Every identifier has been used.
    Exhausted,
    /// The recordings' limit or the disk leaves no room for a recording.
    NoRoom,
    /// The two interfaces are paired already.
    AlreadyPaired,
    /// The change history does not fit the content (a damaged or edited
    /// file): a restore cannot replay it.
    HistoryDiverged,
    /// A restore to a change the retention pruned (decisions §20).
    HistoryPruned,
    /// The change would leave no enabled admin (decisions §17).
    LastAdmin,
}

/// What kind of fault an [`StoreError::Io`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IoFault {
    /// The data directory's filesystem is full (or over quota).
    DiskFull,
    /// The data directory cannot be written (a read-only filesystem, or
    /// permission denied).
    ReadOnly,
    /// Any other fault: a damaged file, an I/O error.
    Other,
}

impl IoFault {
    /// The kind of a file operation's error.
    pub fn of_io(error: &std::io::Error) -> Self {
        const ENOSPC: i32 = 28;
        const EROFS: i32 = 30;
        const EDQUOT: i32 = 122;
        match error.raw_os_error() {
            Some(ENOSPC | EDQUOT) => Self::DiskFull,
            Some(EROFS) => Self::ReadOnly,
            _ if error.kind() == std::io::ErrorKind::PermissionDenied => Self::ReadOnly,
            _ => Self::Other,
        }
    }

    /// The kind of an SQLite error.
    fn of_sqlite(error: &rusqlite::Error) -> Self {
        match error.sqlite_error_code() {
            Some(ErrorCode::DiskFull) => Self::DiskFull,
            // SQLite answers SQLITE_FULL when a write meets ENOSPC.
            Some(ErrorCode::ReadOnly | ErrorCode::PermissionDenied) => Self::ReadOnly,
            _ => Self::Other,
        }
    }
}

/// Why an uploaded configuration file was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadUpload {
    /// The bytes do not start with the SQLite header.
    #[error("it is not an SQLite database")]
    NotSqlite,
    /// The file is shorter than its own header says.
    #[error("it is truncated: {actual} bytes of {expected}")]
    Truncated {
        /// The length the header announces.
        expected: u64,
        /// The length received.
        actual: u64,
    },
    /// An SQLite database of another application.
    #[error(
        "it is not a netcfg configuration (application_id {found:#010x}, expected {expected:#010x})"
    )]
    OtherApplication {
        /// The file's `application_id`.
        found: u32,
        /// Ours.
        expected: u32,
    },
    /// `PRAGMA integrity_check` or `foreign_key_check` found damage.
    #[error("it failed the integrity check: {report}")]
    FailedIntegrityCheck {
        /// The first lines of the check's report.
        report: String,
    },
    /// The file was written by a newer version of this program.
    #[error("its schema version {found} is newer than {supported}, the newest this program knows")]
    NewerSchema {
        /// The file's schema version.
        found: i64,
        /// The newest schema version this program knows.
        supported: i64,
    },
    /// The tables do not match the schema version the file claims.
    #[error("its tables do not match schema version {version}: {detail}")]
    SchemaMismatch {
        /// The version the file claims.
        version: i64,
        /// The first difference found.
        detail: String,
    },
    /// The tables match but a stored value breaks the model's rules.
    #[error("it holds a value this program cannot read: {detail}")]
    BadContent {
        /// The value and why.
        detail: String,
    },
    /// An uploaded recording is not a classic pcap capture netcfg reads.
    #[error("{0}")]
    NotPcap(String),
    /// An uploaded capture holds no CDP datagram.
    #[error(
        "it holds no CDP datagram ({records} record(s), {datagrams} of them UDP): capture the data streams' UDP traffic, e.g. `tcpdump -w site.pcap udp port 7667`"
    )]
    NoCdp {
        /// Records in the capture.
        records: u64,
        /// Of them, UDP datagrams.
        datagrams: u64,
    },
}

/// A plain message used as the source of an [`StoreError::Io`].
#[derive(Debug)]
pub(crate) struct Message(pub(crate) String);

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Message {}

impl StoreError {
    /// A `NotFound` of a `kind` of thing, described as `what`.
    pub(crate) fn not_found(kind: Missing, what: impl Into<String>) -> Self {
        Self::NotFound {
            kind,
            what: what.into(),
        }
    }

    /// A `Conflict` of `kind` on `what` because of `why`.
    pub(crate) fn conflict(
        kind: ConflictKind,
        what: impl Into<String>,
        why: impl Into<String>,
    ) -> Self {
        Self::Conflict {
            kind,
            what: what.into(),
            why: why.into(),
        }
    }

    /// An `Invalid` with one problem.
    pub(crate) fn invalid(path: &str, message: impl Into<String>) -> Self {
        let mut problems = Problems::new();
        problems.push(path, message);
        Self::Invalid(problems)
    }

    /// An `Io` error with a context and a plain message.
    pub(crate) fn io_message(context: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Io {
            fault: IoFault::Other,
            context: context.into(),
            source: Arc::new(Message(message.into())),
        }
    }

    /// An `Io` error from a file operation.
    pub fn file(context: impl Into<String>, error: std::io::Error) -> Self {
        Self::Io {
            fault: IoFault::of_io(&error),
            context: context.into(),
            source: Arc::new(error),
        }
    }

    /// Names the configuration in errors that speak of "the file".
    pub(crate) fn in_configuration(self, name: &str) -> Self {
        match self {
            Self::Locked { .. } => Self::Locked {
                what: format!("configuration {name}"),
            },
            Self::NewerSchema {
                found, supported, ..
            } => Self::NewerSchema {
                what: format!("configuration {name}"),
                found,
                supported,
            },
            Self::Io {
                fault,
                context,
                source,
            } => Self::Io {
                fault,
                context: format!("configuration {name}: {context}"),
                source,
            },
            other => other,
        }
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> Self {
        match error.sqlite_error() {
            Some(code)
                if matches!(
                    code.code,
                    ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked
                ) =>
            {
                Self::Locked {
                    what: "the configuration file".to_owned(),
                }
            }
            // The model's checks run first; a constraint that still fires is
            // the schema's second line of defence speaking.
            Some(code) if code.code == ErrorCode::ConstraintViolation => {
                let message = error.to_string();
                match code.extended_code {
                    rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                    | rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY => Self::conflict(
                        ConflictKind::Taken,
                        "the item",
                        format!("the name or key is taken ({message})"),
                    ),
                    rusqlite::ffi::SQLITE_CONSTRAINT_FOREIGNKEY => Self::conflict(
                        ConflictKind::InUse,
                        "the item",
                        format!("it is referenced by or refers to another item ({message})"),
                    ),
                    _ => Self::invalid(
                        "",
                        format!("the value breaks a rule of the file ({message})"),
                    ),
                }
            }
            _ => Self::Io {
                fault: IoFault::of_sqlite(&error),
                context: "SQLite".to_owned(),
                source: Arc::new(error),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_or_read_only_disk_is_its_own_kind_of_fault() {
        let fault = |errno| IoFault::of_io(&std::io::Error::from_raw_os_error(errno));
        assert_eq!(fault(28), IoFault::DiskFull, "ENOSPC");
        assert_eq!(fault(122), IoFault::DiskFull, "EDQUOT");
        assert_eq!(fault(30), IoFault::ReadOnly, "EROFS");
        assert_eq!(fault(13), IoFault::ReadOnly, "EACCES");
        assert_eq!(fault(5), IoFault::Other, "EIO");
        let full = StoreError::file("writing", std::io::Error::from_raw_os_error(28));
        assert!(matches!(
            full,
            StoreError::Io {
                fault: IoFault::DiskFull,
                ..
            }
        ));
    }
}
