//! The cached device data: what the network last reported about each device
//! (the cache manager), one JSON document per serial number.

use netcfg_model::{CachedDevice, DeviceKey, SerialNumber};
use rusqlite::{Connection, OptionalExtension};

use super::Net;
use crate::{
    error::{Missing, StoreError},
    sql::{self, get_json},
};

/// Every cached device, by serial number.
pub(super) fn list(conn: &Connection) -> Result<Vec<CachedDevice>, StoreError> {
    let mut statement =
        conn.prepare_cached("SELECT data FROM cached_devices ORDER BY serial_number")?;
    let rows = statement.query_map([], |row| get_json(row, 0))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The serial number `key` names in the cache: a serial number as it is, an
/// id through the configuration's devices.
fn serial_of(conn: &Connection, key: DeviceKey) -> Result<SerialNumber, StoreError> {
    match key {
        DeviceKey::Serial(serial) => Ok(serial),
        DeviceKey::Id(id) => conn
            .prepare_cached("SELECT serial_number FROM devices WHERE id = ?1")?
            .query_row([id.get()], |row| sql::get_serial(row, 0))
            .optional()?
            .ok_or_else(|| StoreError::not_found(Missing::Device, format!("device {key}"))),
    }
}

impl Net {
    /// Stores what the network reported about a device, replacing the
    /// previous report.
    pub fn upsert_cached_device(&self, device: CachedDevice) -> Result<(), StoreError> {
        self.db.write(move |conn| {
            let data = serde_json::to_string(&device).map_err(|error| {
                StoreError::io_message("encoding a cached device", error.to_string())
            })?;
            conn.prepare_cached(
                "INSERT INTO cached_devices (serial_number, data) VALUES (?1, ?2)
                 ON CONFLICT (serial_number) DO UPDATE SET data = excluded.data",
            )?
            .execute(rusqlite::params![sql::serial(device.serial_number), data])?;
            Ok(())
        })
    }

    /// Every cached device, by serial number.
    pub fn cached_devices(&self) -> Result<Vec<CachedDevice>, StoreError> {
        self.db.read(list)
    }

    /// Forgets one device's cached data, if any (forgetting is idempotent).
    pub fn delete_cached_device(&self, key: DeviceKey) -> Result<(), StoreError> {
        self.db.write(move |conn| {
            let serial = serial_of(conn, key)?;
            // Forgetting is idempotent: nothing cached is not an error
            // (decisions.md §4).
            conn.prepare_cached("DELETE FROM cached_devices WHERE serial_number = ?1")?
                .execute([sql::serial(serial)])?;
            Ok(())
        })
    }

    /// Forgets every cached device; returns how many there were.
    pub fn clear_cached_devices(&self) -> Result<usize, StoreError> {
        self.db
            .write(|conn| Ok(conn.execute("DELETE FROM cached_devices", [])?))
    }
}
