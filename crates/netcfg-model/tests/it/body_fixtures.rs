//! Walks `fixtures/model/`: each folder is named after a request body of the
//! seed (or a resource), each `<case>.json` beside a `<case>.expected`.
//!
//! The expected file holds either `ok` followed by the body as the model
//! writes it back (which shows normalisation: upper-case serial numbers,
//! interfaces as an array, defaults filled in), or one line per problem,
//! `path: message`, in the order the model reports them.
//!
//! `UPDATE_EXPECT=1 cargo test -p netcfg-model --test it body_fixtures` rewrites
//! the expected files; review the diff before committing it.

use std::{
    fs,
    path::{Path, PathBuf},
};

use netcfg_model::{FromJson, Problems, RfSetting, Role, Validate, body::*};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;

/// The folders every body of the seed's table (and the 5.0 extras) must have.
const SEED_BODIES: &[&str] = &[
    "network_body",
    "action_body",
    "data_stream_body",
    "calculate_maximum_tags_parameterized_body",
    "calculate_maximum_tags_body",
    "device_command_body",
    "multi_device_command_body",
    "device_body",
    "multiple_device_patch_body",
    "multiple_device_delete_body",
    "device_pairs_body",
    "pair_body",
    "group_image_patch_body",
    "magnetometer_calibration_body",
    "notification_patch_body",
    "operating_mode_patch_body",
    "position_limits_post_body",
    "position_limits_patch_body",
    "alert_rule_post_body",
    "alert_rule_patch_body",
    "schedule_post_body",
    "schedule_patch_body",
    "zone_post_body",
    "zone_patch_body",
    "output_post_body",
    "output_patch_body",
    "recording_post_body",
    "replay_patch_body",
    "rf_settings_post_body",
    "rf_settings_patch_body",
    "role_post_body",
    "role_patch_body",
    "settings_body",
    "devices_patch_body",
    "engine_command_body",
    "paired_interface_body",
    "user_post_body",
    "user_patch_body",
    "api_key_post_body",
    "session_post_body",
    "oidc_callback_body",
];

/// Reads a body with the model's reader, then writes it back.
fn read_body<T: FromJson + Serialize>(value: &Value) -> Result<Value, Problems> {
    T::from_json(value).map(|body| serde_json::to_value(body).expect("a body serialises"))
}

/// Reads a resource with serde, then checks its rules.
fn read_resource<T: DeserializeOwned + Serialize + Validate>(
    value: &Value,
) -> Result<Value, Problems> {
    let resource = T::deserialize(value).map_err(|error| {
        let mut problems = Problems::new();
        problems.push("", error.to_string());
        problems
    })?;
    resource.validate()?;
    Ok(serde_json::to_value(resource).expect("a resource serialises"))
}

fn read(folder: &str, value: &Value) -> Result<Value, Problems> {
    match folder {
        "network_body" => read_body::<NetworkBody>(value),
        "action_body" => read_body::<ActionBody>(value),
        "data_stream_body" => read_body::<DataStreamBody>(value),
        "calculate_maximum_tags_parameterized_body" => {
            read_body::<CalculateMaximumTagsParameterizedBody>(value)
        }
        "calculate_maximum_tags_body" => read_body::<CalculateMaximumTagsBody>(value),
        "device_command_body" => read_body::<netcfg_model::DeviceAction>(value),
        "multi_device_command_body" => read_body::<MultiDeviceCommandBody>(value),
        "device_body" => read_body::<DeviceBody>(value),
        "multiple_device_patch_body" => read_body::<MultipleDevicePatchBody>(value),
        "devices_patch_body" => read_body::<DevicesPatchBody>(value),
        "multiple_device_delete_body" => read_body::<MultipleDeviceDeleteBody>(value),
        "device_pairs_body" => read_body::<DevicePairsBody>(value),
        "pair_body" => read_body::<PairBody>(value),
        "group_image_patch_body" => read_body::<GroupImagePatchBody>(value),
        "magnetometer_calibration_body" => read_body::<MagnetometerCalibrationBody>(value),
        "notification_patch_body" => read_body::<NotificationPatchBody>(value),
        "operating_mode_patch_body" => read_body::<OperatingModePatchBody>(value),
        "position_limits_post_body" => read_body::<PositionLimitsPostBody>(value),
        "position_limits_patch_body" => read_body::<PositionLimitsPatchBody>(value),
        "alert_rule_post_body" => read_body::<AlertRulePostBody>(value),
        "alert_rule_patch_body" => read_body::<AlertRulePatchBody>(value),
        "schedule_post_body" => read_body::<SchedulePostBody>(value),
        "schedule_patch_body" => read_body::<SchedulePatchBody>(value),
        "zone_post_body" => read_body::<ZonePostBody>(value),
        "zone_patch_body" => read_body::<ZonePatchBody>(value),
        "output_post_body" => read_body::<OutputPostBody>(value),
        "output_patch_body" => read_body::<OutputPatchBody>(value),
        "recording_post_body" => read_body::<RecordingPostBody>(value),
        "replay_patch_body" => read_body::<ReplayPatchBody>(value),
        "rf_settings_post_body" => read_body::<RfSettingsPostBody>(value),
        "rf_settings_patch_body" => read_body::<RfSettingsPatchBody>(value),
        "role_post_body" => read_body::<RolePostBody>(value),
        "role_patch_body" => read_body::<RolePatchBody>(value),
        "settings_body" => read_body::<SettingsBody>(value),
        "engine_command_body" => read_body::<EngineCommandBody>(value),
        "paired_interface_body" => read_body::<PairedInterfaceBody>(value),
        "user_post_body" => read_body::<UserPostBody>(value),
        "user_patch_body" => read_body::<UserPatchBody>(value),
        "api_key_post_body" => read_body::<ApiKeyPostBody>(value),
        "session_post_body" => read_body::<SessionPostBody>(value),
        "oidc_callback_body" => read_body::<OidcCallbackBody>(value),
        "role" => read_resource::<Role>(value),
        "rf_setting" => read_resource::<RfSetting>(value),
        other => {
            panic!("fixtures/model/{other}: no body or resource type is registered for this folder")
        }
    }
}

fn render(outcome: &Result<Value, Problems>) -> String {
    match outcome {
        Ok(value) => format!(
            "ok\n{}\n",
            serde_json::to_string_pretty(value).expect("JSON renders")
        ),
        Err(problems) => problems
            .as_slice()
            .iter()
            .map(|problem| format!("{problem}\n"))
            .collect(),
    }
}

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/model")
}

fn cases(folder: &Path) -> Vec<PathBuf> {
    let mut cases: Vec<PathBuf> = fs::read_dir(folder)
        .unwrap_or_else(|error| panic!("{}: {error}", folder.display()))
        .map(|entry| entry.expect("a readable entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    cases.sort();
    cases
}

#[test]
fn every_fixture_gives_its_expected_outcome() {
    let mut folders: Vec<PathBuf> = fs::read_dir(fixtures_root())
        .expect("fixtures/model exists")
        .map(|entry| entry.expect("a readable entry").path())
        .filter(|path| path.is_dir())
        .collect();
    folders.sort();
    let mut expected = netcfg_expect::Expected::new();
    for folder in &folders {
        let name = folder
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a UTF-8 folder name");
        for case in cases(folder) {
            let text = fs::read_to_string(&case).expect("a readable fixture");
            let value: Value = serde_json::from_str(&text)
                .unwrap_or_else(|error| panic!("{}: not JSON: {error}", case.display()));
            let actual = render(&read(name, &value));
            expected.file(&case.with_extension("expected"), &actual);
        }
    }
    assert!(
        expected.checked() > 0,
        "no fixtures found under {}",
        fixtures_root().display()
    );
    expected.assert();
}

#[test]
fn every_seed_body_has_a_valid_and_an_invalid_fixture() {
    let mut missing = Vec::new();
    for body in SEED_BODIES {
        let folder = fixtures_root().join(body);
        let outcomes: Vec<bool> = if folder.is_dir() {
            cases(&folder)
                .iter()
                .map(|case| {
                    let value: Value =
                        serde_json::from_str(&fs::read_to_string(case).expect("readable"))
                            .expect("fixture is JSON");
                    read(body, &value).is_ok()
                })
                .collect()
        } else {
            Vec::new()
        };
        if !outcomes.contains(&true) {
            missing.push(format!("{body}: no valid case"));
        }
        if !outcomes.contains(&false) {
            missing.push(format!("{body}: no invalid case"));
        }
    }
    assert!(
        missing.is_empty(),
        "fixtures missing:\n{}",
        missing.join("\n")
    );
}

#[test]
fn a_normalised_body_reads_back_unchanged() {
    for folder in SEED_BODIES {
        for case in cases(&fixtures_root().join(folder)) {
            let value: Value =
                serde_json::from_str(&fs::read_to_string(&case).expect("readable")).expect("JSON");
            if let Ok(normalised) = read(folder, &value) {
                let again = read(folder, &normalised).unwrap_or_else(|problems| {
                    panic!(
                        "{}: the normalised body is refused: {problems}",
                        case.display()
                    )
                });
                assert_eq!(again, normalised, "{}", case.display());
            }
        }
    }
}

mod properties {
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    use super::{SEED_BODIES, read};

    /// Any JSON value, with keys drawn partly from the seed's field names so
    /// that the readers get past "unknown field" and into their rules.
    fn any_json() -> impl Strategy<Value = Value> {
        let key = prop_oneof![
            Just("name".to_owned()),
            Just("serial_number".to_owned()),
            Just("interfaces".to_owned()),
            Just("action".to_owned()),
            Just("network_period".to_owned()),
            Just("channel".to_owned()),
            Just("preamble_code".to_owned()),
            Just("prf".to_owned()),
            Just("min_x".to_owned()),
            Just("max_x".to_owned()),
            Just("setting_key".to_owned()),
            Just("value".to_owned()),
            Just("pairs".to_owned()),
            Just("delete".to_owned()),
            Just("identifier".to_owned()),
            Just("role_id".to_owned()),
            "[a-z_]{0,12}",
        ];
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            any::<u32>().prop_map(|n| json!(n)),
            (-1e12f64..1e12).prop_map(|n| json!(n)),
            "\\PC{0,24}".prop_map(Value::String),
            "[0-9A-Fa-f:]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((key.clone(), inner), 0..8)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// No input panics a reader, and whatever a reader accepts it writes
        /// back in a form it accepts again, unchanged.
        #[test]
        fn readers_never_panic_and_accepted_bodies_are_stable(value in any_json()) {
            for body in SEED_BODIES {
                match read(body, &value) {
                    Ok(normalised) => prop_assert_eq!(read(body, &normalised).ok(), Some(normalised)),
                    Err(problems) => prop_assert!(!problems.is_empty()),
                }
            }
        }

        #[test]
        fn key_parsers_never_panic_and_round_trip(text in "\\PC{0,40}") {
            use netcfg_model::{DeviceKey, Instance, body::{DeviceSelection, InterfaceRef}};
            if let Ok(key) = text.parse::<DeviceKey>() {
                prop_assert_eq!(key.to_string().parse::<DeviceKey>().ok(), Some(key));
            }
            if let Ok(instance) = text.parse::<Instance>() {
                prop_assert_eq!(instance.to_string().parse::<Instance>().ok(), Some(instance));
            }
            if let Ok(interface) = text.parse::<InterfaceRef>() {
                prop_assert_eq!(interface.to_string().parse::<InterfaceRef>().ok(), Some(interface));
            }
            if let Ok(selection) = text.parse::<DeviceSelection>() {
                prop_assert_eq!(selection.to_string().parse::<DeviceSelection>().ok(), Some(selection));
            }
        }
    }
}
