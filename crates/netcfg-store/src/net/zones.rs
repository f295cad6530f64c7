//! Zones (decisions §13): addressed by name, known to the data streams by
//! `zone_id`. The polygon, filters and actions are kept as JSON text and
//! read back through the model, which checks them again.

use netcfg_model::{
    DeviceAction, DwellMs, HysteresisMm, ItemName, Problems, RoleId, SerialNumber, Zone,
    ZonePolygon,
    body::{ZonePatchBody, ZonePostBody},
};
use rusqlite::{Connection, params};

use super::Net;
use crate::{
    error::{ConflictKind, Missing, StoreError},
    sql::{self, bad_value, get},
};

/// The most zones a configuration holds.
pub const MAX_ZONES: usize = 10_000;

const COLUMNS: &str =
    "name, zone_id, polygon, z_min, z_max, hysteresis_mm, dwell_ms, tags, roles, on_enter, on_exit";

fn json_column<T: serde::de::DeserializeOwned>(
    row: &rusqlite::Row<'_>,
    index: usize,
) -> rusqlite::Result<T> {
    let text: String = row.get(index)?;
    serde_json::from_str(&text).map_err(|error| bad_value(index, error))
}

fn optional_json_column<T: serde::de::DeserializeOwned>(
    row: &rusqlite::Row<'_>,
    index: usize,
) -> rusqlite::Result<Option<T>> {
    let text: Option<String> = row.get(index)?;
    text.map(|text| serde_json::from_str(&text).map_err(|error| bad_value(index, error)))
        .transpose()
}

fn read_zone(row: &rusqlite::Row<'_>) -> rusqlite::Result<Zone> {
    Ok(Zone {
        name: get::<ItemName, String>(row, 0)?,
        zone_id: row.get(1)?,
        polygon: json_column::<ZonePolygon>(row, 2)?,
        z_min: row.get(3)?,
        z_max: row.get(4)?,
        hysteresis_mm: get::<HysteresisMm, u32>(row, 5)?,
        dwell_ms: get::<DwellMs, u32>(row, 6)?,
        tags: json_column::<Vec<SerialNumber>>(row, 7)?,
        roles: json_column::<Vec<RoleId>>(row, 8)?,
        on_enter: optional_json_column::<DeviceAction>(row, 9)?,
        on_exit: optional_json_column::<DeviceAction>(row, 10)?,
    })
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("a zone's parts serialise")
}

fn find(conn: &Connection, name: &ItemName) -> Result<Option<Zone>, StoreError> {
    sql::find_named(conn, "zones", COLUMNS, name.as_str(), read_zone)
}

fn require(conn: &Connection, name: &ItemName) -> Result<Zone, StoreError> {
    find(conn, name)?.ok_or_else(|| StoreError::not_found(Missing::Zone, format!("zone {name}")))
}

/// Every zone, by name.
pub(super) fn list(conn: &Connection) -> Result<Vec<Zone>, StoreError> {
    sql::list_by_name(conn, "zones", COLUMNS, read_zone)
}

fn write(conn: &Connection, old_name: Option<&ItemName>, zone: &Zone) -> Result<(), StoreError> {
    let values = params![
        zone.name.as_str(),
        zone.zone_id,
        to_json(&zone.polygon),
        zone.z_min,
        zone.z_max,
        zone.hysteresis_mm.get(),
        zone.dwell_ms.get(),
        to_json(&zone.tags),
        to_json(&zone.roles),
        zone.on_enter.as_ref().map(to_json),
        zone.on_exit.as_ref().map(to_json),
    ];
    sql::insert_or_update(
        conn,
        &format!(
            "INSERT INTO zones ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
        ),
        "UPDATE zones SET name = ?1, zone_id = ?2, polygon = ?3, z_min = ?4, z_max = ?5,
            hysteresis_mm = ?6, dwell_ms = ?7, tags = ?8, roles = ?9, on_enter = ?10,
            on_exit = ?11 WHERE name = ?12",
        old_name.map(ItemName::as_str),
        values,
    )
}

/// The tags and roles a zone names must be the configuration's: every one
/// that is not is a problem on its element.
fn check_references(conn: &Connection, zone: &Zone) -> Result<(), StoreError> {
    let mut problems = Problems::new();
    let mut device = conn.prepare_cached("SELECT 1 FROM devices WHERE serial_number = ?1")?;
    for (index, serial) in zone.tags.iter().enumerate() {
        if !device.exists([serial.as_u32()])? {
            problems.push(
                format!("tags[{index}]"),
                format!("the configuration has no device {serial}"),
            );
        }
    }
    let mut role = conn.prepare_cached("SELECT 1 FROM roles WHERE id = ?1")?;
    for (index, id) in zone.roles.iter().enumerate() {
        if !role.exists([id.0])? {
            problems.push(
                format!("roles[{index}]"),
                format!("the configuration has no role {id}"),
            );
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(StoreError::Invalid(problems))
    }
}

/// The lowest number no zone has.
fn free_zone_id(conn: &Connection) -> Result<u16, StoreError> {
    let next: Option<i64> = conn.query_row(
        "SELECT min(candidate) FROM (
            SELECT 1 AS candidate WHERE NOT EXISTS (SELECT 1 FROM zones WHERE zone_id = 1)
            UNION ALL
            SELECT zone_id + 1 FROM zones
                WHERE zone_id < 65535 AND zone_id + 1 NOT IN (SELECT zone_id FROM zones))",
        [],
        |row| row.get(0),
    )?;
    next.and_then(|id| u16::try_from(id).ok()).ok_or_else(|| {
        StoreError::conflict(
            ConflictKind::Exhausted,
            "zones",
            "every zone number is in use",
        )
    })
}

fn taken(name: &ItemName) -> StoreError {
    StoreError::conflict(
        ConflictKind::Taken,
        format!("zone {name}"),
        "a zone with this name exists",
    )
}

impl Net {
    /// Adds a zone; a name already used is a conflict, tags and roles the
    /// configuration lacks are problems.
    pub fn create_zone(&self, body: ZonePostBody) -> Result<Zone, StoreError> {
        self.db.write(move |conn| {
            if find(conn, &body.name)?.is_some() {
                return Err(taken(&body.name));
            }
            let count: i64 = conn.query_row("SELECT count(*) FROM zones", [], |row| row.get(0))?;
            if count >= MAX_ZONES as i64 {
                return Err(StoreError::conflict(
                    ConflictKind::Exhausted,
                    "zones",
                    format!("a configuration holds at most {MAX_ZONES} zones"),
                ));
            }
            let zone = body.into_zone(free_zone_id(conn)?);
            check_references(conn, &zone)?;
            write(conn, None, &zone)?;
            Ok(zone)
        })
    }

    /// One zone.
    pub fn zone(&self, name: ItemName) -> Result<Zone, StoreError> {
        self.db.read(move |conn| require(conn, &name))
    }

    /// Every zone, by name.
    pub fn zones(&self) -> Result<Vec<Zone>, StoreError> {
        self.db.read(list)
    }

    /// Changes a zone (renaming it to a free name keeps its number).
    pub fn patch_zone(&self, name: ItemName, body: ZonePatchBody) -> Result<Zone, StoreError> {
        self.db.write(move |conn| {
            let zone = require(conn, &name)?;
            let changed = body.apply(&zone).map_err(StoreError::Invalid)?;
            if changed.name != zone.name && find(conn, &changed.name)?.is_some() {
                return Err(taken(&changed.name));
            }
            check_references(conn, &changed)?;
            write(conn, Some(&zone.name), &changed)?;
            Ok(changed)
        })
    }

    /// Deletes a zone.
    pub fn delete_zone(&self, name: ItemName) -> Result<(), StoreError> {
        self.db.write(move |conn| {
            require(conn, &name)?;
            conn.execute("DELETE FROM zones WHERE name = ?1", [name.as_str()])?;
            Ok(())
        })
    }
}
