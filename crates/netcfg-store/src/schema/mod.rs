//! The file's schema: its identity (`application_id`), its version
//! (`user_version`), the frozen text of version 1 and the migrations after it.
//!
//! A new file is made from [`V1`] plus every migration, so a file created
//! today and a file migrated from version 1 have the very same schema; the
//! upload check relies on that to compare an uploaded file's tables with the
//! tables its version should have.
//!
//! A check on a table written by every change lists its allowed values as
//! comparisons joined by `OR`, not as `IN (...)`: SQLite checks a list of
//! more than two values by building a temporary b-tree of it at every row
//! (v9.sql; the older migrations are frozen as they were).

use rusqlite::Connection;

use crate::error::{BadUpload, StoreError};

/// The `application_id` of every netcfg configuration file: the ASCII bytes
/// `NCFG` (0x4E434647). `file(1)` and other tools can tell our files apart
/// from other SQLite databases by it.
pub const APPLICATION_ID: u32 = 0x4E43_4647;

/// The schema version this program writes (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i64 = 11;

/// Version 1, frozen.
const V1: &str = include_str!("v1.sql");

/// `MIGRATIONS[n]` takes a file from version `n + 1` to version `n + 2`.
const MIGRATIONS: [&str; 10] = [
    include_str!("v2.sql"),
    include_str!("v3.sql"),
    include_str!("v4.sql"),
    include_str!("v5.sql"),
    include_str!("v6.sql"),
    include_str!("v7.sql"),
    include_str!("v8.sql"),
    include_str!("v9.sql"),
    include_str!("v10.sql"),
    include_str!("v11.sql"),
];

/// One row of `sqlite_schema`: type, name, table name, SQL text.
pub(crate) type SchemaRow = (String, String, String, Option<String>);

/// Makes an empty database a version-1 file.
pub(crate) fn create_version_1(conn: &Connection) -> Result<(), StoreError> {
    // Set before the first table, outside the transaction: SQLite takes
    // the vacuum mode of a file only while it is empty (crate::retention).
    conn.execute_batch(&format!(
        "PRAGMA auto_vacuum = INCREMENTAL; BEGIN IMMEDIATE; PRAGMA application_id = {APPLICATION_ID}; {V1} PRAGMA user_version = 1; COMMIT;"
    ))?;
    Ok(())
}

/// The file's `application_id` and `user_version`.
pub(crate) fn identity(conn: &Connection) -> rusqlite::Result<(u32, i64)> {
    let application_id: i64 = conn.query_row("PRAGMA application_id", [], |row| row.get(0))?;
    let version: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
    // application_id is a signed 32-bit field; read it back as its bits.
    Ok((application_id as i32 as u32, version))
}

/// Migrates the file from `from` to `to` in one transaction: a crash leaves
/// either the old version or the new one.
pub(crate) fn migrate(conn: &Connection, from: i64, to: i64) -> Result<(), StoreError> {
    if from >= to {
        return Ok(());
    }
    let mut script = String::from("BEGIN IMMEDIATE;\n");
    for version in from..to {
        let step = usize::try_from(version - 1)
            .ok()
            .and_then(|index| MIGRATIONS.get(index))
            .ok_or_else(|| {
                StoreError::io_message("migration", format!("no migration from version {version}"))
            })?;
        script.push_str(step);
        script.push('\n');
    }
    script.push_str(&format!("PRAGMA user_version = {to};\nCOMMIT;"));
    if let Err(error) = conn.execute_batch(&script) {
        // A failed step leaves the transaction open; undo it before reporting.
        let _ = conn.execute_batch("ROLLBACK");
        return Err(error.into());
    }
    Ok(())
}

/// Brings a file of ours up to [`SCHEMA_VERSION`]: refuses another
/// application's file and a newer schema.
pub(crate) fn prepare(conn: &Connection) -> Result<(), StoreError> {
    let (application_id, version) = identity(conn)?;
    if application_id != APPLICATION_ID {
        return Err(StoreError::io_message(
            "opening",
            format!("not a netcfg configuration file (application_id {application_id:#010x})"),
        ));
    }
    if version > SCHEMA_VERSION {
        return Err(StoreError::NewerSchema {
            what: "the configuration file".to_owned(),
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    if version < 1 {
        return Err(StoreError::io_message(
            "opening",
            format!("the file has no schema version ({version})"),
        ));
    }
    migrate(conn, version, SCHEMA_VERSION)
}

/// The schema objects of a database, sorted by name.
pub(crate) fn schema_of(conn: &Connection) -> rusqlite::Result<Vec<SchemaRow>> {
    let mut statement =
        conn.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name, type")?;
    let rows = statement.query_map([], |row| {
        Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
    })?;
    rows.collect()
}

/// The schema a file of `version` must have.
pub(crate) fn expected_schema(version: i64) -> Result<Vec<SchemaRow>, StoreError> {
    let conn = Connection::open_in_memory()?;
    create_version_1(&conn)?;
    migrate(&conn, 1, version)?;
    Ok(schema_of(&conn)?)
}

/// Checks an uploaded file's identity and tables; on success returns its version.
pub(crate) fn check_upload(conn: &Connection) -> Result<i64, StoreError> {
    let (application_id, version) = identity(conn)?;
    if application_id != APPLICATION_ID {
        return Err(StoreError::BadUpload(BadUpload::OtherApplication {
            found: application_id,
            expected: APPLICATION_ID,
        }));
    }
    if version > SCHEMA_VERSION {
        return Err(StoreError::BadUpload(BadUpload::NewerSchema {
            found: version,
            supported: SCHEMA_VERSION,
        }));
    }
    if version < 1 {
        return Err(StoreError::BadUpload(BadUpload::SchemaMismatch {
            version,
            detail: "the file has no schema version".to_owned(),
        }));
    }
    let expected = expected_schema(version)?;
    let found = schema_of(conn)?;
    if let Some(detail) = first_difference(&expected, &found) {
        return Err(StoreError::BadUpload(BadUpload::SchemaMismatch {
            version,
            detail,
        }));
    }
    Ok(version)
}

fn first_difference(expected: &[SchemaRow], found: &[SchemaRow]) -> Option<String> {
    for row in expected {
        match found
            .iter()
            .find(|other| other.0 == row.0 && other.1 == row.1)
        {
            None => return Some(format!("{} `{}` is missing", row.0, row.1)),
            Some(other) if other != row => {
                return Some(format!("{} `{}` is defined differently", row.0, row.1));
            }
            Some(_) => {}
        }
    }
    found
        .iter()
        .find(|row| {
            !expected
                .iter()
                .any(|other| other.0 == row.0 && other.1 == row.1)
        })
        .map(|row| format!("{} `{}` is not part of the schema", row.0, row.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_migrated_from_version_1_has_the_schema_of_a_new_file() {
        let conn = Connection::open_in_memory().unwrap();
        create_version_1(&conn).unwrap();
        assert_eq!(identity(&conn).unwrap(), (APPLICATION_ID, 1));
        prepare(&conn).unwrap();
        assert_eq!(identity(&conn).unwrap(), (APPLICATION_ID, SCHEMA_VERSION));
        assert_eq!(
            schema_of(&conn).unwrap(),
            expected_schema(SCHEMA_VERSION).unwrap()
        );
        assert_eq!(check_upload(&conn).unwrap(), SCHEMA_VERSION);
    }

    #[test]
    fn every_version_has_a_migration() {
        assert_eq!(MIGRATIONS.len() as i64, SCHEMA_VERSION - 1);
        assert_ne!(expected_schema(1).unwrap(), expected_schema(2).unwrap());
    }

    #[test]
    fn an_extra_table_is_a_schema_mismatch() {
        let conn = Connection::open_in_memory().unwrap();
        create_version_1(&conn).unwrap();
        conn.execute_batch("CREATE TABLE intruder (x)").unwrap();
        let error = check_upload(&conn).unwrap_err();
        assert!(
            matches!(&error, StoreError::BadUpload(BadUpload::SchemaMismatch { detail, .. }) if detail.contains("intruder")),
            "{error}"
        );
    }

    /// An empty file of schema `version`, in memory.
    fn file_of_version(version: i64) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        create_version_1(&conn).unwrap();
        migrate(&conn, 1, version).unwrap();
        conn
    }

    /// Each of `statements` is refused by a `CHECK` of the file's tables.
    fn assert_refused_by_checks(conn: &Connection, statements: &[&str]) {
        for refused in statements {
            let error = conn.execute_batch(refused).unwrap_err();
            assert!(
                error.to_string().contains("CHECK constraint failed"),
                "{refused}: {error}"
            );
        }
    }

    /// Version 9 writes the journal's list checks as comparisons: a
    /// version-8 file keeps its rows, and the new checks refuse what the
    /// lists refused.
    #[test]
    fn version_9_keeps_the_journal_and_its_checks() {
        let conn = file_of_version(8);
        conn.execute_batch(
            "INSERT INTO history (id, timestamp_ms, origin, method, path, summary)
                 VALUES (1, 5, 'local', 'PATCH', '/nets/a/devices/1', 'renamed');
             INSERT INTO history_undo (change_id, seq, table_name, action, key, old)
                 VALUES (1, 1, 'devices', 'update', '{\"id\":1}', '{\"id\":1,\"name\":\"a\"}'),
                        (1, 2, 'interfaces', 'delete', '{\"device_id\":1}', NULL);",
        )
        .unwrap();
        let rows = |conn: &Connection| {
            let mut statement = conn
                .prepare(
                    "SELECT json_array(change_id, seq, table_name, action, key, old) FROM history_undo
                     UNION ALL SELECT json_array(id, timestamp_ms, origin, address, method, path, summary)
                     FROM history",
                )
                .unwrap();
            statement
                .query_map([], |row| row.get::<_, String>(0))
                .unwrap()
                .collect::<Result<Vec<_>, _>>()
                .unwrap()
        };
        let before = rows(&conn);
        migrate(&conn, 8, 9).unwrap();
        assert_eq!(rows(&conn), before);
        assert_eq!(schema_of(&conn).unwrap(), expected_schema(9).unwrap());
        assert_refused_by_checks(
            &conn,
            &[
                "INSERT INTO history (id, timestamp_ms, origin, method, path, summary)
                     VALUES (2, 5, 'local', 'GET', '/', '')",
                "INSERT INTO history_undo (change_id, seq, table_name, action, key, old)
                     VALUES (2, 1, 'history', 'update', '{}', '{}')",
                "INSERT INTO history_undo (change_id, seq, table_name, action, key, old)
                     VALUES (2, 1, 'devices', 'upsert', '{}', '{}')",
            ],
        );
    }

    /// Version 10 keeps the undo rows in a rowid table, each id its
    /// change's id times 2^24 plus its place: a version-9 file keeps every
    /// row, in order, numbered within its change.
    #[test]
    fn version_10_numbers_the_undo_rows_within_their_change() {
        let conn = file_of_version(9);
        conn.execute_batch(
            "INSERT INTO history_undo (change_id, seq, table_name, action, key, old)
                 VALUES (1, 7, 'devices', 'update', '{\"id\":1}', '{\"id\":1,\"name\":\"a\"}'),
                        (3, 2, 'roles', 'delete', '{\"id\":4}', NULL),
                        (1, 40, 'interfaces', 'insert', NULL, '{\"device_id\":1}');",
        )
        .unwrap();
        migrate(&conn, 9, 10).unwrap();
        assert_eq!(schema_of(&conn).unwrap(), expected_schema(10).unwrap());
        let rows: Vec<(i64, String, String)> = conn
            .prepare("SELECT id, table_name, action FROM history_undo ORDER BY id")
            .unwrap()
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let expected = [
            ((1 << 24) + 1, "devices", "update"),
            ((1 << 24) + 2, "interfaces", "insert"),
            ((3 << 24) + 1, "roles", "delete"),
        ]
        .map(|(id, table, action)| (id, table.to_owned(), action.to_owned()));
        assert_eq!(rows, expected);
        assert_refused_by_checks(
            &conn,
            &[
                // Place 0, then no change.
                "INSERT INTO history_undo (id, table_name, action, key, old)
                     VALUES (4 << 24, 'devices', 'delete', '{}', NULL)",
                "INSERT INTO history_undo (id, table_name, action, key, old)
                     VALUES (5, 'devices', 'delete', '{}', NULL)",
                "INSERT INTO history_undo (id, table_name, action, key, old)
                     VALUES ((4 << 24) + 1, 'history', 'delete', '{}', NULL)",
            ],
        );
    }
}
