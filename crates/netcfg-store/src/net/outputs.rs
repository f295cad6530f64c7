//! Outputs (decisions §14): addressed by name. Only whether each credential
//! is set is kept here; the credentials themselves are the store's
//! `secrets` files' (see `crate::secrets`), written by the caller after the
//! change commits.

use netcfg_model::{
    BatchMs, ItemName, MAX_OUTPUTS, Output, OutputEventKind, OutputSecrets, OutputUrl, Qos, RateHz,
    TopicPrefix,
    body::{OutputPatchBody, OutputPostBody},
};
use rusqlite::{Connection, params};

use super::Net;
use crate::{
    error::{ConflictKind, Missing, StoreError},
    sql::{self, bad_value, get},
};

const COLUMNS: &str = "name, url, events, enabled, topic_prefix, qos, max_rate_hz, batch_ms, \
                       ca_file, username_set, password_set, secret_set";

fn read_output(row: &rusqlite::Row<'_>) -> rusqlite::Result<Output> {
    let url: String = row.get(1)?;
    let events: String = row.get(2)?;
    let topic_prefix: Option<String> = row.get(4)?;
    let qos: Option<u8> = row.get(5)?;
    Ok(Output {
        name: get::<ItemName, String>(row, 0)?,
        url: url
            .parse::<OutputUrl>()
            .map_err(|error| bad_value(1, error))?,
        events: serde_json::from_str::<Vec<OutputEventKind>>(&events)
            .map_err(|error| bad_value(2, error))?,
        enabled: row.get(3)?,
        topic_prefix: topic_prefix
            .map(|prefix| TopicPrefix::try_from(prefix).map_err(|error| bad_value(4, error)))
            .transpose()?,
        qos: qos
            .map(|qos| Qos::try_from(qos).map_err(|error| bad_value(5, error)))
            .transpose()?,
        max_rate_hz: get::<RateHz, f64>(row, 6)?,
        batch_ms: get::<BatchMs, u32>(row, 7)?,
        ca_file: row.get(8)?,
        username_set: row.get(9)?,
        password_set: row.get(10)?,
        secret_set: row.get(11)?,
    })
}

fn find(conn: &Connection, name: &ItemName) -> Result<Option<Output>, StoreError> {
    sql::find_named(conn, "outputs", COLUMNS, name.as_str(), read_output)
}

fn require(conn: &Connection, name: &ItemName) -> Result<Output, StoreError> {
    find(conn, name)?
        .ok_or_else(|| StoreError::not_found(Missing::Output, format!("output {name}")))
}

fn list(conn: &Connection) -> Result<Vec<Output>, StoreError> {
    sql::list_by_name(conn, "outputs", COLUMNS, read_output)
}

fn write(
    conn: &Connection,
    old_name: Option<&ItemName>,
    output: &Output,
) -> Result<(), StoreError> {
    let events = serde_json::to_string(&output.events).expect("event kinds serialise");
    let values = params![
        output.name.as_str(),
        output.url.as_str(),
        events,
        output.enabled,
        output.topic_prefix.as_ref().map(TopicPrefix::as_str),
        output.qos.map(Qos::get),
        output.max_rate_hz.get(),
        output.batch_ms.get(),
        output.ca_file,
        output.username_set,
        output.password_set,
        output.secret_set,
    ];
    sql::insert_or_update(
        conn,
        &format!(
            "INSERT INTO outputs ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
        ),
        "UPDATE outputs SET name = ?1, url = ?2, events = ?3, enabled = ?4,
            topic_prefix = ?5, qos = ?6, max_rate_hz = ?7, batch_ms = ?8, ca_file = ?9,
            username_set = ?10, password_set = ?11, secret_set = ?12 WHERE name = ?13",
        old_name.map(ItemName::as_str),
        values,
    )
}

fn taken(name: &ItemName) -> StoreError {
    StoreError::conflict(
        ConflictKind::Taken,
        format!("output {name}"),
        "an output with this name exists",
    )
}

impl Net {
    /// Adds an output; a name already used is a conflict. Returns the
    /// output and the credentials the caller keeps aside.
    pub fn create_output(
        &self,
        body: OutputPostBody,
    ) -> Result<(Output, OutputSecrets), StoreError> {
        self.db.write(move |conn| {
            if find(conn, &body.name)?.is_some() {
                return Err(taken(&body.name));
            }
            let count: i64 =
                conn.query_row("SELECT count(*) FROM outputs", [], |row| row.get(0))?;
            if count >= MAX_OUTPUTS as i64 {
                return Err(StoreError::conflict(
                    ConflictKind::Exhausted,
                    "outputs",
                    format!("a configuration holds at most {MAX_OUTPUTS} outputs"),
                ));
            }
            let (output, secrets) = body.into_output();
            write(conn, None, &output)?;
            Ok((output, secrets))
        })
    }

    /// One output.
    pub fn output(&self, name: ItemName) -> Result<Output, StoreError> {
        self.db.read(move |conn| require(conn, &name))
    }

    /// Every output, by name.
    pub fn outputs(&self) -> Result<Vec<Output>, StoreError> {
        self.db.read(list)
    }

    /// Changes an output whose credentials are now `secrets`; returns it,
    /// its former name, and its credentials after the change.
    pub fn patch_output(
        &self,
        name: ItemName,
        body: OutputPatchBody,
        secrets: OutputSecrets,
    ) -> Result<(Output, OutputSecrets), StoreError> {
        self.db.write(move |conn| {
            let output = require(conn, &name)?;
            let (changed, secrets) = body.apply(&output, &secrets).map_err(StoreError::Invalid)?;
            if changed.name != output.name && find(conn, &changed.name)?.is_some() {
                return Err(taken(&changed.name));
            }
            write(conn, Some(&output.name), &changed)?;
            Ok((changed, secrets))
        })
    }

    /// Deletes an output.
    pub fn delete_output(&self, name: ItemName) -> Result<(), StoreError> {
        self.db.write(move |conn| {
            require(conn, &name)?;
            conn.execute("DELETE FROM outputs WHERE name = ?1", [name.as_str()])?;
            Ok(())
        })
    }
}
