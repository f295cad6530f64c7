//! Conversions between SQLite values and the model's types. A value that
//! breaks the model's rules (possible only in a damaged or hand-edited file)
//! becomes an error, never a panic.

use netcfg_model::SerialNumber;
use rusqlite::{Connection, OptionalExtension, Row, types::FromSql, types::Type};

use crate::error::StoreError;

/// An error for a stored value the model refuses.
pub(crate) fn bad_value<E>(index: usize, error: E) -> rusqlite::Error
where
    E: std::error::Error + Send + Sync + 'static,
{
    rusqlite::Error::FromSqlConversionFailure(index, Type::Null, Box::new(error))
}

/// Column `index`, read as `R` and converted to `T` with its `TryFrom`.
pub(crate) fn get<T, R>(row: &Row<'_>, index: usize) -> rusqlite::Result<T>
where
    R: FromSql,
    T: TryFrom<R>,
    T::Error: std::error::Error + Send + Sync + 'static,
{
    let raw: R = row.get(index)?;
    T::try_from(raw).map_err(|error| bad_value(index, error))
}

/// Column `index`, a nullable value converted with `TryFrom`.
pub(crate) fn get_optional<T, R>(row: &Row<'_>, index: usize) -> rusqlite::Result<Option<T>>
where
    R: FromSql,
    T: TryFrom<R>,
    T::Error: std::error::Error + Send + Sync + 'static,
{
    let raw: Option<R> = row.get(index)?;
    raw.map(|raw| T::try_from(raw).map_err(|error| bad_value(index, error)))
        .transpose()
}

/// Column `index`, text read through serde (the model's word enums).
pub(crate) fn get_word<T: serde::de::DeserializeOwned>(
    row: &Row<'_>,
    index: usize,
) -> rusqlite::Result<T> {
    let text: String = row.get(index)?;
    serde_json::from_value(serde_json::Value::String(text)).map_err(|error| bad_value(index, error))
}

/// Column `index`, JSON text read through serde.
pub(crate) fn get_json<T: serde::de::DeserializeOwned>(
    row: &Row<'_>,
    index: usize,
) -> rusqlite::Result<T> {
    let text: String = row.get(index)?;
    serde_json::from_str(&text).map_err(|error| bad_value(index, error))
}

/// The wire word of a model enum (its serde string form).
pub(crate) fn word<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(text)) => text,
        // The model's word enums all serialise to strings.
        other => format!("{other:?}"),
    }
}

/// Column `index`, a serial number stored as its 32-bit value.
pub(crate) fn get_serial(row: &Row<'_>, index: usize) -> rusqlite::Result<SerialNumber> {
    Ok(SerialNumber::from_u32(row.get(index)?))
}

/// The stored form of a serial number.
pub(crate) fn serial(serial: SerialNumber) -> i64 {
    i64::from(serial.as_u32())
}

/// Runs `change` inside a nested savepoint: on error its writes are undone
/// and the enclosing transaction goes on.
pub(crate) fn nested<T>(
    conn: &Connection,
    change: impl FnOnce(&Connection) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    cached(conn, "SAVEPOINT nested")?;
    match change(conn) {
        Ok(value) => {
            cached(conn, "RELEASE nested")?;
            Ok(value)
        }
        Err(error) => {
            cached(conn, "ROLLBACK TO nested")?;
            cached(conn, "RELEASE nested")?;
            Err(error)
        }
    }
}

/// Runs a statement without parameters or rows from the statement cache: a
/// savepoint's statements run for every change, and parsing them again
/// each time was a tenth of the writer's work on a change.
pub(crate) fn cached(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(drop)
}

/// True when `sql` (a query with the given parameters) returns a row.
pub(crate) fn exists(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<bool, StoreError> {
    let mut statement = conn.prepare_cached(sql)?;
    Ok(statement.exists(params)?)
}

/// The row of `table` named `name`, its `columns` read by `read`, if there
/// is one (the tables of named items: outputs, zones, schedules, ...).
pub(crate) fn find_named<T>(
    conn: &Connection,
    table: &'static str,
    columns: &'static str,
    name: &str,
    read: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
) -> Result<Option<T>, StoreError> {
    Ok(conn
        .prepare_cached(&format!("SELECT {columns} FROM {table} WHERE name = ?1"))?
        .query_row([name], read)
        .optional()?)
}

/// Every row of `table` by name, its `columns` read by `read`.
pub(crate) fn list_by_name<T>(
    conn: &Connection,
    table: &'static str,
    columns: &'static str,
    read: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
) -> Result<Vec<T>, StoreError> {
    let mut statement =
        conn.prepare_cached(&format!("SELECT {columns} FROM {table} ORDER BY name"))?;
    let rows = statement.query_map([], read)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Writes a named row: `insert` with `values` when it is new (no
/// `old_name`), else `update` with `values` then `old_name` (its last
/// parameter), which may rename it.
pub(crate) fn insert_or_update(
    conn: &Connection,
    insert: &str,
    update: &str,
    old_name: Option<&str>,
    values: &[&dyn rusqlite::ToSql],
) -> Result<(), StoreError> {
    match old_name {
        None => conn.prepare_cached(insert)?.execute(values)?,
        Some(old_name) => {
            let mut all = values.to_vec();
            all.push(&old_name);
            conn.prepare_cached(update)?.execute(all.as_slice())?
        }
    };
    Ok(())
}

/// The highest id `table` ever used: its AUTOINCREMENT sequence, or its
/// highest row where the sequence has none; `None` when it used none.
pub(crate) fn highest_id_ever(
    conn: &Connection,
    table: &'static str,
) -> Result<Option<i64>, StoreError> {
    Ok(conn.query_row(
        &format!(
            "SELECT max(seq) FROM (SELECT seq FROM sqlite_sequence WHERE name = '{table}'
                                   UNION ALL SELECT max(id) FROM {table})"
        ),
        [],
        |row| row.get(0),
    )?)
}

/// The id after every id `table` ever used (1 for the first); a conflict,
/// `Exhausted`, for `what` when none is left.
pub(crate) fn next_id(
    conn: &Connection,
    table: &'static str,
    what: &'static str,
    exhausted: &'static str,
) -> Result<u32, StoreError> {
    let highest = highest_id_ever(conn, table)?;
    u32::try_from(highest.unwrap_or(0) + 1)
        .map_err(|_| StoreError::conflict(crate::error::ConflictKind::Exhausted, what, exhausted))
}
