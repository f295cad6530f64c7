//! Devices and the roles they point at: a device's body (its interfaces
//! sometimes sent as a string, as the API allows), addressed by serial
//! number or id; roles with random optional fields, deleted only when no
//! device of this worker uses them.

use anyhow::Result;

use super::{Worker, merged, with_id};
use crate::{
    server::{Value, object},
    soak::model::Kind,
};

const LED_BRIGHTNESS: [&str; 4] = ["Off", "Very Dim", "Dim", "Bright"];
const TRACKING: [&str; 4] = ["off", "light", "default", "strong"];
const MAX_SPEEDS: [i64; 3] = [500, 3_000, 10_000];
const SENSOR_PERIODS: [i64; 3] = [0, 975, 9750];
const ROLE_PERIODS: [i64; 3] = [9750, 48750, 97500];
const ROLE_OPTIONAL: [&str; 8] = [
    "window_duration",
    "device_count",
    "accelerometer_period",
    "gyroscope_period",
    "quaternion_period",
    "magnetometer_period",
    "pressure_period",
    "temperature_period",
];

impl Worker {
    /// A device body, and the device the server must then hold (less its id).
    fn device_body(&mut self, net: &str, serial: &str) -> (Value, Value) {
        let mut roles: Vec<i64> = self
            .own(net, Kind::Roles)
            .iter()
            .filter_map(|(key, _)| key.parse().ok())
            .collect();
        roles.extend([2, 4]);
        let role = self.rng.pick(&roles).copied().unwrap_or(4);
        let mut interface = vec![
            ("identifier", Value::from(0)),
            ("role_id", Value::from(role)),
        ];
        if role == 2 || self.rng.chance(30) {
            interface.push(("x", Value::from(self.rng.range(-50_000, 50_000))));
            interface.push(("y", Value::from(self.rng.range(-50_000, 50_000))));
            interface.push(("z", Value::from(self.rng.range(0, 5_000))));
        }
        let interfaces = Value::Array(vec![object(interface)]);
        let name = if self.rng.chance(70) {
            Value::from(format!("w{} device {}", self.id, self.rng.below(1000)))
        } else {
            Value::Null
        };
        let disabled = Value::from(self.rng.chance(20));
        let expected = object([
            ("serial_number", Value::from(serial)),
            ("interfaces", interfaces.clone()),
            ("disabled", disabled.clone()),
            ("name", name.clone()),
        ]);
        // The interfaces may also travel as a string that holds the array.
        let sent_interfaces = if self.rng.chance(20) {
            Value::from(interfaces.to_string())
        } else {
            interfaces
        };
        let mut body = vec![
            ("serial_number", Value::from(serial)),
            ("interfaces", sent_interfaces),
            ("disabled", disabled),
        ];
        if name != Value::Null {
            body.push(("name", name));
        }
        (object(body), expected)
    }

    pub(super) fn create_device(&mut self, net: &str) -> Result<()> {
        let n = self.next();
        let serial = format!("{:02X}:5A:{:04X}", self.id, n & 0xFFFF);
        let (body, expected) = self.device_body(net, &serial);
        self.create(net, Kind::Devices, "create device", &body, 201, expected)
    }

    /// The path key of a device: its serial number, or now and then its id.
    fn device_key(&mut self, serial: &str, device: &Value) -> String {
        match device.get("id").and_then(Value::as_i64) {
            Some(id) if self.rng.chance(30) => id.to_string(),
            _ => serial.to_owned(),
        }
    }

    pub(super) fn patch_device(&mut self, net: &str) -> Result<()> {
        let Some((serial, device)) = self.pick_own(net, Kind::Devices) else {
            return Ok(());
        };
        let (body, expected) = self.device_body(net, &serial);
        let expected = with_id(expected, &device);
        let key = self.device_key(&serial, &device);
        self.patch(net, Kind::Devices, "patch device", &key, &body, &expected)
    }

    pub(super) fn delete_device(&mut self, net: &str) -> Result<()> {
        let Some((serial, device)) = self.pick_own(net, Kind::Devices) else {
            return Ok(());
        };
        let key = self.device_key(&serial, &device);
        let path = format!("/nets/{net}/devices/{key}");
        self.call("delete device", "DELETE", &path, None, 200)?;
        self.record(net, |model| {
            model.remove(Kind::Devices, &serial);
            Ok(())
        })
    }

    /// Random role fields (the ones a role body may hold, less `name`).
    fn role_fields(&mut self, all: bool) -> Vec<(&'static str, Value)> {
        let mut fields = Vec::new();
        if all || self.rng.chance(40) {
            let period = *self.rng.pick(&ROLE_PERIODS).unwrap_or(&97_500);
            fields.push(("network_period", Value::from(period)));
        }
        for field in ROLE_OPTIONAL {
            if self.rng.chance(25) {
                let value = match field {
                    // Below every period used, so always shorter than it.
                    "window_duration" => *self.rng.pick(&[0, 975]).unwrap_or(&0),
                    "device_count" => self.rng.range(0, 50),
                    _ => *self.rng.pick(&SENSOR_PERIODS).unwrap_or(&0),
                };
                fields.push((field, Value::from(value)));
            }
        }
        if self.rng.chance(25) {
            let brightness = *self.rng.pick(&LED_BRIGHTNESS).unwrap_or(&"Dim");
            fields.push(("led_brightness", Value::from(brightness)));
        }
        // A tag role's tracking, taken at once by a running network.
        if self.rng.chance(15) {
            let tracking = *self.rng.pick(&TRACKING).unwrap_or(&"light");
            fields.push(("tracking", Value::from(tracking)));
        }
        if self.rng.chance(15) {
            let speed = *self.rng.pick(&MAX_SPEEDS).unwrap_or(&3_000);
            fields.push(("max_speed_mm_s", Value::from(speed)));
        }
        if fields.is_empty() {
            fields.push(("device_count", Value::from(self.rng.range(0, 50))));
        }
        fields
    }

    pub(super) fn create_role(&mut self, net: &str) -> Result<()> {
        let n = self.next();
        let name = format!("t{}-role-{}", self.id, n);
        let mut fields = self.role_fields(true);
        fields.push(("name", Value::from(name.as_str())));
        let body = object(fields);
        // What the server fills in for the fields left out.
        let defaults = object(
            ROLE_OPTIONAL
                .iter()
                .map(|field| (*field, Value::from(0)))
                .chain([
                    ("led_brightness", Value::from("Bright")),
                    ("tracking", Value::from("default")),
                    ("max_speed_mm_s", Value::from(3_000)),
                ]),
        );
        let expected = merged(defaults, &body);
        self.create(net, Kind::Roles, "create role", &body, 201, expected)
    }

    pub(super) fn patch_role(&mut self, net: &str) -> Result<()> {
        let Some((id, role)) = self.pick_own(net, Kind::Roles) else {
            return Ok(());
        };
        let mut fields = self.role_fields(false);
        if self.rng.chance(15) {
            let n = self.next();
            let name = format!("t{}-role-{}", self.id, n);
            fields.push(("name", Value::from(name)));
        }
        let body = object(fields);
        let expected = merged(role, &body);
        self.patch(net, Kind::Roles, "patch role", &id, &body, &expected)
    }

    pub(super) fn delete_role(&mut self, net: &str) -> Result<()> {
        let used: Vec<i64> = self
            .own(net, Kind::Devices)
            .iter()
            .flat_map(|(_, device)| {
                device
                    .get("interfaces")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|interface| interface.get("role_id").and_then(Value::as_i64))
                    .collect::<Vec<_>>()
            })
            .collect();
        let unused: Vec<String> = self
            .own(net, Kind::Roles)
            .into_iter()
            .map(|(id, _)| id)
            .filter(|id| id.parse().is_ok_and(|id: i64| !used.contains(&id)))
            .collect();
        let Some(id) = self.rng.pick(&unused).cloned() else {
            return Ok(());
        };
        let path = format!("/nets/{net}/roles/{id}");
        self.call("delete role", "DELETE", &path, None, 204)?;
        self.record(net, |model| {
            model.remove(Kind::Roles, &id);
            Ok(())
        })
    }
}
