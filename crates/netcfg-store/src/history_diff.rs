//! A restore made as the difference it makes: the content it leads to is
//! found by replaying the undo rows in a savepoint that is then rolled
//! back, and only the rows that differ from the content now are written.
//!
//! Why: the undo rows of a restore are the restore's own journal. Written
//! by replaying every undo row since the target, a restore journalled as
//! many rows as it replayed, so each restore to one early change doubled
//! what the next had to replay: twenty restores to change 1 (the fuzzing
//! of CI) made 6 million undo rows, and a restore that ran for minutes at
//! 1 GB held the configuration's writer. Written as the difference, a
//! restore journals at most one row per row it changes.

use std::collections::HashMap;

use rusqlite::{Connection, types::Value};

use super::{Column, matching};

/// The rows of every tracked table, by their primary key.
pub(super) struct Content {
    tables: HashMap<&'static str, HashMap<String, Row>>,
}

/// A row: its primary key's values and all its values, in the order of
/// its table's columns.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    key: Vec<Value>,
    values: Vec<Value>,
}

/// What a table's rows are known by in a map: the key's values as text.
fn key_text(key: &[Value]) -> String {
    format!("{key:?}")
}

impl Content {
    /// Reads the tracked tables' rows.
    pub(super) fn read(
        conn: &Connection,
        tables: &HashMap<&'static str, Vec<Column>>,
    ) -> Result<Self, rusqlite::Error> {
        let mut content = HashMap::with_capacity(tables.len());
        for (table, columns) in tables {
            let names: Vec<String> = columns
                .iter()
                .map(|column| format!("\"{}\"", column.name))
                .collect();
            let mut statement = conn.prepare(&format!(
                "SELECT {} FROM main.\"{table}\"",
                names.join(", ")
            ))?;
            let mut rows = statement.query([])?;
            let mut read = HashMap::new();
            while let Some(row) = rows.next()? {
                let values = (0..columns.len())
                    .map(|index| row.get::<_, Value>(index))
                    .collect::<Result<Vec<_>, _>>()?;
                let key: Vec<Value> = columns
                    .iter()
                    .zip(&values)
                    .filter(|(column, _)| column.key)
                    .map(|(_, value)| value.clone())
                    .collect();
                read.insert(key_text(&key), Row { key, values });
            }
            content.insert(*table, read);
        }
        Ok(Self { tables: content })
    }
}

/// Changes the content from `now` to `target`: deletes the rows `target`
/// lacks, inserts those it adds and updates those that differ (a row a
/// cascade of the deletes removed is inserted again). Deletes go first, so
/// that a row added under a unique value that a deleted row held finds it
/// free. Foreign keys must be deferred by the caller.
pub(super) fn apply(
    conn: &Connection,
    tables: &HashMap<&'static str, Vec<Column>>,
    now: &Content,
    target: &Content,
) -> Result<(), String> {
    let empty = HashMap::new();
    for (table, columns) in tables {
        let before = now.tables.get(table).unwrap_or(&empty);
        let after = target.tables.get(table).unwrap_or(&empty);
        let statements = Statements::of(table, columns);
        let sql_error = |error: rusqlite::Error| format!("{table}: {error}");
        for (key, row) in before {
            if !after.contains_key(key) {
                conn.prepare_cached(&statements.delete)
                    .and_then(|mut statement| {
                        statement.execute(rusqlite::params_from_iter(&row.key))
                    })
                    .map_err(sql_error)?;
            }
        }
        for (key, row) in after {
            let insert = || {
                conn.prepare_cached(&statements.insert)
                    .and_then(|mut statement| {
                        statement.execute(rusqlite::params_from_iter(&row.values))
                    })
                    .map(drop)
            };
            match before.get(key) {
                None => insert().map_err(sql_error)?,
                Some(was) if was == row => {}
                Some(_) => {
                    let parameters = row.values.iter().chain(row.key.iter());
                    let updated = conn
                        .prepare_cached(&statements.update)
                        .and_then(|mut statement| {
                            statement.execute(rusqlite::params_from_iter(parameters))
                        })
                        .map_err(sql_error)?;
                    if updated == 0 {
                        insert().map_err(sql_error)?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// The statements that delete, insert and update one row of a table (by
/// its key; an insert and an update take every column, in the table's
/// order, an update then the key): what a replayed undo row and a
/// difference both write.
pub(super) struct Statements {
    pub(super) delete: String,
    pub(super) insert: String,
    pub(super) update: String,
}

impl Statements {
    pub(super) fn of(table: &str, columns: &[Column]) -> Self {
        let all: Vec<&Column> = columns.iter().collect();
        let keys: Vec<&Column> = columns.iter().filter(|column| column.key).collect();
        let names: Vec<String> = all
            .iter()
            .map(|column| format!("\"{}\"", column.name))
            .collect();
        let slots: Vec<String> = (1..=all.len()).map(|index| format!("?{index}")).collect();
        let assignments: Vec<String> = all
            .iter()
            .enumerate()
            .map(|(index, column)| format!("\"{}\" = ?{}", column.name, index + 1))
            .collect();
        Self {
            delete: format!("DELETE FROM main.\"{table}\" WHERE {}", matching(&keys, 1)),
            insert: format!(
                "INSERT INTO main.\"{table}\" ({}) VALUES ({})",
                names.join(", "),
                slots.join(", ")
            ),
            update: format!(
                "UPDATE main.\"{table}\" SET {} WHERE {}",
                assignments.join(", "),
                matching(&keys, all.len() + 1)
            ),
        }
    }
}
