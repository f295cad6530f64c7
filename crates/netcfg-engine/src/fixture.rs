//! Values the engine's own tests and benches build sites from; not part of
//! the engine's API (hidden from its documentation).

use netcfg_model::{Device, DeviceId, Interface, RoleId, SerialNumber};

/// A device with one interface (identifier 0) in role `role`, at `position`
/// (mm) or without coordinates.
///
/// # Panics
/// When `id` is not a device id (0, or above 9,999,999): a bug in a test.
pub fn device(id: u32, serial: SerialNumber, role: RoleId, position: Option<[i32; 3]>) -> Device {
    Device {
        id: DeviceId::try_from(id).expect("a test's device id is valid"),
        serial_number: serial,
        name: None,
        disabled: false,
        interfaces: vec![Interface {
            identifier: 0,
            role_id: role,
            x: position.map(|p| p[0]),
            y: position.map(|p| p[1]),
            z: position.map(|p| p[2]),
        }],
    }
}
