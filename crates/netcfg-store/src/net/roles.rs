//! Roles. The built-in roles 0 and 2 to 4 cannot be deleted; a role that an
//! interface uses cannot be deleted; custom roles get ids from 5, never
//! reused within a file (the `roles` table is `AUTOINCREMENT`).

use netcfg_model::{
    ItemName, NetworkTime, Role, RoleId, Validate,
    body::{RolePatchBody, RolePostBody},
};
use rusqlite::{Connection, OptionalExtension};

use super::Net;
use crate::{
    error::{ConflictKind, Missing, StoreError},
    sql::{self, get, get_word, word},
};

const COLUMNS: &str = "id, name, network_period, window_duration, device_count, accelerometer_period, \
    gyroscope_period, quaternion_period, magnetometer_period, pressure_period, temperature_period, led_brightness, tracking, max_speed_mm_s";

fn read_role(row: &rusqlite::Row<'_>) -> rusqlite::Result<Role> {
    Ok(Role {
        id: RoleId(row.get(0)?),
        name: get::<ItemName, String>(row, 1)?,
        network_period: NetworkTime::from_units(row.get(2)?),
        window_duration: NetworkTime::from_units(row.get(3)?),
        device_count: row.get(4)?,
        accelerometer_period: get::<_, u32>(row, 5)?,
        gyroscope_period: get::<_, u32>(row, 6)?,
        quaternion_period: get::<_, u32>(row, 7)?,
        magnetometer_period: get::<_, u32>(row, 8)?,
        pressure_period: get::<_, u32>(row, 9)?,
        temperature_period: get::<_, u32>(row, 10)?,
        led_brightness: get_word(row, 11)?,
        tracking: row
            .get::<_, Option<String>>(12)?
            .map(|_| get_word(row, 12))
            .transpose()?,
        max_speed_mm_s: row.get(13)?,
    })
}

/// True when the role exists.
pub(super) fn exists(conn: &Connection, id: RoleId) -> Result<bool, StoreError> {
    sql::exists(conn, "SELECT 1 FROM roles WHERE id = ?1", [id.0])
}

/// The role `id`, or `NotFound`.
pub(super) fn get_role(conn: &Connection, id: RoleId) -> Result<Role, StoreError> {
    let mut statement =
        conn.prepare_cached(&format!("SELECT {COLUMNS} FROM roles WHERE id = ?1"))?;
    statement
        .query_row([id.0], read_role)
        .optional()?
        .ok_or_else(|| StoreError::not_found(Missing::Role, format!("role {id}")))
}

/// Every role, by id.
pub(super) fn list(conn: &Connection) -> Result<Vec<Role>, StoreError> {
    let mut statement = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM roles ORDER BY id"))?;
    let rows = statement.query_map([], read_role)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn check_name(
    conn: &Connection,
    name: &ItemName,
    except: Option<RoleId>,
) -> Result<(), StoreError> {
    let holder: Option<u32> = conn
        .prepare_cached("SELECT id FROM roles WHERE name = ?1")?
        .query_row([name.as_str()], |row| row.get(0))
        .optional()?;
    match holder {
        Some(id) if Some(RoleId(id)) != except => Err(StoreError::conflict(
            ConflictKind::Taken,
            format!("role {name}"),
            format!("role {id} already has this name"),
        )),
        _ => Ok(()),
    }
}

/// The values of `role`'s columns, in the order of `COLUMNS` (`?1` to `?14`).
fn column_values(role: &Role) -> [rusqlite::types::Value; 14] {
    use rusqlite::types::Value;
    [
        Value::from(i64::from(role.id.0)),
        Value::from(role.name.to_string()),
        Value::from(i64::from(role.network_period.units())),
        Value::from(i64::from(role.window_duration.units())),
        Value::from(i64::from(role.device_count)),
        Value::from(i64::from(u32::from(role.accelerometer_period))),
        Value::from(i64::from(u32::from(role.gyroscope_period))),
        Value::from(i64::from(u32::from(role.quaternion_period))),
        Value::from(i64::from(u32::from(role.magnetometer_period))),
        Value::from(i64::from(u32::from(role.pressure_period))),
        Value::from(i64::from(u32::from(role.temperature_period))),
        Value::from(word(&role.led_brightness)),
        role.tracking
            .map_or(Value::Null, |tracking| Value::from(word(&tracking))),
        role.max_speed_mm_s
            .map_or(Value::Null, |speed| Value::from(i64::from(speed))),
    ]
}

/// Inserts a role as it is (its rules already checked).
pub(super) fn insert(conn: &Connection, role: &Role) -> Result<(), StoreError> {
    conn.prepare_cached(&format!(
        "INSERT INTO roles ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"
    ))?
    .execute(rusqlite::params_from_iter(column_values(role)))?;
    Ok(())
}

/// The id the next custom role gets: above every id the file ever used, and
/// at least 5.
fn next_id(conn: &Connection) -> Result<RoleId, StoreError> {
    let highest = sql::highest_id_ever(conn, "roles")?;
    let next = highest
        .map_or(0, |highest| highest + 1)
        .max(i64::from(RoleId::FIRST_CUSTOM.0));
    u32::try_from(next).map(RoleId).map_err(|_| {
        StoreError::conflict(
            ConflictKind::Exhausted,
            "roles",
            "every role id has been used",
        )
    })
}

impl Net {
    /// Creates a custom role with the next free id.
    pub fn create_role(&self, body: RolePostBody) -> Result<Role, StoreError> {
        self.db.write(move |conn| {
            check_name(conn, &body.name, None)?;
            let role = body.into_role(next_id(conn)?);
            role.validate().map_err(StoreError::Invalid)?;
            insert(conn, &role)?;
            Ok(role)
        })
    }

    /// One role.
    pub fn role(&self, id: RoleId) -> Result<Role, StoreError> {
        self.db.read(move |conn| get_role(conn, id))
    }

    /// Every role, by id.
    pub fn roles(&self) -> Result<Vec<Role>, StoreError> {
        self.db.read(list)
    }

    /// Changes a role: the body's fields are applied, then the whole role is
    /// checked (a new period can break the window rule).
    pub fn patch_role(&self, id: RoleId, body: RolePatchBody) -> Result<Role, StoreError> {
        self.db.write(move |conn| {
            let mut role = get_role(conn, id)?;
            body.apply(&mut role);
            role.validate().map_err(StoreError::Invalid)?;
            check_name(conn, &role.name, Some(id))?;
            update(conn, &role)?;
            Ok(role)
        })
    }

    /// Deletes a custom role that no interface uses.
    pub fn delete_role(&self, id: RoleId) -> Result<(), StoreError> {
        self.db.write(move |conn| {
            let role = get_role(conn, id)?;
            if id.is_builtin() {
                return Err(StoreError::conflict(
                    ConflictKind::BuiltIn,
                    format!("role {id} ({})", role.name),
                    "built-in roles cannot be deleted",
                ));
            }
            let users: i64 = conn
                .prepare_cached("SELECT count(*) FROM interfaces WHERE role_id = ?1")?
                .query_row([id.0], |row| row.get(0))?;
            if users > 0 {
                return Err(StoreError::conflict(
                    ConflictKind::InUse,
                    format!("role {id} ({})", role.name),
                    format!("{users} interface(s) use it"),
                ));
            }
            conn.execute("DELETE FROM roles WHERE id = ?1", [id.0])?;
            Ok(())
        })
    }
}

fn update(conn: &Connection, role: &Role) -> Result<(), StoreError> {
    conn.prepare_cached(
        "UPDATE roles SET name = ?2, network_period = ?3, window_duration = ?4, device_count = ?5,
            accelerometer_period = ?6, gyroscope_period = ?7, quaternion_period = ?8,
            magnetometer_period = ?9, pressure_period = ?10, temperature_period = ?11,
            led_brightness = ?12, tracking = ?13, max_speed_mm_s = ?14
         WHERE id = ?1",
    )?
    .execute(rusqlite::params_from_iter(column_values(role)))?;
    Ok(())
}
