//! Position limits (bounding boxes): addressed by id (5.1) or by name (5.0).

use netcfg_model::{
    ItemName, PositionLimit, PositionLimitKey, Validate,
    body::{PositionLimitsPatchBody, PositionLimitsPostBody},
};
use rusqlite::{Connection, OptionalExtension, params};

use super::Net;
use crate::{
    error::{ConflictKind, Missing, StoreError},
    sql::{self, get},
};

const COLUMNS: &str = "id, name, min_x, min_y, min_z, max_x, max_y, max_z";

fn read_limit(row: &rusqlite::Row<'_>) -> rusqlite::Result<PositionLimit> {
    Ok(PositionLimit {
        id: row.get(0)?,
        name: get::<ItemName, String>(row, 1)?,
        min_x: row.get(2)?,
        min_y: row.get(3)?,
        min_z: row.get(4)?,
        max_x: row.get(5)?,
        max_y: row.get(6)?,
        max_z: row.get(7)?,
    })
}

fn find(conn: &Connection, key: &PositionLimitKey) -> Result<Option<PositionLimit>, StoreError> {
    let found = match key {
        PositionLimitKey::Id(id) => conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM position_limits WHERE id = ?1"
            ))?
            .query_row([id], read_limit)
            .optional()?,
        PositionLimitKey::Name(name) => conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM position_limits WHERE name = ?1"
            ))?
            .query_row([name.as_str()], read_limit)
            .optional()?,
    };
    Ok(found)
}

fn require(conn: &Connection, key: &PositionLimitKey) -> Result<PositionLimit, StoreError> {
    find(conn, key)?.ok_or_else(|| StoreError::not_found(Missing::PositionLimit, key.to_string()))
}

/// Every limit, by id.
pub(super) fn list(conn: &Connection) -> Result<Vec<PositionLimit>, StoreError> {
    let mut statement = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM position_limits ORDER BY id"
    ))?;
    let rows = statement.query_map([], read_limit)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn write(conn: &Connection, limit: &PositionLimit) -> Result<(), StoreError> {
    conn.prepare_cached(&format!(
        "INSERT INTO position_limits ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name,
            min_x = excluded.min_x, min_y = excluded.min_y, min_z = excluded.min_z,
            max_x = excluded.max_x, max_y = excluded.max_y, max_z = excluded.max_z"
    ))?
    .execute(params![
        limit.id,
        limit.name.as_str(),
        limit.min_x,
        limit.min_y,
        limit.min_z,
        limit.max_x,
        limit.max_y,
        limit.max_z
    ])?;
    Ok(())
}

fn next_id(conn: &Connection) -> Result<u32, StoreError> {
    sql::next_id(
        conn,
        "position_limits",
        "position limits",
        "every id has been used",
    )
}

impl Net {
    /// Creates a position limit with the next id; a name already used is a
    /// conflict.
    pub fn create_position_limit(
        &self,
        body: PositionLimitsPostBody,
    ) -> Result<PositionLimit, StoreError> {
        self.db.write(move |conn| {
            if find(conn, &PositionLimitKey::Name(body.name.clone()))?.is_some() {
                return Err(StoreError::conflict(
                    ConflictKind::Taken,
                    format!("position limit {}", body.name),
                    "a position limit with this name exists",
                ));
            }
            let limit = body.into_limit(next_id(conn)?);
            limit.validate().map_err(StoreError::Invalid)?;
            write(conn, &limit)?;
            Ok(limit)
        })
    }

    /// One position limit.
    pub fn position_limit(&self, key: PositionLimitKey) -> Result<PositionLimit, StoreError> {
        self.db.read(move |conn| require(conn, &key))
    }

    /// Every position limit, by id.
    pub fn position_limits(&self) -> Result<Vec<PositionLimit>, StoreError> {
        self.db.read(list)
    }

    /// Changes a position limit; each minimum must stay below its maximum.
    pub fn patch_position_limit(
        &self,
        key: PositionLimitKey,
        body: PositionLimitsPatchBody,
    ) -> Result<PositionLimit, StoreError> {
        self.db.write(move |conn| {
            let mut limit = require(conn, &key)?;
            body.apply(&mut limit);
            limit.validate().map_err(StoreError::Invalid)?;
            write(conn, &limit)?;
            Ok(limit)
        })
    }

    /// Deletes a position limit.
    pub fn delete_position_limit(&self, key: PositionLimitKey) -> Result<(), StoreError> {
        self.db.write(move |conn| {
            let limit = require(conn, &key)?;
            conn.execute("DELETE FROM position_limits WHERE id = ?1", [limit.id])?;
            Ok(())
        })
    }
}
