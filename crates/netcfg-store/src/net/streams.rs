//! Data streams. Config, Anchor and User cannot be deleted; deleting
//! Data-to-Device resets it to its default values (5.1). The default streams
//! keep their names, since the rules above follow the name.

use netcfg_model::{DataStream, DefaultStream, ItemName, Validate, body::DataStreamBody};
use rusqlite::{Connection, OptionalExtension, params};

use super::Net;
use crate::{
    error::{ConflictKind, Missing, StoreError},
    sql::{self, get},
};

/// What deleting a data stream did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamDeletion {
    /// The stream is gone.
    Deleted,
    /// A default stream was reset to its default values instead.
    Reset(DataStream),
}

const COLUMNS: &str =
    "id, name, destination_ip, destination_port, interface, interface_port, time_to_live";

fn bad_address(index: usize, error: std::net::AddrParseError) -> rusqlite::Error {
    crate::sql::bad_value(index, error)
}

fn read_stream(row: &rusqlite::Row<'_>) -> rusqlite::Result<DataStream> {
    let destination_ip: String = row.get(2)?;
    let interface: String = row.get(4)?;
    Ok(DataStream {
        id: row.get(0)?,
        name: get::<ItemName, String>(row, 1)?,
        destination_ip: destination_ip.parse().map_err(|e| bad_address(2, e))?,
        destination_port: row.get(3)?,
        interface: interface.parse().map_err(|e| bad_address(4, e))?,
        interface_port: row.get(5)?,
        time_to_live: row.get(6)?,
    })
}

fn find(conn: &Connection, id: u32) -> Result<Option<DataStream>, StoreError> {
    let mut statement =
        conn.prepare_cached(&format!("SELECT {COLUMNS} FROM data_streams WHERE id = ?1"))?;
    Ok(statement.query_row([id], read_stream).optional()?)
}

fn require(conn: &Connection, id: u32) -> Result<DataStream, StoreError> {
    find(conn, id)?
        .ok_or_else(|| StoreError::not_found(Missing::DataStream, format!("data stream {id}")))
}

/// Every stream, by id.
pub(super) fn list(conn: &Connection) -> Result<Vec<DataStream>, StoreError> {
    let mut statement =
        conn.prepare_cached(&format!("SELECT {COLUMNS} FROM data_streams ORDER BY id"))?;
    let rows = statement.query_map([], read_stream)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Writes a stream with its id (insert, or update the stream with that id).
pub(super) fn insert(conn: &Connection, stream: &DataStream) -> Result<(), StoreError> {
    conn.prepare_cached(&format!(
        "INSERT INTO data_streams ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name,
            destination_ip = excluded.destination_ip, destination_port = excluded.destination_port,
            interface = excluded.interface, interface_port = excluded.interface_port,
            time_to_live = excluded.time_to_live"
    ))?
    .execute(params![
        stream.id,
        stream.name.as_str(),
        stream.destination_ip.to_string(),
        stream.destination_port,
        stream.interface.to_string(),
        stream.interface_port,
        stream.time_to_live,
    ])?;
    Ok(())
}

fn check_name(conn: &Connection, name: &ItemName, except: Option<u32>) -> Result<(), StoreError> {
    let holder: Option<u32> = conn
        .prepare_cached("SELECT id FROM data_streams WHERE name = ?1")?
        .query_row([name.as_str()], |row| row.get(0))
        .optional()?;
    match holder {
        Some(id) if Some(id) != except => Err(StoreError::conflict(
            ConflictKind::Taken,
            format!("data stream {name}"),
            format!("data stream {id} already has this name"),
        )),
        _ => Ok(()),
    }
}

fn next_id(conn: &Connection) -> Result<u32, StoreError> {
    sql::next_id(
        conn,
        "data_streams",
        "data streams",
        "every stream id has been used",
    )
}

fn protected(stream: &DataStream) -> Result<(), StoreError> {
    match DefaultStream::from_name(&stream.name) {
        Some(kind) if kind.is_protected() => Err(StoreError::conflict(
            ConflictKind::BuiltIn,
            format!("data stream {} ({})", stream.id, stream.name),
            "the Config, Anchor and User streams cannot be deleted",
        )),
        _ => Ok(()),
    }
}

impl Net {
    /// Creates a stream with the next id; a name already used is a conflict.
    pub fn create_stream(&self, body: DataStreamBody) -> Result<DataStream, StoreError> {
        self.db.write(move |conn| {
            check_name(conn, &body.name, None)?;
            let stream = body.into_stream(next_id(conn)?);
            stream.validate().map_err(StoreError::Invalid)?;
            insert(conn, &stream)?;
            Ok(stream)
        })
    }

    /// One stream.
    pub fn stream(&self, id: u32) -> Result<DataStream, StoreError> {
        self.db.read(move |conn| require(conn, id))
    }

    /// Every stream, by id.
    pub fn streams(&self) -> Result<Vec<DataStream>, StoreError> {
        self.db.read(list)
    }

    /// Replaces a stream's fields (PATCH with a whole `data_stream_body`). A
    /// default stream keeps its name.
    pub fn replace_stream(&self, id: u32, body: DataStreamBody) -> Result<DataStream, StoreError> {
        self.db.write(move |conn| {
            let current = require(conn, id)?;
            if DefaultStream::from_name(&current.name).is_some() && current.name != body.name {
                return Err(StoreError::conflict(
                    ConflictKind::BuiltIn,
                    format!("data stream {id} ({})", current.name),
                    "a default stream keeps its name",
                ));
            }
            check_name(conn, &body.name, Some(id))?;
            let stream = body.into_stream(id);
            stream.validate().map_err(StoreError::Invalid)?;
            insert(conn, &stream)?;
            Ok(stream)
        })
    }

    /// Deletes a stream as 5.1 does: Config, Anchor and User are a conflict;
    /// Data-to-Device is reset to its default values (keeping its id).
    pub fn delete_stream(&self, id: u32) -> Result<StreamDeletion, StoreError> {
        self.db.write(move |conn| {
            let stream = require(conn, id)?;
            protected(&stream)?;
            if let Some(kind) = DefaultStream::from_name(&stream.name) {
                let reset = DataStream {
                    id,
                    ..kind.stream()
                };
                insert(conn, &reset)?;
                return Ok(StreamDeletion::Reset(reset));
            }
            conn.execute("DELETE FROM data_streams WHERE id = ?1", [id])?;
            Ok(StreamDeletion::Deleted)
        })
    }

    /// Deletes a stream as 5.0 does: Config, Anchor and User are a conflict;
    /// any other stream, Data-to-Device included, is removed.
    pub fn delete_stream_outright(&self, id: u32) -> Result<(), StoreError> {
        self.db.write(move |conn| {
            let stream = require(conn, id)?;
            protected(&stream)?;
            conn.execute("DELETE FROM data_streams WHERE id = ?1", [id])?;
            Ok(())
        })
    }
}
