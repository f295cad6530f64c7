//! Device pairs: pairs of interfaces that range with each other (`twr`) or
//! ignore each other (`blacklist`). A pair is stored once, its ends in the
//! order of [`DevicePair::normalized`]; one pair of interfaces has one type.

use netcfg_model::{DeviceKey, DevicePair, Interface, PairType, SerialNumber, body::InterfaceRef};
use rusqlite::{Connection, OptionalExtension, params};

use super::{Net, devices};
use crate::{
    error::{ConflictKind, Missing, StoreError},
    sql::{self, get, get_serial, get_word, word},
};

/// What became of one pair of a create or delete request. The HTTP layer
/// answers 201 (or 200) when every pair succeeded, 206 when some did, an
/// error when none did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PairOutcome {
    /// The pair was created.
    Created,
    /// The pair was deleted.
    Deleted,
    /// Creating: these interfaces are already paired, with this type.
    AlreadyPaired {
        /// The type the existing pair has.
        pair_type: PairType,
    },
    /// Deleting: these interfaces are not paired with this type.
    NotPaired,
    /// The configuration has no device with this serial number.
    UnknownDevice {
        /// The serial number.
        serial_number: SerialNumber,
    },
    /// The device has no interface with this identifier.
    UnknownInterface {
        /// The device.
        serial_number: SerialNumber,
        /// The interface asked for.
        identifier: u8,
    },
    /// Both ends are the same interface.
    SelfPair,
}

impl PairOutcome {
    /// True for `Created` and `Deleted`.
    pub fn succeeded(&self) -> bool {
        matches!(self, Self::Created | Self::Deleted)
    }
}

const COLUMNS: &str = "serial_number_1, interface_1, serial_number_2, interface_2, pair_type";

fn read_pair(row: &rusqlite::Row<'_>) -> rusqlite::Result<DevicePair> {
    Ok(DevicePair {
        serial_number_1: get_serial(row, 0)?,
        interface_1: get::<u8, i64>(row, 1)?,
        serial_number_2: get_serial(row, 2)?,
        interface_2: get::<u8, i64>(row, 3)?,
        pair_type: get_word(row, 4)?,
    })
}

/// Every pair.
pub(super) fn list(conn: &Connection) -> Result<Vec<DevicePair>, StoreError> {
    let mut statement = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM device_pairs ORDER BY serial_number_1, interface_1, serial_number_2, interface_2"
    ))?;
    let rows = statement.query_map([], read_pair)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The pairs one device is part of.
fn of_serial(conn: &Connection, serial: SerialNumber) -> Result<Vec<DevicePair>, StoreError> {
    let mut statement = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM device_pairs WHERE serial_number_1 = ?1
         UNION SELECT {COLUMNS} FROM device_pairs WHERE serial_number_2 = ?1
         ORDER BY 1, 2, 3, 4"
    ))?;
    let rows = statement.query_map([sql::serial(serial)], read_pair)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Removes and returns the pairs of a device (before its serial number or
/// interfaces change).
pub(super) fn detach(
    conn: &Connection,
    serial: SerialNumber,
) -> Result<Vec<DevicePair>, StoreError> {
    let pairs = of_serial(conn, serial)?;
    if !pairs.is_empty() {
        conn.prepare_cached(
            "DELETE FROM device_pairs WHERE serial_number_1 = ?1 OR serial_number_2 = ?1",
        )?
        .execute([sql::serial(serial)])?;
    }
    Ok(pairs)
}

/// Puts back the pairs [`detach`] took, with `old` renamed to `new`, except
/// those whose interface on that device is gone.
pub(super) fn reattach(
    conn: &Connection,
    pairs: Vec<DevicePair>,
    old: SerialNumber,
    new: SerialNumber,
    interfaces: &[Interface],
) -> Result<(), StoreError> {
    let kept = |identifier: u8| interfaces.iter().any(|i| i.identifier == identifier);
    for mut pair in pairs {
        if pair.serial_number_1 == old {
            if !kept(pair.interface_1) {
                continue;
            }
            pair.serial_number_1 = new;
        }
        if pair.serial_number_2 == old {
            if !kept(pair.interface_2) {
                continue;
            }
            pair.serial_number_2 = new;
        }
        insert(conn, &pair.normalized(), true)?;
    }
    Ok(())
}

/// Removes the pairs one interface is part of.
pub(super) fn delete_of_interface(
    conn: &Connection,
    serial: SerialNumber,
    identifier: u8,
) -> Result<(), StoreError> {
    conn.prepare_cached(
        "DELETE FROM device_pairs WHERE (serial_number_1 = ?1 AND interface_1 = ?2)
                                     OR (serial_number_2 = ?1 AND interface_2 = ?2)",
    )?
    .execute(params![sql::serial(serial), identifier])?;
    Ok(())
}

fn insert(conn: &Connection, pair: &DevicePair, or_ignore: bool) -> Result<(), StoreError> {
    let verb = if or_ignore {
        "INSERT OR IGNORE"
    } else {
        "INSERT"
    };
    conn.prepare_cached(&format!(
        "{verb} INTO device_pairs ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5)"
    ))?
    .execute(params![
        sql::serial(pair.serial_number_1),
        pair.interface_1,
        sql::serial(pair.serial_number_2),
        pair.interface_2,
        word(&pair.pair_type)
    ])?;
    Ok(())
}

/// Why a pair's ends cannot be used, if they cannot.
fn check_ends(conn: &Connection, pair: &DevicePair) -> Result<Option<PairOutcome>, StoreError> {
    if pair.serial_number_1 == pair.serial_number_2 && pair.interface_1 == pair.interface_2 {
        return Ok(Some(PairOutcome::SelfPair));
    }
    for (serial_number, identifier) in [
        (pair.serial_number_1, pair.interface_1),
        (pair.serial_number_2, pair.interface_2),
    ] {
        let Some(id) = devices::find(conn, DeviceKey::Serial(serial_number))? else {
            return Ok(Some(PairOutcome::UnknownDevice { serial_number }));
        };
        if !sql::exists(
            conn,
            "SELECT 1 FROM interfaces WHERE device_id = ?1 AND identifier = ?2",
            params![id, identifier],
        )? {
            return Ok(Some(PairOutcome::UnknownInterface {
                serial_number,
                identifier,
            }));
        }
    }
    Ok(None)
}

fn stored_type(conn: &Connection, pair: &DevicePair) -> Result<Option<PairType>, StoreError> {
    let mut statement = conn.prepare_cached(
        "SELECT pair_type FROM device_pairs WHERE serial_number_1 = ?1 AND interface_1 = ?2
                                              AND serial_number_2 = ?3 AND interface_2 = ?4",
    )?;
    Ok(statement
        .query_row(
            params![
                sql::serial(pair.serial_number_1),
                pair.interface_1,
                sql::serial(pair.serial_number_2),
                pair.interface_2
            ],
            |row| get_word(row, 0),
        )
        .optional()?)
}

fn create_one(conn: &Connection, pair: &DevicePair) -> Result<PairOutcome, StoreError> {
    let pair = pair.normalized();
    if let Some(refusal) = check_ends(conn, &pair)? {
        return Ok(refusal);
    }
    if let Some(pair_type) = stored_type(conn, &pair)? {
        return Ok(PairOutcome::AlreadyPaired { pair_type });
    }
    insert(conn, &pair, false)?;
    Ok(PairOutcome::Created)
}

fn delete_one(conn: &Connection, pair: &DevicePair) -> Result<PairOutcome, StoreError> {
    let pair = pair.normalized();
    if let Some(refusal) = check_ends(conn, &pair)? {
        return Ok(refusal);
    }
    if stored_type(conn, &pair)? != Some(pair.pair_type) {
        return Ok(PairOutcome::NotPaired);
    }
    conn.prepare_cached(
        "DELETE FROM device_pairs WHERE serial_number_1 = ?1 AND interface_1 = ?2
                                    AND serial_number_2 = ?3 AND interface_2 = ?4",
    )?
    .execute(params![
        sql::serial(pair.serial_number_1),
        pair.interface_1,
        sql::serial(pair.serial_number_2),
        pair.interface_2
    ])?;
    Ok(PairOutcome::Deleted)
}

/// The pair a 5.0 paired-interface request names.
fn interface_pair(
    serial_number: SerialNumber,
    identifier: u8,
    pair_type: PairType,
    other: InterfaceRef,
) -> DevicePair {
    DevicePair {
        serial_number_1: serial_number,
        interface_1: identifier,
        serial_number_2: other.serial_number,
        interface_2: other.identifier,
        pair_type,
    }
}

/// Turns a refusal of a single-pair request into an error.
fn refusal_error(outcome: PairOutcome, pair: &DevicePair) -> StoreError {
    let what = format!(
        "pair {}-{} / {}-{}",
        pair.serial_number_1, pair.interface_1, pair.serial_number_2, pair.interface_2
    );
    match outcome {
        PairOutcome::UnknownDevice { serial_number } => {
            StoreError::not_found(Missing::Device, format!("device {serial_number}"))
        }
        PairOutcome::UnknownInterface {
            serial_number,
            identifier,
        } => StoreError::not_found(
            Missing::Interface,
            format!("interface {identifier} of device {serial_number}"),
        ),
        PairOutcome::AlreadyPaired { pair_type } => StoreError::conflict(
            ConflictKind::AlreadyPaired,
            what,
            format!("the interfaces are already paired ({pair_type})"),
        ),
        PairOutcome::NotPaired => StoreError::not_found(Missing::DevicePair, what),
        PairOutcome::SelfPair => {
            StoreError::invalid("interface", "an interface cannot pair with itself")
        }
        PairOutcome::Created | PairOutcome::Deleted => {
            StoreError::io_message("pairing", "a success was taken for a refusal")
        }
    }
}

impl Net {
    /// Creates pairs, each on its own: the answer gives each pair's outcome,
    /// in the order given.
    pub fn create_pairs(
        &self,
        pairs: Vec<DevicePair>,
    ) -> Result<Vec<(DevicePair, PairOutcome)>, StoreError> {
        self.each_pair(pairs, create_one)
    }

    /// Deletes pairs (matching ends and type), each on its own.
    pub fn delete_pairs(
        &self,
        pairs: Vec<DevicePair>,
    ) -> Result<Vec<(DevicePair, PairOutcome)>, StoreError> {
        self.each_pair(pairs, delete_one)
    }

    /// Runs `step` on each pair in one change, each pair with its outcome.
    fn each_pair(
        &self,
        pairs: Vec<DevicePair>,
        step: fn(&Connection, &DevicePair) -> Result<PairOutcome, StoreError>,
    ) -> Result<Vec<(DevicePair, PairOutcome)>, StoreError> {
        self.db.write(move |conn| {
            pairs
                .into_iter()
                .map(|pair| step(conn, &pair).map(|outcome| (pair, outcome)))
                .collect()
        })
    }

    /// Every pair.
    pub fn pairs(&self) -> Result<Vec<DevicePair>, StoreError> {
        self.db.read(list)
    }

    /// The pairs one device is part of; `NotFound` for an unknown device.
    pub fn pairs_of(&self, serial: SerialNumber) -> Result<Vec<DevicePair>, StoreError> {
        self.db.read(move |conn| {
            devices::require(conn, DeviceKey::Serial(serial))?;
            of_serial(conn, serial)
        })
    }

    /// 5.0 `PUT .../{interface_identifier}/{_type}_interfaces`: pairs one
    /// interface with `other`.
    pub fn pair_interface(
        &self,
        key: DeviceKey,
        identifier: u8,
        pair_type: PairType,
        other: InterfaceRef,
    ) -> Result<DevicePair, StoreError> {
        self.db.write(move |conn| {
            let device = devices::load(conn, devices::require(conn, key)?)?;
            let pair = interface_pair(device.serial_number, identifier, pair_type, other);
            match create_one(conn, &pair)? {
                PairOutcome::Created => Ok(pair),
                refusal => Err(refusal_error(refusal, &pair)),
            }
        })
    }

    /// 5.0 `DELETE .../{_type}_interfaces/{interface}`: ends one pair.
    pub fn unpair_interface(
        &self,
        key: DeviceKey,
        identifier: u8,
        pair_type: PairType,
        other: InterfaceRef,
    ) -> Result<(), StoreError> {
        self.db.write(move |conn| {
            let device = devices::load(conn, devices::require(conn, key)?)?;
            let pair = interface_pair(device.serial_number, identifier, pair_type, other);
            match delete_one(conn, &pair)? {
                PairOutcome::Deleted => Ok(()),
                refusal => Err(refusal_error(refusal, &pair)),
            }
        })
    }

    /// The interfaces paired with one interface, with this type.
    pub fn paired_interfaces(
        &self,
        key: DeviceKey,
        identifier: u8,
        pair_type: PairType,
    ) -> Result<Vec<InterfaceRef>, StoreError> {
        self.db.read(move |conn| {
            let device = devices::load(conn, devices::require(conn, key)?)?;
            if device.interface(identifier).is_none() {
                return Err(StoreError::not_found(
                    Missing::Interface,
                    format!("interface {identifier} of device {key}"),
                ));
            }
            let serial = device.serial_number;
            Ok(of_serial(conn, serial)?
                .into_iter()
                .filter(|pair| pair.pair_type == pair_type)
                .filter_map(|pair| {
                    if pair.serial_number_1 == serial && pair.interface_1 == identifier {
                        Some(InterfaceRef {
                            serial_number: pair.serial_number_2,
                            identifier: pair.interface_2,
                        })
                    } else if pair.serial_number_2 == serial && pair.interface_2 == identifier {
                        Some(InterfaceRef {
                            serial_number: pair.serial_number_1,
                            identifier: pair.interface_1,
                        })
                    } else {
                        None
                    }
                })
                .collect())
        })
    }
}
