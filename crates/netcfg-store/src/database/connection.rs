//! A connection to a configuration file with the settings every connection
//! of the store uses, and the file switched to write-ahead logging.

use std::{path::Path, time::Duration};

use rusqlite::{Connection, OpenFlags, config::DbConfig};

use crate::error::StoreError;

/// SQLite's page cache per connection, in KiB (SQLite's default: 2,000).
/// The operating system caches the file as well; a small cache per
/// connection keeps the server's memory from growing with the files.
const CACHE_KIB: u32 = 256;

/// Opens a connection to `path` with the settings every connection of the
/// store uses (see `configure`).
pub(crate) fn connect(
    path: &Path,
    busy_timeout: Duration,
    create: bool,
) -> Result<Connection, StoreError> {
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    let conn = Connection::open_with_flags(path, flags)?;
    configure(&conn, busy_timeout)?;
    Ok(conn)
}

/// Durable commits (the writer's are synced by the store instead:
/// [`crate::wal_sync`]), foreign keys on, a bounded wait for locks, and
/// SQLite's defences against a hostile file (defensive mode, untrusted
/// schema).
fn configure(conn: &Connection, busy_timeout: Duration) -> rusqlite::Result<()> {
    conn.busy_timeout(busy_timeout)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
    // Plans that never depend on bound values. Without this, a statement
    // whose plan looked at a value (`device_id = ?1` on a table with a
    // second index is enough) is compiled again at every use from the
    // statement cache, which clears its bindings when it takes it back.
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    conn.execute_batch(&format!(
        "PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL; PRAGMA cell_size_check = ON;
         PRAGMA cache_size = -{CACHE_KIB};"
    ))?;
    conn.set_prepared_statement_cache_capacity(64);
    Ok(())
}

/// Switches the file to write-ahead logging (a property of the file).
pub(crate) fn use_wal(conn: &Connection) -> Result<(), StoreError> {
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
    if mode.eq_ignore_ascii_case("wal") {
        Ok(())
    } else {
        Err(StoreError::io_message(
            "enabling write-ahead logging",
            format!("SQLite kept journal mode {mode}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::StatementStatus;

    use super::*;

    /// A statement taken again from the cache runs the plan it was compiled
    /// with, whatever was bound to it before: with plans that may depend on
    /// bound values, the interfaces of a device (a table with a second
    /// index) were compiled again at every read and every PATCH.
    #[test]
    fn a_cached_statement_is_not_compiled_again_for_new_values() {
        let dir = tempfile::tempdir().unwrap();
        let conn = connect(&dir.path().join("net.sqlite"), Duration::from_secs(1), true).unwrap();
        crate::schema::create_version_1(&conn).unwrap();
        crate::schema::prepare(&conn).unwrap();
        let sql = "SELECT identifier, role_id, x, y, z FROM interfaces WHERE device_id = ?1 ORDER BY identifier";
        for device_id in 1..=4 {
            let mut statement = conn.prepare_cached(sql).unwrap();
            assert_eq!(
                statement
                    .query_map([device_id], |_| Ok(()))
                    .unwrap()
                    .count(),
                0
            );
        }
        let statement = conn.prepare_cached(sql).unwrap();
        assert_eq!(statement.get_status(StatementStatus::RePrepare), 0);
        assert_eq!(statement.get_status(StatementStatus::Run), 4);
    }
}
