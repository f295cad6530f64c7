//! The change history of a configuration (decisions §10), kept in its own
//! file so that a downloaded file carries it.
//!
//! Every change the writer thread runs is journalled: `history` gets one
//! entry (who, when, which request, a one-line summary) and `history_undo`
//! one row for each row the change added, changed or removed, holding what
//! puts that row back (the old values, or the key of a row to remove). The
//! undo rows are written by `TEMP` triggers that the writer connection
//! creates when it opens ([`install_triggers`]): they are not part of the
//! file's schema (an uploaded file's schema must equal ours, and SQL from a
//! file never runs), and only the writer, the one connection that changes
//! a configuration's content, needs them.
//!
//! A restore to change `n` replays the undo rows of every later change,
//! newest first, as one new change (whose own undo rows let it be undone in
//! turn). What it costs: per change, one entry (about 100 bytes) and one
//! undo row per row touched (the row's old values as JSON, 50 to 300
//! bytes); a restore reads and replays the undo rows of the changes since
//! its target. How many entries are kept, and for how long, is the
//! store's retention ([`crate::retention`]): a restore to a change pruned
//! is refused.
//!
//! Notifications and the cached device data are not content: the engine
//! writes them, and a restore leaves them as they are (a request that marks
//! notifications read is journalled, with nothing to undo).

use std::collections::HashMap;

use netcfg_model::{ChangeRecord, HistoryEntry};
use rusqlite::{Connection, types::Value};

use netcfg_model::time::clock::wall_clock_ms_signed;

use crate::error::{ConflictKind, Missing, StoreError};

/// The tables whose rows a restore puts back: a configuration's content.
pub(crate) const TRACKED: [&str; 14] = [
    "configuration",
    "roles",
    "devices",
    "interfaces",
    "device_pairs",
    "magnetometer_calibrations",
    "rf_settings",
    "data_streams",
    "position_limits",
    "settings",
    "alert_rules",
    "schedules",
    "zones",
    "outputs",
];

/// The id the change being run gets: one more than the newest entry. The
/// triggers read it the same way, and the entry is written at the end of
/// the change, so both agree.
const NEXT_ID: &str = "(SELECT coalesce(max(id), 0) + 1 FROM main.history)";

/// An undo row's id is its change's id shifted left by this many bits,
/// plus its place among the change's rows (from 1), schema v10: a change's
/// rows are one range of ids, and a new row goes at the end of the table.
const PLACE_BITS: u32 = 24;

/// The id the running change gets ([`NEXT_ID`]) and the largest undo row
/// id (whose change tells whether this change wrote undo rows).
static JOURNAL_STATE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!("SELECT {NEXT_ID}, (SELECT max(id) FROM main.history_undo)")
});

/// The first undo row id of change `id` (the ids of changes beyond 2^39
/// do not exist).
fn first_undo_of(id: i64) -> i64 {
    id.saturating_mul(1 << PLACE_BITS)
}

#[path = "history_diff.rs"]
mod diff;

/// One column of a tracked table: its name and whether it is part of the
/// primary key.
#[derive(Debug, Clone)]
struct Column {
    name: String,
    key: bool,
}

/// The columns of each tracked table, read from the file itself.
fn columns(conn: &Connection) -> Result<HashMap<&'static str, Vec<Column>>, StoreError> {
    let mut tables = HashMap::with_capacity(TRACKED.len());
    for table in TRACKED {
        let mut statement = conn.prepare(&format!("PRAGMA main.table_info(\"{table}\")"))?;
        let columns = statement
            .query_map([], |row| {
                Ok(Column {
                    name: row.get(1)?,
                    key: row.get::<_, i64>(5)? > 0,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        if columns.is_empty() {
            return Err(StoreError::io_message(
                "reading the schema",
                format!("the table {table} is missing"),
            ));
        }
        tables.insert(table, columns);
    }
    Ok(tables)
}

fn json_object(row: &str, columns: &[&Column]) -> String {
    let pairs: Vec<String> = columns
        .iter()
        .map(|column| format!("'{0}', {row}.\"{0}\"", column.name))
        .collect();
    format!("json_object({})", pairs.join(", "))
}

/// Creates the triggers that write the undo rows, on the writer
/// connection (`TEMP`: they live as long as the connection and are not
/// part of the file).
pub(crate) fn install_triggers(conn: &Connection) -> Result<(), StoreError> {
    let mut script = String::new();
    // The row's id (schema v10): after the table's last row when that is
    // the running change's, else its change's first.
    let next_undo_id = format!(
        "max((SELECT coalesce(max(id), 0) FROM main.history_undo) + 1, ({NEXT_ID} << {PLACE_BITS}) + 1)"
    );
    for (table, columns) in columns(conn)? {
        let all: Vec<&Column> = columns.iter().collect();
        let keys: Vec<&Column> = columns.iter().filter(|column| column.key).collect();
        let changed: Vec<String> = columns
            .iter()
            .map(|column| format!("OLD.\"{0}\" IS NOT NEW.\"{0}\"", column.name))
            .collect();
        let undo = |action: &str, key: &str, old: &str| {
            format!(
                "INSERT INTO main.history_undo (id, table_name, action, key, old) \
                 VALUES ({next_undo_id}, '{table}', '{action}', {key}, {old});"
            )
        };
        script.push_str(&format!(
            "CREATE TEMP TRIGGER IF NOT EXISTS undo_insert_{table} AFTER INSERT ON main.\"{table}\" \
             BEGIN {} END;\n",
            undo("delete", &json_object("NEW", &keys), "NULL")
        ));
        script.push_str(&format!(
            "CREATE TEMP TRIGGER IF NOT EXISTS undo_delete_{table} AFTER DELETE ON main.\"{table}\" \
             BEGIN {} END;\n",
            undo("insert", "NULL", &json_object("OLD", &all))
        ));
        script.push_str(&format!(
            "CREATE TEMP TRIGGER IF NOT EXISTS undo_update_{table} AFTER UPDATE ON main.\"{table}\" \
             WHEN {} BEGIN {} END;\n",
            changed.join(" OR "),
            undo("update", &json_object("NEW", &keys), &json_object("OLD", &all))
        ));
    }
    conn.execute_batch(&script)?;
    Ok(())
}

fn next_id(conn: &Connection) -> Result<i64, StoreError> {
    Ok(conn
        .prepare_cached(&format!("SELECT {NEXT_ID}"))?
        .query_row([], |row| row.get(0))?)
}

/// An id as SQLite stores it (ids beyond `i64` do not exist).
fn stored(id: u64) -> i64 {
    i64::try_from(id).unwrap_or(i64::MAX)
}

/// Runs one change (on the writer, inside its savepoint) and journals it:
/// an entry for every change a request made (`record`), and for a local
/// change that touched the content. When `change` fails, its savepoint is
/// rolled back, undo rows included, and nothing is journalled.
pub(crate) fn journaled<T>(
    conn: &Connection,
    record: Option<&ChangeRecord>,
    change: impl FnOnce(&Connection) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let value = change(conn)?;
    // The change's id and the last undo row, in one statement: this runs
    // for every change.
    let (id, last_undo): (i64, Option<i64>) = conn
        .prepare_cached(&JOURNAL_STATE)?
        .query_row([], |row| Ok((row.get(0)?, row.get(1)?)))?;
    // The rows of a change stay in its range: the one after its last
    // place would have place 0, which the table's check refuses.
    let touched_content = last_undo.is_some_and(|last| last >= first_undo_of(id));
    if touched_content {
        crate::stamps::note_content();
    } else if record.is_none() {
        return Ok(value);
    }
    let local = ChangeRecord::local();
    let record = record.unwrap_or(&local);
    // What the change did is counted from its undo rows when the history
    // is read (`list`), which keeps the writer's work per change small.
    let origin = if record.origin.is_empty() {
        ChangeRecord::LOCAL
    } else {
        &record.origin
    };
    conn.prepare_cached(
        "INSERT INTO history (id, timestamp_ms, origin, address, method, path, summary)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?
    .execute(rusqlite::params![
        id,
        wall_clock_ms_signed(),
        clip(origin, 64),
        record
            .address
            .as_deref()
            .filter(|address| !address.is_empty())
            .map(|address| clip(address, 64)),
        record.method,
        clip(&record.path, 2048),
        clip(&record.summary, 1024),
    ])?;
    Ok(value)
}

/// Journals a pruning of the history ([`crate::retention`]) as an entry of
/// its own: origin `local`, no request, `summary` saying what goes.
pub(crate) fn record_pruning(conn: &Connection, summary: &str) -> Result<(), StoreError> {
    conn.prepare_cached(&format!(
        "INSERT INTO history (id, timestamp_ms, origin, method, path, summary)
         VALUES ({NEXT_ID}, ?1, ?2, '', '', ?3)"
    ))?
    .execute(rusqlite::params![
        wall_clock_ms_signed(),
        ChangeRecord::LOCAL,
        clip(summary, 1024),
    ])?;
    Ok(())
}

/// The first undo row a kept entry may own: rows below it belong to
/// entries pruned ([`crate::retention`]).
pub(crate) fn first_undo_kept(conn: &Connection) -> Result<i64, StoreError> {
    Ok(first_undo_of(
        oldest_entry(conn)?.unwrap_or(i64::MAX >> PLACE_BITS),
    ))
}

/// The id of the oldest entry kept.
fn oldest_entry(conn: &Connection) -> Result<Option<i64>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT min(id) FROM history")?
        .query_row([], |row| row.get(0))?)
}

/// `text` cut to at most `limit` characters (the schema's bounds). Text
/// that fits (no more bytes than `limit`, so no more characters) is not
/// copied: this runs for every change, on the writer.
fn clip(text: &str, limit: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= limit {
        std::borrow::Cow::Borrowed(text)
    } else {
        text.chars().take(limit).collect()
    }
}

/// The entries older than `before` (all when `None`), newest first, at most
/// `limit`, each summary ending with what the change did ("Add a device:
/// 1 device added, 1 interface added").
pub(crate) fn list(
    conn: &Connection,
    before: Option<u64>,
    limit: u32,
) -> Result<Vec<HistoryEntry>, StoreError> {
    let mut entries = entries(conn, before, limit)?;
    for entry in &mut entries {
        let id = stored(entry.id);
        let tally = crate::history_words::tally(
            conn,
            (first_undo_of(id), first_undo_of(id.saturating_add(1))),
        )?;
        entry.summary = match (entry.summary.is_empty(), tally.is_empty()) {
            (true, true) => "nothing changed".to_owned(),
            (false, true) => std::mem::take(&mut entry.summary),
            (true, false) => tally,
            (false, false) => format!("{}: {tally}", entry.summary),
        };
    }
    Ok(entries)
}

/// The entries as stored (the request's own summary).
fn entries(
    conn: &Connection,
    before: Option<u64>,
    limit: u32,
) -> Result<Vec<HistoryEntry>, StoreError> {
    let mut statement = conn.prepare_cached(
        "SELECT id, timestamp_ms, origin, address, method, path, summary FROM history
         WHERE id < ?1 ORDER BY id DESC LIMIT ?2",
    )?;
    let before = before.map_or(i64::MAX, stored);
    let rows = statement.query_map(rusqlite::params![before, limit], |row| {
        Ok(HistoryEntry {
            id: crate::sql::get::<u64, i64>(row, 0)?,
            timestamp_ms: crate::sql::get::<u64, i64>(row, 1)?,
            origin: row.get(2)?,
            address: row.get(3)?,
            method: row.get(4)?,
            path: row.get(5)?,
            summary: row.get(6)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// One undo row, read back.
struct Undo {
    table: String,
    action: String,
    key: Option<String>,
    old: Option<String>,
}

/// Puts the content back to what it was right after change `target`: the
/// undo rows of every later change, newest first. Runs inside a change (on
/// the writer), so its own undo rows make it one more change.
pub(crate) fn restore(conn: &Connection, target: u64) -> Result<(), StoreError> {
    let known = crate::sql::exists(
        conn,
        "SELECT 1 FROM history WHERE id = ?1",
        [stored(target)],
    )?;
    if !known {
        let oldest = oldest_entry(conn)?;
        if let Some(oldest) = oldest.filter(|oldest| (1..*oldest).contains(&stored(target))) {
            return Err(StoreError::Conflict {
                kind: ConflictKind::HistoryPruned,
                what: format!("change {target}"),
                why: format!(
                    "the history was pruned: the oldest change kept is {oldest}, and a restore reaches back to it, no further"
                ),
            });
        }
        return Err(StoreError::not_found(
            Missing::HistoryEntry,
            format!("change {target}"),
        ));
    }
    let current = next_id(conn)?;
    let undos: Vec<Undo> = conn
        .prepare(
            "SELECT table_name, action, key, old FROM history_undo
             WHERE id >= ?1 AND id < ?2 ORDER BY id DESC",
        )?
        .query_map(
            [
                first_undo_of(stored(target).saturating_add(1)),
                first_undo_of(current),
            ],
            |row| {
                Ok(Undo {
                    table: row.get(0)?,
                    action: row.get(1)?,
                    key: row.get(2)?,
                    old: row.get(3)?,
                })
            },
        )?
        .collect::<Result<_, _>>()?;
    let tables = columns(conn)?;
    // Rows come back in the reverse of the order they changed in, but one
    // statement (a delete that cascades) changed several: a child may come
    // back before its parent. Foreign keys are checked once, at the end.
    conn.execute_batch("PRAGMA defer_foreign_keys = ON")?;
    let restored = restore_as_difference(conn, &tables, &undos);
    conn.execute_batch("PRAGMA defer_foreign_keys = OFF")?;
    restored?.map_err(|why| StoreError::Conflict {
        kind: ConflictKind::HistoryDiverged,
        what: format!("the history since change {target}"),
        why,
    })
}

/// Replays `undos` in a savepoint to find the content they lead to, rolls
/// it back and writes only what differs ([`diff`]), so that the restore's
/// own undo rows are no more than the rows it changes. Where the
/// difference cannot be written as it is (a unique value two rows swap),
/// the undo rows are replayed for good instead. The inner result is why
/// the history does not fit the content.
fn restore_as_difference(
    conn: &Connection,
    tables: &HashMap<&'static str, Vec<Column>>,
    undos: &[Undo],
) -> Result<Result<(), String>, StoreError> {
    let replay_all = || {
        undos
            .iter()
            .try_for_each(|undo| replay(conn, tables, undo))
            .and_then(|()| check_foreign_keys(conn))
    };
    let now = diff::Content::read(conn, tables)?;
    conn.execute_batch("SAVEPOINT restore_target")?;
    let target = match replay_all() {
        Ok(()) => diff::Content::read(conn, tables),
        Err(why) => {
            conn.execute_batch("ROLLBACK TO restore_target; RELEASE restore_target")?;
            return Ok(Err(why));
        }
    };
    conn.execute_batch(
        "ROLLBACK TO restore_target; RELEASE restore_target; PRAGMA defer_foreign_keys = ON",
    )?;
    let target = target?;
    conn.execute_batch("SAVEPOINT restore_difference")?;
    match diff::apply(conn, tables, &now, &target).and_then(|()| check_foreign_keys(conn)) {
        Ok(()) => {
            conn.execute_batch("RELEASE restore_difference")?;
            Ok(Ok(()))
        }
        Err(why) => {
            log::debug!("a restore's difference could not be written ({why}): replaying it");
            conn.execute_batch(
                "ROLLBACK TO restore_difference; RELEASE restore_difference; PRAGMA defer_foreign_keys = ON",
            )?;
            Ok(replay_all())
        }
    }
}

/// Every foreign key of the content holds (what the deferred checks would
/// have found).
fn check_foreign_keys(conn: &Connection) -> Result<(), String> {
    for table in TRACKED {
        let broken = conn
            .prepare(&format!("PRAGMA main.foreign_key_check(\"{table}\")"))
            .and_then(|mut statement| statement.exists([]))
            .map_err(|error| error.to_string())?;
        if broken {
            return Err(format!(
                "restoring would leave a row of {table} referring to a row that does not exist"
            ));
        }
    }
    Ok(())
}

/// The values of `json` (an object) for `columns`, in their order: exactly
/// those columns, or why not.
fn values_of(json: Option<&str>, columns: &[&Column]) -> Result<Vec<Value>, String> {
    let damaged = || "the history holds a damaged row".to_owned();
    let json = json.ok_or_else(damaged)?;
    let serde_json::Value::Object(object) =
        serde_json::from_str::<serde_json::Value>(json).map_err(|_| damaged())?
    else {
        return Err(damaged());
    };
    if object.len() != columns.len() {
        return Err(damaged());
    }
    columns
        .iter()
        .map(|column| match object.get(&column.name) {
            None => Err(damaged()),
            Some(serde_json::Value::Null) => Ok(Value::Null),
            Some(serde_json::Value::Bool(flag)) => Ok(Value::Integer(i64::from(*flag))),
            Some(serde_json::Value::Number(number)) => number
                .as_i64()
                .map(Value::Integer)
                .or_else(|| number.as_f64().map(Value::Real))
                .ok_or_else(damaged),
            Some(serde_json::Value::String(text)) => Ok(Value::Text(text.clone())),
            Some(_) => Err(damaged()),
        })
        .collect()
}

/// `"a" IS ?1 AND "b" IS ?2`, numbered from `first`.
fn matching(columns: &[&Column], first: usize) -> String {
    columns
        .iter()
        .enumerate()
        .map(|(index, column)| format!("\"{}\" IS ?{}", column.name, first + index))
        .collect::<Vec<_>>()
        .join(" AND ")
}

/// Replays one undo row. A row already as it must be (a cascade of an
/// earlier replayed row put it there) is fine; anything else that does not
/// fit means the file's content and history disagree.
fn replay(
    conn: &Connection,
    tables: &HashMap<&'static str, Vec<Column>>,
    undo: &Undo,
) -> Result<(), String> {
    let columns = tables
        .get(undo.table.as_str())
        .ok_or_else(|| format!("the history names an unknown table {}", undo.table))?;
    let table = &undo.table;
    let all: Vec<&Column> = columns.iter().collect();
    let keys: Vec<&Column> = columns.iter().filter(|column| column.key).collect();
    let sql_error = |error: rusqlite::Error| format!("{table}: {error}");
    let already = |values: &[Value]| -> Result<bool, String> {
        let sql = format!("SELECT 1 FROM main.\"{table}\" WHERE {}", matching(&all, 1));
        conn.prepare_cached(&sql)
            .and_then(|mut statement| statement.exists(rusqlite::params_from_iter(values)))
            .map_err(sql_error)
    };
    let differs = || format!("a row of {table} is not what the history says it was");
    let statements = diff::Statements::of(table, columns);
    match undo.action.as_str() {
        "delete" => {
            let key = values_of(undo.key.as_deref(), &keys)?;
            conn.prepare_cached(&statements.delete)
                .and_then(|mut statement| statement.execute(rusqlite::params_from_iter(&key)))
                .map_err(sql_error)?;
        }
        "insert" => {
            let old = values_of(undo.old.as_deref(), &all)?;
            let inserted = conn
                .prepare_cached(&statements.insert)
                .and_then(|mut statement| statement.execute(rusqlite::params_from_iter(&old)));
            if let Err(error) = inserted
                && !already(&old)?
            {
                return Err(sql_error(error));
            }
        }
        "update" => {
            let key = values_of(undo.key.as_deref(), &keys)?;
            let old = values_of(undo.old.as_deref(), &all)?;
            let parameters = old.iter().chain(key.iter());
            let updated = conn
                .prepare_cached(&statements.update)
                .and_then(|mut statement| statement.execute(rusqlite::params_from_iter(parameters)))
                .map_err(sql_error)?;
            if updated == 0 && !already(&old)? {
                return Err(differs());
            }
        }
        other => return Err(format!("the history holds an unknown action {other}")),
    }
    Ok(())
}

/// Checks an uploaded file's history: every undo row names exactly the
/// columns of its table, so a restore can replay it. Undo rows below the
/// oldest entry are what a pruning had yet to remove: no restore reads them.
pub(crate) fn check(conn: &Connection) -> Result<(), StoreError> {
    entries(conn, None, u32::MAX)?;
    let orphan = crate::sql::exists(
        conn,
        &format!(
            "SELECT 1 FROM history_undo WHERE id >= ?1 AND id >> {PLACE_BITS} NOT IN (SELECT id FROM history)"
        ),
        [first_undo_kept(conn)?],
    )?;
    if orphan {
        return Err(StoreError::io_message(
            "reading the history",
            "an undo row belongs to no change",
        ));
    }
    let tables = columns(conn)?;
    let mut statement = conn.prepare("SELECT table_name, action, key, old FROM history_undo")?;
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        let undo = Undo {
            table: row.get(0)?,
            action: row.get(1)?,
            key: row.get(2)?,
            old: row.get(3)?,
        };
        let shape_ok = tables.get(undo.table.as_str()).is_some_and(|columns| {
            let all: Vec<&Column> = columns.iter().collect();
            let keys: Vec<&Column> = columns.iter().filter(|column| column.key).collect();
            let key_ok = undo.key.is_none() || values_of(undo.key.as_deref(), &keys).is_ok();
            let old_ok = undo.old.is_none() || values_of(undo.old.as_deref(), &all).is_ok();
            key_ok && old_ok
        });
        if !shape_ok {
            return Err(StoreError::io_message(
                "reading the history",
                format!("an undo row of {} is damaged", undo.table),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A current file in memory, with the writer's triggers.
    fn journal() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        crate::schema::create_version_1(&conn).unwrap();
        crate::schema::prepare(&conn).unwrap();
        install_triggers(&conn).unwrap();
        conn
    }

    fn undo_ids(conn: &Connection) -> Vec<i64> {
        conn.prepare("SELECT id FROM history_undo ORDER BY id")
            .unwrap()
            .query_map([], |row| row.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }

    fn add_devices(conn: &Connection, serials: std::ops::Range<i64>) -> Result<(), StoreError> {
        for serial in serials {
            conn.execute(
                "INSERT INTO devices (serial_number, disabled) VALUES (?1, 0)",
                [serial],
            )?;
        }
        Ok(())
    }

    #[test]
    fn each_change_numbers_its_undo_rows_from_the_start_of_its_own_range() {
        let conn = journal();
        journaled(&conn, None, |conn| add_devices(conn, 1..4)).unwrap();
        journaled(&conn, None, |conn| add_devices(conn, 4..6)).unwrap();
        let first = 1 << PLACE_BITS;
        let second = 2 << PLACE_BITS;
        assert_eq!(
            undo_ids(&conn),
            [first + 1, first + 2, first + 3, second + 1, second + 2]
        );
        let second_rows = (second, 3 << PLACE_BITS);
        assert_eq!(
            crate::history_words::tally(&conn, second_rows).unwrap(),
            "devices 00:00:0004, 00:00:0005 added"
        );
    }

    #[test]
    fn a_change_whose_undo_rows_would_reach_the_next_change_fails() {
        let conn = journal();
        conn.execute_batch("SAVEPOINT change").unwrap();
        let failed = journaled(&conn, None, |conn| {
            // As if the change had touched 2^24 - 1 rows already.
            conn.execute(
                "INSERT INTO history_undo (id, table_name, action, key, old)
                 VALUES ((2 << 24) - 1, 'devices', 'delete', '{}', NULL)",
                [],
            )?;
            add_devices(conn, 1..2)
        });
        assert!(matches!(&failed, Err(StoreError::Invalid(_))), "{failed:?}");
        conn.execute_batch("ROLLBACK TO change; RELEASE change")
            .unwrap();
        journaled(&conn, None, |conn| add_devices(conn, 1..2)).unwrap();
        assert_eq!(undo_ids(&conn), [(1 << PLACE_BITS) + 1]);
    }
}
