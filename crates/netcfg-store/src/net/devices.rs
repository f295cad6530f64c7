//! Devices, their interfaces, and their magnetometer calibration.
//!
//! Every lookup goes through an index (`devices.id`, the unique
//! `devices.serial_number`, the `(device_id, identifier)` key of
//! `interfaces`), so one device costs the same in a configuration of ten
//! devices as in one of ten thousand.

use netcfg_model::{
    Device, DeviceId, DeviceKey, Interface, ItemName, MagnetometerCalibration, Problems, Role,
    RoleId, SerialNumber, Validate,
    body::{DeviceBody, DeviceSelection, MagnetometerCalibrationBody, MultipleDevicePatchBody},
};
use rusqlite::{Connection, OptionalExtension, params};

use super::{Net, pairs, roles};
use crate::{
    error::{ConflictKind, Missing, StoreError},
    sql::{self, get, get_optional, get_serial},
};

/// The answer for one device of the multiple-device PATCH: the changed
/// device, or why it was not changed (the others are changed regardless).
pub type DevicePatchOutcome = Result<Device, StoreError>;

/// The fields a PATCH writes over a device.
struct DeviceFields {
    serial_number: SerialNumber,
    interfaces: Vec<Interface>,
    disabled: bool,
    name: Option<ItemName>,
    id: Option<DeviceId>,
}

impl From<DeviceBody> for DeviceFields {
    fn from(body: DeviceBody) -> Self {
        Self {
            serial_number: body.serial_number,
            interfaces: body.interfaces,
            disabled: body.disabled,
            name: body.name,
            id: body.id,
        }
    }
}

impl From<MultipleDevicePatchBody> for DeviceFields {
    fn from(body: MultipleDevicePatchBody) -> Self {
        Self {
            serial_number: body.serial_number,
            interfaces: body.interfaces,
            disabled: body.disabled,
            name: body.name,
            id: None,
        }
    }
}

fn what(key: DeviceKey) -> String {
    format!("device {key}")
}

/// The row id of the device `key` names, if any.
pub(super) fn find(conn: &Connection, key: DeviceKey) -> Result<Option<i64>, StoreError> {
    let (sql, value) = match key {
        DeviceKey::Serial(serial) => (
            "SELECT id FROM devices WHERE serial_number = ?1",
            sql::serial(serial),
        ),
        DeviceKey::Id(id) => ("SELECT id FROM devices WHERE id = ?1", i64::from(id.get())),
    };
    let mut statement = conn.prepare_cached(sql)?;
    Ok(statement.query_row([value], |row| row.get(0)).optional()?)
}

/// The row id of the device `key` names, or `NotFound`.
pub(super) fn require(conn: &Connection, key: DeviceKey) -> Result<i64, StoreError> {
    find(conn, key)?.ok_or_else(|| StoreError::not_found(Missing::Device, what(key)))
}

fn read_interface(row: &rusqlite::Row<'_>) -> rusqlite::Result<Interface> {
    Ok(Interface {
        identifier: get::<u8, i64>(row, 0)?,
        role_id: RoleId(row.get(1)?),
        x: get_optional::<i32, i64>(row, 2)?,
        y: get_optional::<i32, i64>(row, 3)?,
        z: get_optional::<i32, i64>(row, 4)?,
    })
}

fn interfaces_of(conn: &Connection, id: i64) -> Result<Vec<Interface>, StoreError> {
    let mut statement = conn.prepare_cached(
        "SELECT identifier, role_id, x, y, z FROM interfaces WHERE device_id = ?1 ORDER BY identifier",
    )?;
    let rows = statement.query_map([id], read_interface)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn read_device(row: &rusqlite::Row<'_>) -> rusqlite::Result<Device> {
    Ok(Device {
        id: get::<DeviceId, u32>(row, 0)?,
        serial_number: get_serial(row, 1)?,
        name: get_optional::<ItemName, String>(row, 2)?,
        disabled: row.get(3)?,
        interfaces: Vec::new(),
    })
}

/// The device with row id `id`.
pub(super) fn load(conn: &Connection, id: i64) -> Result<Device, StoreError> {
    let mut statement =
        conn.prepare_cached("SELECT id, serial_number, name, disabled FROM devices WHERE id = ?1")?;
    let mut device = statement
        .query_row([id], read_device)
        .optional()?
        .ok_or_else(|| StoreError::not_found(Missing::Device, format!("device {id}")))?;
    device.interfaces = interfaces_of(conn, id)?;
    Ok(device)
}

/// Every device, by id, with its interfaces (two queries, one merge).
pub(super) fn list(conn: &Connection) -> Result<Vec<Device>, StoreError> {
    let mut statement =
        conn.prepare_cached("SELECT id, serial_number, name, disabled FROM devices ORDER BY id")?;
    let mut devices = statement
        .query_map([], read_device)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut statement = conn.prepare_cached(
        "SELECT identifier, role_id, x, y, z, device_id FROM interfaces ORDER BY device_id, identifier",
    )?;
    let mut rows = statement.query([])?;
    let mut position = 0;
    while let Some(row) = rows.next()? {
        let device_id: u32 = row.get(5)?;
        while position < devices.len() && devices[position].id.get() < device_id {
            position += 1;
        }
        if let Some(device) = devices.get_mut(position)
            && device.id.get() == device_id
        {
            device.interfaces.push(read_interface(row)?);
        }
    }
    Ok(devices)
}

/// Every rule of a device's interfaces: the model's, and that each names a
/// role of this configuration. A role an interface of the device already
/// has (in `current`) exists: the interfaces' foreign key says so, and it
/// is not looked up again (a device PATCH often leaves its interfaces as
/// they are).
fn check_interfaces(
    conn: &Connection,
    interfaces: &[Interface],
    current: &[Interface],
) -> Result<(), StoreError> {
    let mut problems = Problems::new();
    if interfaces.is_empty() {
        problems.push("interfaces", "a device has at least one interface");
    }
    for (position, interface) in interfaces.iter().enumerate() {
        let path = format!("interfaces[{position}]");
        interface.validate_at(&path, &mut problems);
        if interfaces[..position]
            .iter()
            .any(|earlier| earlier.identifier == interface.identifier)
        {
            problems.push(
                format!("{path}.identifier"),
                format!(
                    "interface identifier {} is given twice",
                    interface.identifier
                ),
            );
        }
        let known = interface.role_id == RoleId::RESERVED
            || current.iter().any(|had| had.role_id == interface.role_id);
        if !known && !roles::exists(conn, interface.role_id)? {
            problems.push(
                format!("{path}.role_id"),
                format!(
                    "role {} does not exist in this configuration",
                    interface.role_id
                ),
            );
        }
    }
    problems.into_result(()).map_err(StoreError::Invalid)
}

fn write_interfaces(
    conn: &Connection,
    id: i64,
    interfaces: &[Interface],
) -> Result<(), StoreError> {
    let mut statement = conn.prepare_cached(
        "INSERT INTO interfaces (device_id, identifier, role_id, x, y, z) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (device_id, identifier) DO UPDATE
         SET role_id = excluded.role_id, x = excluded.x, y = excluded.y, z = excluded.z",
    )?;
    for interface in interfaces {
        statement.execute(params![
            id,
            interface.identifier,
            interface.role_id.0,
            interface.x,
            interface.y,
            interface.z
        ])?;
    }
    Ok(())
}

/// Makes device `id`'s interfaces `interfaces`, touching only the rows
/// that differ: a PATCH that renames a device writes no interface row, so
/// its commit, and the undo rows the change history keeps, stay small. An
/// interface that goes takes its pairs with it. `current` are the ones it
/// has.
fn sync_interfaces(
    conn: &Connection,
    id: i64,
    serial: SerialNumber,
    interfaces: &[Interface],
    current: &[Interface],
) -> Result<(), StoreError> {
    for gone in current.iter().filter(|interface| {
        !interfaces
            .iter()
            .any(|kept| kept.identifier == interface.identifier)
    }) {
        pairs::delete_of_interface(conn, serial, gone.identifier)?;
        conn.prepare_cached("DELETE FROM interfaces WHERE device_id = ?1 AND identifier = ?2")?
            .execute(params![id, gone.identifier])?;
    }
    // New and changed ones in one upsert; unchanged ones are left alone
    // (and when none changed, the upsert is not even looked up).
    let changed: Vec<Interface> = interfaces
        .iter()
        .filter(|interface| !current.contains(interface))
        .cloned()
        .collect();
    if changed.is_empty() {
        return Ok(());
    }
    write_interfaces(conn, id, &changed)
}

fn serial_taken(serial: SerialNumber) -> StoreError {
    StoreError::conflict(
        ConflictKind::Taken,
        what(DeviceKey::Serial(serial)),
        "a device with this serial number is already in the configuration",
    )
}

/// Adds a device.
pub(super) fn insert(conn: &Connection, body: DeviceBody) -> Result<Device, StoreError> {
    check_interfaces(conn, &body.interfaces, &[])?;
    if find(conn, DeviceKey::Serial(body.serial_number))?.is_some() {
        return Err(serial_taken(body.serial_number));
    }
    if let Some(id) = body.id
        && find(conn, DeviceKey::Id(id))?.is_some()
    {
        return Err(StoreError::conflict(
            ConflictKind::Taken,
            format!("device id {id}"),
            "another device has this id",
        ));
    }
    let mut statement = conn.prepare_cached(
        "INSERT INTO devices (id, serial_number, name, disabled) VALUES (?1, ?2, ?3, ?4)",
    )?;
    statement.execute(params![
        body.id.map(DeviceId::get),
        sql::serial(body.serial_number),
        body.name.as_deref(),
        body.disabled
    ])?;
    let id = conn.last_insert_rowid();
    write_interfaces(conn, id, &body.interfaces)?;
    load(conn, id)
}

/// Writes `fields` over the device `key` names (`NotFound` when none). The
/// common PATCH (same id and serial number, no pairs) writes only the row's
/// plain columns and the interfaces, and answers from what it wrote instead
/// of reading it back.
fn replace(conn: &Connection, key: DeviceKey, fields: DeviceFields) -> Result<Device, StoreError> {
    // The row id, id and serial number in one look-up: this runs on the
    // writer for every device PATCH.
    let (sql, value) = match key {
        DeviceKey::Serial(serial) => (
            "SELECT id, serial_number FROM devices WHERE serial_number = ?1",
            sql::serial(serial),
        ),
        DeviceKey::Id(id) => (
            "SELECT id, serial_number FROM devices WHERE id = ?1",
            i64::from(id.get()),
        ),
    };
    let (id, current_id, current_serial) = conn
        .prepare_cached(sql)?
        .query_row([value], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                get::<DeviceId, u32>(row, 0)?,
                get_serial(row, 1)?,
            ))
        })
        .optional()?
        .ok_or_else(|| StoreError::not_found(Missing::Device, what(key)))?;
    let current_interfaces = interfaces_of(conn, id)?;
    check_interfaces(conn, &fields.interfaces, &current_interfaces)?;
    if fields.serial_number != current_serial
        && find(conn, DeviceKey::Serial(fields.serial_number))?.is_some()
    {
        return Err(serial_taken(fields.serial_number));
    }
    let new_device_id = fields.id.unwrap_or(current_id);
    if new_device_id != current_id && find(conn, DeviceKey::Id(new_device_id))?.is_some() {
        return Err(StoreError::conflict(
            ConflictKind::Taken,
            format!("device id {new_device_id}"),
            "another device has this id",
        ));
    }
    let new_id = i64::from(new_device_id.get());
    let serial_changes = fields.serial_number != current_serial;
    // Pairs are stored in a fixed order of their ends, which a new serial
    // number may change: they are taken off and put back in order.
    let old_pairs = if serial_changes {
        pairs::detach(conn, current_serial)?
    } else {
        Vec::new()
    };
    if new_device_id == current_id && !serial_changes {
        // Key columns left alone: SQLite then neither moves the row nor
        // looks at the rows that refer to it.
        conn.prepare_cached("UPDATE devices SET name = ?1, disabled = ?2 WHERE id = ?3")?
            .execute(params![fields.name.as_deref(), fields.disabled, id])?;
    } else {
        conn.prepare_cached(
            "UPDATE devices SET id = ?1, serial_number = ?2, name = ?3, disabled = ?4 WHERE id = ?5",
        )?
        .execute(params![
            new_id,
            sql::serial(fields.serial_number),
            fields.name.as_deref(),
            fields.disabled,
            id
        ])?;
    }
    sync_interfaces(
        conn,
        new_id,
        fields.serial_number,
        &fields.interfaces,
        &current_interfaces,
    )?;
    pairs::reattach(
        conn,
        old_pairs,
        current_serial,
        fields.serial_number,
        &fields.interfaces,
    )?;
    let mut interfaces = fields.interfaces;
    // As a read would give them (the key orders them).
    interfaces.sort_by_key(|interface| interface.identifier);
    Ok(Device {
        id: new_device_id,
        serial_number: fields.serial_number,
        name: fields.name,
        disabled: fields.disabled,
        interfaces,
    })
}

fn interface_row(
    conn: &Connection,
    key: DeviceKey,
    identifier: u8,
) -> Result<(i64, Interface), StoreError> {
    let id = require(conn, key)?;
    let mut statement = conn.prepare_cached(
        "SELECT identifier, role_id, x, y, z FROM interfaces WHERE device_id = ?1 AND identifier = ?2",
    )?;
    let interface = statement
        .query_row(params![id, identifier], read_interface)
        .optional()?
        .ok_or_else(|| {
            StoreError::not_found(
                Missing::Interface,
                format!("interface {identifier} of device {key}"),
            )
        })?;
    Ok((id, interface))
}

fn read_calibration(row: &rusqlite::Row<'_>) -> rusqlite::Result<MagnetometerCalibration> {
    Ok(MagnetometerCalibration {
        serial_number: get_serial(row, 0)?,
        x_offset: get::<i16, i64>(row, 1)?,
        y_offset: get::<i16, i64>(row, 2)?,
        z_offset: get::<i16, i64>(row, 3)?,
    })
}

/// The calibration of the device with row id `id`, if it has one.
pub(super) fn calibration_of(
    conn: &Connection,
    id: i64,
) -> Result<Option<MagnetometerCalibration>, StoreError> {
    let mut statement = conn.prepare_cached(
        "SELECT d.serial_number, m.x_offset, m.y_offset, m.z_offset
         FROM magnetometer_calibrations m JOIN devices d ON d.id = m.device_id
         WHERE m.device_id = ?1",
    )?;
    Ok(statement.query_row([id], read_calibration).optional()?)
}

impl Net {
    /// Adds a device. A serial number or id already used is a conflict; an
    /// interface naming a role the configuration lacks is invalid.
    pub fn create_device(&self, body: DeviceBody) -> Result<Device, StoreError> {
        self.db.write(move |conn| insert(conn, body))
    }

    /// Adds several devices in one commit: all of them, or none.
    pub fn create_devices(&self, bodies: Vec<DeviceBody>) -> Result<Vec<Device>, StoreError> {
        self.db
            .write(move |conn| bodies.into_iter().map(|body| insert(conn, body)).collect())
    }

    /// The device `key` names.
    pub fn device(&self, key: DeviceKey) -> Result<Device, StoreError> {
        self.db.read(move |conn| load(conn, require(conn, key)?))
    }

    /// The serial numbers of `serials` that name no device of the
    /// configuration, in the order given (one indexed lookup each).
    pub fn unknown_serials(
        &self,
        serials: Vec<SerialNumber>,
    ) -> Result<Vec<SerialNumber>, StoreError> {
        self.db.read(move |conn| {
            let mut unknown = Vec::new();
            for serial in serials {
                if find(conn, DeviceKey::Serial(serial))?.is_none() && !unknown.contains(&serial) {
                    unknown.push(serial);
                }
            }
            Ok(unknown)
        })
    }

    /// Every device, by id.
    pub fn devices(&self) -> Result<Vec<Device>, StoreError> {
        self.db.read(list)
    }

    /// Writes `body` over the device `key` names (single PATCH). The body may
    /// change the serial number or id, unless another device has it.
    pub fn replace_device(&self, key: DeviceKey, body: DeviceBody) -> Result<Device, StoreError> {
        self.db.write(move |conn| replace(conn, key, body.into()))
    }

    /// The multiple-device PATCH: each device named by its serial number is
    /// changed on its own, in one commit; the answer gives each serial
    /// number's outcome, in the order given.
    pub fn patch_devices(
        &self,
        bodies: Vec<MultipleDevicePatchBody>,
    ) -> Result<Vec<(SerialNumber, DevicePatchOutcome)>, StoreError> {
        self.db.write(move |conn| {
            let mut outcomes = Vec::with_capacity(bodies.len());
            for body in bodies {
                let serial = body.serial_number;
                let outcome = sql::nested(conn, |conn| {
                    replace(conn, DeviceKey::Serial(serial), body.into())
                });
                outcomes.push((serial, outcome));
            }
            Ok(outcomes)
        })
    }

    /// Removes a device, with its interfaces, pairs and calibration.
    pub fn delete_device(&self, key: DeviceKey) -> Result<(), StoreError> {
        self.db.write(move |conn| {
            let id = require(conn, key)?;
            conn.prepare_cached("DELETE FROM devices WHERE id = ?1")?
                .execute([id])?;
            Ok(())
        })
    }

    /// Removes the selected devices, all or nothing: when a key names no
    /// device, nothing is removed and the answer is `NotFound` naming every
    /// such key. Returns how many devices were removed.
    pub fn delete_devices(&self, selection: DeviceSelection) -> Result<usize, StoreError> {
        self.db.write(move |conn| match selection {
            DeviceSelection::All => Ok(conn.execute("DELETE FROM devices", [])?),
            DeviceSelection::Keys(keys) => {
                let mut ids = Vec::with_capacity(keys.len());
                let mut missing = Vec::new();
                for key in keys {
                    match find(conn, key)? {
                        Some(id) => ids.push(id),
                        None => missing.push(key.to_string()),
                    }
                }
                if !missing.is_empty() {
                    return Err(StoreError::not_found(
                        Missing::Device,
                        format!("device {}", missing.join(", ")),
                    ));
                }
                let mut statement = conn.prepare_cached("DELETE FROM devices WHERE id = ?1")?;
                let mut removed = 0;
                for id in ids {
                    removed += statement.execute([id])?;
                }
                Ok(removed)
            }
        })
    }

    /// One interface of a device.
    pub fn interface(&self, key: DeviceKey, identifier: u8) -> Result<Interface, StoreError> {
        self.db
            .read(move |conn| Ok(interface_row(conn, key, identifier)?.1))
    }

    /// The interfaces of a device.
    pub fn interfaces(&self, key: DeviceKey) -> Result<Vec<Interface>, StoreError> {
        self.db
            .read(move |conn| interfaces_of(conn, require(conn, key)?))
    }

    /// Removes one interface of a device, and the pairs it is part of. A
    /// device keeps at least one interface: removing the last is a conflict.
    pub fn delete_interface(&self, key: DeviceKey, identifier: u8) -> Result<(), StoreError> {
        self.db.write(move |conn| {
            let (id, _) = interface_row(conn, key, identifier)?;
            let count: i64 = conn.query_row(
                "SELECT count(*) FROM interfaces WHERE device_id = ?1",
                [id],
                |row| row.get(0),
            )?;
            if count <= 1 {
                return Err(StoreError::conflict(
                    ConflictKind::InUse,
                    format!("interface {identifier} of device {key}"),
                    "it is the device's last interface; delete the device instead",
                ));
            }
            let device = load(conn, id)?;
            pairs::delete_of_interface(conn, device.serial_number, identifier)?;
            conn.execute(
                "DELETE FROM interfaces WHERE device_id = ?1 AND identifier = ?2",
                params![id, identifier],
            )?;
            Ok(())
        })
    }

    /// The role of one interface (5.0 interface roles).
    pub fn interface_role(&self, key: DeviceKey, identifier: u8) -> Result<Role, StoreError> {
        self.db.read(move |conn| {
            let (_, interface) = interface_row(conn, key, identifier)?;
            roles::get_role(conn, interface.role_id)
        })
    }

    /// Takes `role_id` away from an interface (5.0 `DELETE .../roles/{role_id}`):
    /// the interface becomes UNCONFIGURED. `NotFound` when the interface does
    /// not have that role.
    pub fn clear_interface_role(
        &self,
        key: DeviceKey,
        identifier: u8,
        role_id: RoleId,
    ) -> Result<Interface, StoreError> {
        self.db.write(move |conn| {
            let (id, mut interface) = interface_row(conn, key, identifier)?;
            if interface.role_id != role_id {
                return Err(StoreError::not_found(
                    Missing::Role,
                    format!("role {role_id} of interface {identifier} of device {key}"),
                ));
            }
            conn.execute(
                "UPDATE interfaces SET role_id = ?1 WHERE device_id = ?2 AND identifier = ?3",
                params![RoleId::UNCONFIGURED.0, id, identifier],
            )?;
            interface.role_id = RoleId::UNCONFIGURED;
            Ok(interface)
        })
    }

    /// Sets a device's magnetometer calibration.
    pub fn set_magnetometer_calibration(
        &self,
        key: DeviceKey,
        body: MagnetometerCalibrationBody,
    ) -> Result<MagnetometerCalibration, StoreError> {
        self.db.write(move |conn| {
            let id = require(conn, key)?;
            conn.prepare_cached(
                "INSERT INTO magnetometer_calibrations (device_id, x_offset, y_offset, z_offset)
                 VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (device_id) DO UPDATE SET
                    x_offset = excluded.x_offset, y_offset = excluded.y_offset, z_offset = excluded.z_offset",
            )?
            .execute(params![id, body.x_offset, body.y_offset, body.z_offset])?;
            calibration_of(conn, id)?
                .ok_or_else(|| StoreError::io_message("calibration", "the written row vanished"))
        })
    }

    /// A device's magnetometer calibration; `NotFound` when none was set.
    pub fn magnetometer_calibration(
        &self,
        key: DeviceKey,
    ) -> Result<MagnetometerCalibration, StoreError> {
        self.db.read(move |conn| {
            calibration_of(conn, require(conn, key)?)?.ok_or_else(|| {
                StoreError::not_found(
                    Missing::MagnetometerCalibration,
                    format!("magnetometer calibration of device {key}"),
                )
            })
        })
    }
}
