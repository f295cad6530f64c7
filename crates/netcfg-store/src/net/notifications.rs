//! Notifications raised by a configuration's network, with read flags.
//! Unread ones are found through a partial index, so counting them costs
//! what there is to count, not the length of the history. The history is
//! bounded ([`crate::Retention`]): the writer prunes the oldest in the
//! background, read ones first. Identifiers are never reused.

use netcfg_model::{Level, Notification, SerialNumber};
use rusqlite::{Connection, OptionalExtension, params};

use super::Net;
use crate::{
    error::{Missing, StoreError},
    sql::{self, get},
};

const COLUMNS: &str = "identifier, level, message, serial_number, timestamp_ms, read";

fn read_notification(row: &rusqlite::Row<'_>) -> rusqlite::Result<Notification> {
    let serial: Option<u32> = row.get(3)?;
    Ok(Notification {
        identifier: get::<u64, i64>(row, 0)?,
        level: get::<Level, u32>(row, 1)?,
        message: row.get(2)?,
        serial_number: serial.map(SerialNumber::from_u32),
        timestamp_ms: get::<u64, i64>(row, 4)?,
        read: row.get(5)?,
    })
}

/// Every notification, oldest first.
pub(super) fn list(conn: &Connection) -> Result<Vec<Notification>, StoreError> {
    let mut statement = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM notifications ORDER BY identifier"
    ))?;
    let rows = statement.query_map([], read_notification)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn require(conn: &Connection, identifier: u64) -> Result<Notification, StoreError> {
    let not_found =
        || StoreError::not_found(Missing::Notification, format!("notification {identifier}"));
    let row_id = i64::try_from(identifier).map_err(|_| not_found())?;
    let mut statement = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM notifications WHERE identifier = ?1"
    ))?;
    statement
        .query_row([row_id], read_notification)
        .optional()?
        .ok_or_else(not_found)
}

/// The row id of a stored notification (its identifier came from one).
fn conn_id(notification: &Notification) -> i64 {
    i64::try_from(notification.identifier).unwrap_or(i64::MAX)
}

/// A notification to record; it is stored unread, with a new identifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewNotification {
    /// How serious it is.
    pub level: Level,
    /// What happened.
    pub message: String,
    /// The device it concerns, if any.
    pub serial_number: Option<SerialNumber>,
    /// When, in milliseconds since the Unix epoch.
    pub timestamp_ms: u64,
}

/// Inserts one notification; its identifier.
fn insert(conn: &Connection, new: &NewNotification, timestamp_ms: i64) -> Result<u64, StoreError> {
    conn.prepare_cached(
        "INSERT INTO notifications (level, message, serial_number, timestamp_ms, read)
         VALUES (?1, ?2, ?3, ?4, 0)",
    )?
    .execute(params![
        new.level.value(),
        new.message,
        new.serial_number.map(sql::serial),
        timestamp_ms
    ])?;
    Ok(conn.last_insert_rowid().unsigned_abs())
}

impl Net {
    /// Records a new, unread notification.
    pub fn add_notification(
        &self,
        level: Level,
        message: impl Into<String>,
        serial_number: Option<SerialNumber>,
        timestamp_ms: u64,
    ) -> Result<Notification, StoreError> {
        let new = NewNotification {
            level,
            message: message.into(),
            serial_number,
            timestamp_ms,
        };
        self.insert_all(vec![new], |conn, identifiers| match identifiers {
            [identifier] => require(conn, *identifier),
            _ => Err(StoreError::io_message(
                "adding a notification",
                "one identifier expected",
            )),
        })
    }

    /// Records notifications in one commit, in order (a burst costs one
    /// sync, not one each); their identifiers. All are stored or none.
    pub fn add_notifications(&self, new: Vec<NewNotification>) -> Result<Vec<u64>, StoreError> {
        self.insert_all(new, |_, identifiers| Ok(identifiers.to_vec()))
    }

    /// Inserts `new` in one change and answers with
    /// `answer` from inside the same change.
    fn insert_all<T: Send + 'static>(
        &self,
        new: Vec<NewNotification>,
        answer: impl FnOnce(&Connection, &[u64]) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let timestamps = new
            .iter()
            .map(|new| {
                i64::try_from(new.timestamp_ms).map_err(|_| {
                    StoreError::invalid("timestamp_ms", "the time is too far in the future")
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.db.write(move |conn| {
            let mut identifiers = Vec::with_capacity(new.len());
            for (new, timestamp_ms) in new.iter().zip(timestamps) {
                identifiers.push(insert(conn, new, timestamp_ms)?);
            }
            answer(conn, &identifiers)
        })
    }

    /// Every notification, oldest first.
    pub fn notifications(&self) -> Result<Vec<Notification>, StoreError> {
        self.db.read(list)
    }

    /// The notifications after `identifier`, oldest first (a client that
    /// saw up to `identifier` resumes with these).
    pub fn notifications_after(&self, identifier: u64) -> Result<Vec<Notification>, StoreError> {
        self.notifications_where("identifier > ?1", identifier)
    }

    /// The notifications raised at or after `timestamp_ms`, oldest first.
    pub fn notifications_since(&self, timestamp_ms: u64) -> Result<Vec<Notification>, StoreError> {
        self.notifications_where("timestamp_ms >= ?1", timestamp_ms)
    }

    /// The notifications for which `condition` holds with `?1` = `value`
    /// (beyond SQLite's integers: none), oldest first.
    fn notifications_where(
        &self,
        condition: &'static str,
        value: u64,
    ) -> Result<Vec<Notification>, StoreError> {
        let value = i64::try_from(value).unwrap_or(i64::MAX);
        self.db.read(move |conn| {
            let mut statement = conn.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM notifications WHERE {condition} ORDER BY identifier"
            ))?;
            let rows = statement.query_map([value], read_notification)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// One notification.
    pub fn notification(&self, identifier: u64) -> Result<Notification, StoreError> {
        self.db.read(move |conn| require(conn, identifier))
    }

    /// Marks one notification read or unread.
    pub fn set_notification_read(
        &self,
        identifier: u64,
        read: bool,
    ) -> Result<Notification, StoreError> {
        self.db.write(move |conn| {
            let current = require(conn, identifier)?;
            conn.prepare_cached("UPDATE notifications SET read = ?1 WHERE identifier = ?2")?
                .execute(params![read, conn_id(&current)])?;
            require(conn, identifier)
        })
    }

    /// Marks every notification read or unread; returns how many changed.
    pub fn set_all_notifications_read(&self, read: bool) -> Result<usize, StoreError> {
        self.db.write(move |conn| {
            Ok(conn
                .prepare_cached("UPDATE notifications SET read = ?1 WHERE read <> ?1")?
                .execute([read])?)
        })
    }

    /// How many notifications are unread.
    pub fn unread_notifications(&self) -> Result<u64, StoreError> {
        self.db.read(|conn| {
            Ok(conn
                .prepare_cached("SELECT count(*) FROM notifications WHERE read = 0")?
                .query_row([], |row| get::<u64, i64>(row, 0))?)
        })
    }
}
