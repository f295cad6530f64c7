//! Data-driven CRUD and rule tests: every `fixtures/store/scenarios/*.json`
//! is a list of steps run in order against a new configuration. A step names
//! an operation of [`Net`] with its arguments, the outcome expected (`ok` or
//! an error kind) and, optionally, a JSON value the result must contain.

use netcfg_model::{
    DeviceKey, Level, NetworkMode, PairType, PositionLimitKey, RoleId, SettingKey, SettingScope,
    body::{DevicePairsBody, InterfaceRef, SettingsBody},
};
use netcfg_store::{Net, PairOutcome, SettingDeletion, SettingWrite, StoreError, StreamDeletion};
use serde_json::{Value, json};

use crate::support::{kind, store_with_net};

fn arg<T: serde::de::DeserializeOwned>(step: &Value, field: &str) -> T {
    let value = step
        .get(field)
        .unwrap_or_else(|| panic!("step {step} needs `{field}`"));
    serde_json::from_value(value.clone())
        .unwrap_or_else(|error| panic!("step {step}: `{field}` is unreadable: {error}"))
}

fn to_json<T: serde::Serialize>(value: T) -> Value {
    serde_json::to_value(value).expect("results serialise")
}

fn schedule_json(
    (schedule, ledger): (netcfg_model::Schedule, netcfg_model::ScheduleLedger),
) -> Value {
    let mut value = to_json(schedule);
    value["last_run"] = to_json(ledger.last);
    value
}

fn pair_outcomes(outcomes: Vec<(netcfg_model::DevicePair, PairOutcome)>) -> Value {
    Value::Array(
        outcomes
            .into_iter()
            .map(|(_, outcome)| {
                Value::String(match outcome {
                    PairOutcome::Created => "created".into(),
                    PairOutcome::Deleted => "deleted".into(),
                    PairOutcome::AlreadyPaired { pair_type } => {
                        format!("already_paired:{pair_type}")
                    }
                    PairOutcome::NotPaired => "not_paired".into(),
                    PairOutcome::UnknownDevice { .. } => "unknown_device".into(),
                    PairOutcome::UnknownInterface { .. } => "unknown_interface".into(),
                    PairOutcome::SelfPair => "self_pair".into(),
                })
            })
            .collect(),
    )
}

/// A settings body built field by field, without the model's catalogue
/// checks, so the store's own checks are what the scenario tests.
fn settings_body(step: &Value) -> SettingsBody {
    let body = step["body"]
        .as_object()
        .expect("a settings body is an object");
    let pairs: Vec<(String, Value)> = match (body.get("setting_key"), body.get("value")) {
        (Some(Value::String(key)), Some(value)) => vec![(key.clone(), value.clone())],
        _ => body.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
    };
    SettingsBody {
        settings: pairs
            .into_iter()
            .map(|(key, value)| {
                (
                    key.parse().expect("a valid setting key"),
                    serde_json::from_value(value).expect("a setting value"),
                )
            })
            .collect(),
    }
}

fn scope(step: &Value) -> SettingScope {
    match step.get("class") {
        Some(_) => SettingScope {
            class: arg(step, "class"),
            id: arg(step, "setting_id"),
        },
        None => SettingScope::system(),
    }
}

fn limit_key(step: &Value) -> PositionLimitKey {
    match step.get("id") {
        Some(_) => PositionLimitKey::Id(arg(step, "id")),
        None => PositionLimitKey::Name(arg(step, "name")),
    }
}

/// One group of operations: the result of `op` as JSON, or `None` when
/// `op` is none of the group's.
type Operations = fn(&Net, &Value, &str) -> Result<Option<Value>, StoreError>;

/// Runs one step; the result as JSON.
fn run(net: &Net, step: &Value) -> Result<Value, StoreError> {
    let op: String = arg(step, "op");
    let groups: [Operations; 9] = [
        configuration_op,
        device_op,
        pair_op,
        stream_and_role_op,
        rf_and_limit_op,
        rule_zone_and_output_op,
        schedule_op,
        setting_op,
        notification_and_cache_op,
    ];
    for group in groups {
        if let Some(result) = group(net, step, &op)? {
            return Ok(result);
        }
    }
    panic!("unknown operation `{op}` in step {step}")
}

/// The configuration itself: instance, group image, network mode.
fn configuration_op(net: &Net, step: &Value, op: &str) -> Result<Option<Value>, StoreError> {
    Ok(Some(match op {
        "configuration" => to_json(net.configuration()?),
        "set_instance" => to_json(net.set_instance(arg(step, "instance"))?),
        "group_image" => to_json(net.group_image()?),
        "patch_group_image" => to_json(net.patch_group_image(arg(step, "body"))?),
        "network_mode" => to_json(net.network_mode()?),
        "set_network_mode" => to_json(net.set_network_mode(arg::<NetworkMode>(step, "mode"))?),
        _ => return Ok(None),
    }))
}

/// Devices, their interfaces and calibrations.
fn device_op(net: &Net, step: &Value, op: &str) -> Result<Option<Value>, StoreError> {
    let key = || arg::<DeviceKey>(step, "key");
    let identifier = || arg::<u8>(step, "identifier");
    Ok(Some(match op {
        "create_device" => to_json(net.create_device(arg(step, "body"))?),
        "create_devices" => to_json(net.create_devices(arg(step, "bodies"))?),
        "device" => to_json(net.device(key())?),
        "devices" => to_json(net.devices()?),
        "replace_device" => to_json(net.replace_device(key(), arg(step, "body"))?),
        "patch_devices" => Value::Object(
            net.patch_devices(arg(step, "bodies"))?
                .into_iter()
                .map(|(serial, outcome)| {
                    let outcome = match outcome {
                        Ok(_) => "ok",
                        Err(error) => kind(&error),
                    };
                    (serial.to_string(), json!(outcome))
                })
                .collect(),
        ),
        "delete_device" => to_json(net.delete_device(key())?),
        "delete_devices" => to_json(net.delete_devices(arg(step, "delete"))?),
        "interface" => to_json(net.interface(key(), identifier())?),
        "interfaces" => to_json(net.interfaces(key())?),
        "delete_interface" => to_json(net.delete_interface(key(), identifier())?),
        "interface_role" => to_json(net.interface_role(key(), identifier())?),
        "clear_interface_role" => to_json(net.clear_interface_role(
            key(),
            identifier(),
            arg::<RoleId>(step, "role_id"),
        )?),
        "set_magnetometer_calibration" => {
            to_json(net.set_magnetometer_calibration(key(), arg(step, "body"))?)
        }
        "magnetometer_calibration" => to_json(net.magnetometer_calibration(key())?),
        _ => return Ok(None),
    }))
}

/// Pairs of interfaces.
fn pair_op(net: &Net, step: &Value, op: &str) -> Result<Option<Value>, StoreError> {
    let key = || arg::<DeviceKey>(step, "key");
    let identifier = || arg::<u8>(step, "identifier");
    let pairs = || {
        arg::<DevicePairsBody>(step, "body")
            .pairs
            .iter()
            .map(|pair| pair.to_pair())
            .collect()
    };
    Ok(Some(match op {
        "create_pairs" => pair_outcomes(net.create_pairs(pairs())?),
        "delete_pairs" => pair_outcomes(net.delete_pairs(pairs())?),
        "pairs" => to_json(net.pairs()?),
        "pairs_of" => to_json(net.pairs_of(arg(step, "serial"))?),
        "pair_interface" => to_json(net.pair_interface(
            key(),
            identifier(),
            arg::<PairType>(step, "type"),
            arg::<InterfaceRef>(step, "interface"),
        )?),
        "unpair_interface" => to_json(net.unpair_interface(
            key(),
            identifier(),
            arg::<PairType>(step, "type"),
            arg::<InterfaceRef>(step, "interface"),
        )?),
        "paired_interfaces" => {
            to_json(net.paired_interfaces(key(), identifier(), arg(step, "type"))?)
        }
        _ => return Ok(None),
    }))
}

/// Streams and roles.
fn stream_and_role_op(net: &Net, step: &Value, op: &str) -> Result<Option<Value>, StoreError> {
    Ok(Some(match op {
        "create_stream" => to_json(net.create_stream(arg(step, "body"))?),
        "stream" => to_json(net.stream(arg(step, "id"))?),
        "streams" => to_json(net.streams()?),
        "replace_stream" => to_json(net.replace_stream(arg(step, "id"), arg(step, "body"))?),
        "delete_stream" => match net.delete_stream(arg(step, "id"))? {
            StreamDeletion::Deleted => json!("deleted"),
            StreamDeletion::Reset(stream) => json!({"reset": stream}),
        },
        "delete_stream_outright" => to_json(net.delete_stream_outright(arg(step, "id"))?),

        "create_role" => to_json(net.create_role(arg(step, "body"))?),
        "role" => to_json(net.role(arg(step, "id"))?),
        "roles" => to_json(net.roles()?),
        "patch_role" => to_json(net.patch_role(arg(step, "id"), arg(step, "body"))?),
        "delete_role" => to_json(net.delete_role(arg(step, "id"))?),
        _ => return Ok(None),
    }))
}

/// RF settings and position limits.
fn rf_and_limit_op(net: &Net, step: &Value, op: &str) -> Result<Option<Value>, StoreError> {
    Ok(Some(match op {
        "create_rf_setting" => to_json(net.create_rf_setting(arg(step, "body"))?),
        "rf_setting" => to_json(net.rf_setting(&arg::<String>(step, "name"))?),
        "rf_settings" => to_json(net.rf_settings()?),
        "active_rf_setting" => to_json(net.active_rf_setting()?),
        "patch_rf_setting" => {
            to_json(net.patch_rf_setting(&arg::<String>(step, "name"), arg(step, "body"))?)
        }
        "delete_rf_setting" => to_json(net.delete_rf_setting(&arg::<String>(step, "name"))?),

        "create_position_limit" => to_json(net.create_position_limit(arg(step, "body"))?),
        "position_limit" => to_json(net.position_limit(limit_key(step))?),
        "position_limits" => to_json(net.position_limits()?),
        "patch_position_limit" => {
            to_json(net.patch_position_limit(limit_key(step), arg(step, "body"))?)
        }
        "delete_position_limit" => to_json(net.delete_position_limit(limit_key(step))?),
        _ => return Ok(None),
    }))
}

/// Alert rules, zones and outputs.
fn rule_zone_and_output_op(net: &Net, step: &Value, op: &str) -> Result<Option<Value>, StoreError> {
    Ok(Some(match op {
        "create_alert_rule" => to_json(net.create_alert_rule(arg(step, "body"))?),
        "alert_rule" => to_json(net.alert_rule(arg(step, "name"))?),
        "alert_rules" => to_json(net.alert_rules()?),
        "patch_alert_rule" => to_json(net.patch_alert_rule(arg(step, "name"), arg(step, "body"))?),
        "delete_alert_rule" => to_json(net.delete_alert_rule(arg(step, "name"))?),
        "create_zone" => to_json(net.create_zone(arg(step, "body"))?),
        "zone" => to_json(net.zone(arg(step, "name"))?),
        "zones" => to_json(net.zones()?),
        "patch_zone" => to_json(net.patch_zone(arg(step, "name"), arg(step, "body"))?),
        "delete_zone" => to_json(net.delete_zone(arg(step, "name"))?),
        "create_output" => to_json(net.create_output(arg(step, "body"))?.0),
        "output" => to_json(net.output(arg(step, "name"))?),
        "outputs" => to_json(net.outputs()?),
        "patch_output" => to_json(
            net.patch_output(arg(step, "name"), arg(step, "body"), Default::default())?
                .0,
        ),
        "delete_output" => to_json(net.delete_output(arg(step, "name"))?),
        _ => return Ok(None),
    }))
}

/// Schedules, each with its ledger: the time it counts from is left out
/// (it is the clock's), its last run kept.
fn schedule_op(net: &Net, step: &Value, op: &str) -> Result<Option<Value>, StoreError> {
    Ok(Some(match op {
        "create_schedule" => schedule_json(net.create_schedule(arg(step, "body"))?),
        "schedule" => schedule_json(net.schedule(arg(step, "name"))?),
        "schedules" => Value::Array(net.schedules()?.into_iter().map(schedule_json).collect()),
        "patch_schedule" => {
            schedule_json(net.patch_schedule(arg(step, "name"), arg(step, "body"))?)
        }
        "delete_schedule" => to_json(net.delete_schedule(arg(step, "name"))?),
        "record_schedule_run" => to_json(net.record_schedule_run(
            arg(step, "name"),
            arg(step, "since_ms"),
            arg(step, "run"),
        )?),
        _ => return Ok(None),
    }))
}

/// Settings.
fn setting_op(net: &Net, step: &Value, op: &str) -> Result<Option<Value>, StoreError> {
    Ok(Some(match op {
        "setting" => to_json(net.setting(scope(step), arg::<SettingKey>(step, "key"))?),
        "settings" => match step.get("all") {
            Some(_) => to_json(net.settings(None)?),
            None => to_json(net.settings(Some(scope(step)))?),
        },
        "write_settings" => {
            let mode = match arg::<String>(step, "mode").as_str() {
                "create" => SettingWrite::Create,
                "update" => SettingWrite::Update,
                _ => SettingWrite::Upsert,
            };
            to_json(net.write_settings(scope(step), settings_body(step), mode)?)
        }
        "replace_settings" => to_json(net.replace_settings(scope(step), settings_body(step))?),
        "delete_setting" => match net.delete_setting(scope(step), arg(step, "key"))? {
            SettingDeletion::Deleted => json!("deleted"),
            SettingDeletion::Reset(setting) => json!({"reset": setting}),
        },
        _ => return Ok(None),
    }))
}

/// Notifications and the device cache.
fn notification_and_cache_op(
    net: &Net,
    step: &Value,
    op: &str,
) -> Result<Option<Value>, StoreError> {
    let key = || arg::<DeviceKey>(step, "key");
    Ok(Some(match op {
        "add_notification" => to_json(net.add_notification(
            arg::<Level>(step, "level"),
            arg::<String>(step, "message"),
            step.get("serial").map(|_| arg(step, "serial")),
            arg(step, "timestamp_ms"),
        )?),
        "notifications" => to_json(net.notifications()?),
        "notification" => to_json(net.notification(arg(step, "id"))?),
        "set_notification_read" => {
            to_json(net.set_notification_read(arg(step, "id"), arg(step, "read"))?)
        }
        "set_all_notifications_read" => to_json(net.set_all_notifications_read(arg(step, "read"))?),
        "unread_notifications" => to_json(net.unread_notifications()?),

        "upsert_cached_device" => to_json(net.upsert_cached_device(arg(step, "device"))?),
        "cached_devices" => to_json(net.cached_devices()?),
        "delete_cached_device" => to_json(net.delete_cached_device(key())?),
        "clear_cached_devices" => to_json(net.clear_cached_devices()?),
        _ => return Ok(None),
    }))
}

/// True when `actual` holds everything `expected` says: objects may have
/// more fields; arrays must have the same length.
fn contains(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Object(actual), Value::Object(expected)) => {
            expected.iter().all(|(field, value)| {
                actual
                    .get(field)
                    .is_some_and(|found| contains(found, value))
            })
        }
        (Value::Array(actual), Value::Array(expected)) => {
            actual.len() == expected.len()
                && actual.iter().zip(expected).all(|(a, e)| contains(a, e))
        }
        _ => actual == expected,
    }
}

#[test]
fn every_scenario_behaves_as_its_fixture_says() {
    let dir = crate::support::fixture("scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the scenario directory")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 8,
        "expected the scenario fixtures in {}",
        dir.display()
    );
    let mut failures = Vec::new();
    let mut steps_run = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let steps: Vec<Value> = serde_json::from_str(&text)
            .unwrap_or_else(|error| panic!("{}: {error}", file.display()));
        let (_temp, net) = store_with_net();
        for (index, step) in steps.iter().enumerate() {
            steps_run += 1;
            let expected = step.get("expect").and_then(Value::as_str).unwrap_or("ok");
            let place = format!("{} step {index} ({})", file.display(), step["op"]);
            match (run(&net, step), expected) {
                (Ok(result), "ok") => {
                    if let Some(wanted) = step.get("result")
                        && !contains(&result, wanted)
                    {
                        failures.push(format!("{place}: got {result}, expected {wanted}"));
                    }
                }
                (Ok(result), _) => failures.push(format!(
                    "{place}: succeeded with {result}, expected {expected}"
                )),
                (Err(error), _) if kind(&error) == expected => {}
                (Err(error), _) => {
                    failures.push(format!("{place}: failed with {error}, expected {expected}"))
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(steps_run > 100, "only {steps_run} steps ran");
}
