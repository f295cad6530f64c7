//! What a change did, in words: "device 01:04:0003 added, 1 interface
//! added", read from the change's undo rows when the history is listed
//! (the writer's work per change stays small).
//!
//! An item is named when its table has a name for people (a device's
//! serial number, a zone's or an output's name) and the change touched at
//! most [`NAMED_AT_MOST`] of them; more are counted. A removed or changed
//! item's name is in its undo row (the old values); an added item's row
//! holds only its key, so its name is read from the item as it is now (an
//! item added and since removed is counted, not named).

use netcfg_model::SerialNumber;
use rusqlite::{Connection, OptionalExtension};

use crate::error::StoreError;

/// How many items of one table and action a summary names; more are
/// counted.
const NAMED_AT_MOST: usize = 3;

/// Words for a table's rows: singular, plural.
fn nouns(table: &str) -> (&'static str, &'static str) {
    match table {
        "configuration" => ("configuration", "configurations"),
        "roles" => ("role", "roles"),
        "devices" => ("device", "devices"),
        "interfaces" => ("interface", "interfaces"),
        "device_pairs" => ("device pair", "device pairs"),
        "magnetometer_calibrations" => ("magnetometer calibration", "magnetometer calibrations"),
        "rf_settings" => ("RF setting", "RF settings"),
        "data_streams" => ("data stream", "data streams"),
        "position_limits" => ("position limit", "position limits"),
        "alert_rules" => ("alert rule", "alert rules"),
        "schedules" => ("schedule", "schedules"),
        "zones" => ("zone", "zones"),
        "outputs" => ("output", "outputs"),
        _ => ("setting", "settings"),
    }
}

/// The column that names a table's items for people, and the column that
/// keys them when that is another one (`None`: the name is the key).
fn naming(table: &str) -> Option<(&'static str, Option<&'static str>)> {
    match table {
        "devices" => Some(("serial_number", Some("id"))),
        "roles" | "data_streams" | "position_limits" => Some(("name", Some("id"))),
        // A setting's key is part of its primary key.
        "settings" => Some(("setting_key", None)),
        "rf_settings" | "alert_rules" | "schedules" | "zones" | "outputs" => Some(("name", None)),
        _ => None,
    }
}

/// "1 device added, 2 interfaces changed": what the change whose undo rows
/// have ids in `rows` did; empty when it did nothing.
pub(crate) fn tally(conn: &Connection, rows: (i64, i64)) -> Result<String, StoreError> {
    let mut statement = conn.prepare_cached(
        "SELECT table_name, action, count(*) FROM history_undo WHERE id >= ?1 AND id < ?2
         GROUP BY table_name, action ORDER BY min(id)",
    )?;
    let groups = statement
        .query_map([rows.0, rows.1], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, i64>(2)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut parts = Vec::with_capacity(groups.len());
    for (table, action, count) in groups {
        let (one, many) = nouns(&table);
        // The undo action is the opposite of what the change did.
        let done = match action.as_str() {
            "delete" => "added",
            "insert" => "removed",
            _ => "changed",
        };
        let names = match usize::try_from(count) {
            Ok(small) if small <= NAMED_AT_MOST => names(conn, rows, &table, &action)?,
            _ => None,
        };
        parts.push(match names {
            Some(names) if names.len() == 1 => format!("{one} {} {done}", names[0]),
            Some(names) => format!("{many} {} {done}", names.join(", ")),
            None if count == 1 => format!("1 {one} {done}"),
            None => format!("{count} {many} {done}"),
        });
    }
    Ok(parts.join(", "))
}

/// The names of the items of `table` the change's `action` rows touched;
/// `None` unless every one has a name.
fn names(
    conn: &Connection,
    rows: (i64, i64),
    table: &str,
    action: &str,
) -> Result<Option<Vec<String>>, StoreError> {
    let Some((column, key)) = naming(table) else {
        return Ok(None);
    };
    let mut statement = conn.prepare_cached(
        "SELECT key, old FROM history_undo WHERE id >= ?1 AND id < ?2
         AND table_name = ?3 AND action = ?4 ORDER BY id",
    )?;
    let undo_rows = statement
        .query_map(rusqlite::params![rows.0, rows.1, table, action], |row| {
            Ok((
                row.get::<_, Option<String>>(0)?,
                row.get::<_, Option<String>>(1)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut names = Vec::with_capacity(undo_rows.len());
    for (key_json, old_json) in undo_rows {
        let from_old = old_json.as_deref().and_then(|old| field(old, column));
        let name = match (from_old, key) {
            (Some(name), _) => Some(name),
            // The name is the key.
            (None, None) => key_json.as_deref().and_then(|json| field(json, column)),
            (None, Some(key)) => match key_json.as_deref().and_then(|json| field(json, key)) {
                Some(id) => match current_name(conn, table, column, key, &id)? {
                    Some(name) => Some(name),
                    None => removed_name(conn, rows.1, table, column, key, &id)?,
                },
                None => None,
            },
        };
        match name {
            Some(name) if table == "devices" => names.push(serial_words(&name)),
            Some(name) => names.push(name),
            None => return Ok(None),
        }
    }
    Ok(Some(names))
}

/// Field `name` of a JSON object, as text.
fn field(json: &str, name: &str) -> Option<String> {
    match serde_json::from_str::<serde_json::Value>(json)
        .ok()?
        .get(name)?
    {
        serde_json::Value::String(text) => Some(text.clone()),
        serde_json::Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

/// The name of the item of `table` whose `key` is `id`, as it is now.
fn current_name(
    conn: &Connection,
    table: &str,
    column: &str,
    key: &str,
    id: &str,
) -> Result<Option<String>, StoreError> {
    // The table and column names come from `naming`, never from input.
    let sql =
        format!("SELECT CAST(\"{column}\" AS TEXT) FROM main.\"{table}\" WHERE \"{key}\" = ?1");
    let id: i64 = id.parse().unwrap_or(-1);
    Ok(conn
        .prepare_cached(&sql)?
        .query_row([id], |row| row.get::<_, Option<String>>(0))
        .optional()?
        .flatten())
}

/// The name of the item of `table` whose `key` was `id`, from the undo
/// row of the change that removed it (after the change whose rows end at
/// `after`): for an item added, then removed. Keys are never reused.
fn removed_name(
    conn: &Connection,
    after: i64,
    table: &str,
    column: &str,
    key: &str,
    id: &str,
) -> Result<Option<String>, StoreError> {
    let id: i64 = id.parse().unwrap_or(-1);
    let old: Option<String> = conn
        .prepare_cached(
            "SELECT old FROM history_undo WHERE id >= ?1 AND table_name = ?2
             AND action = 'insert' AND json_extract(old, '$.' || ?3) = ?4 ORDER BY id LIMIT 1",
        )?
        .query_row(rusqlite::params![after, table, key, id], |row| row.get(0))
        .optional()?;
    Ok(old.as_deref().and_then(|old| field(old, column)))
}

/// A serial number stored as its integer, written as people read it.
fn serial_words(stored: &str) -> String {
    stored
        .parse::<u32>()
        .map(|number| SerialNumber::from_u32(number).to_string())
        .unwrap_or_else(|_| stored.to_owned())
}
