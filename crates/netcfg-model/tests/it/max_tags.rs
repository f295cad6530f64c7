//! The maximum-tag calculator against its worked examples (fixtures under
//! `fixtures/max_tags/`, computed by hand in `docs/max-tags.md`), the public
//! capacity figure, and its error cases.

use std::{fs, path::PathBuf};

use netcfg_model::{
    FromJson, NetworkMode, NetworkTime, Problems, RfSetting, Role, RoleId,
    body::CalculateMaximumTagsParameterizedBody,
    builtin_roles,
    max_tags::{self, LimitingFactor, MaxTagsInputs, MaxTagsResult, Seeders},
};
use serde_json::{Value, json};

/// The inputs of a fixture: a request body with the configuration's RF
/// settings, or a configuration's role, RF setting, seeders and setting.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
enum FixtureInput {
    #[serde(rename = "request")]
    Body {
        body: Value,
        rf_settings: Vec<RfSetting>,
        network_mode: NetworkMode,
    },
    #[serde(rename = "configuration")]
    Configuration {
        role: Role,
        rf_setting: RfSetting,
        seeders: SeedersInput,
        max_tag_period: NetworkTime,
        network_mode: NetworkMode,
    },
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SeedersInput {
    count: u32,
    period: NetworkTime,
}

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/max_tags")
}

fn problems_json(problems: &Problems) -> Value {
    serde_json::to_value(problems.as_slice()).expect("problems serialise")
}

/// Where each problem is, in order.
fn paths(problems: &Problems) -> Vec<&str> {
    problems
        .as_slice()
        .iter()
        .map(|p| p.path.as_str())
        .collect()
}

/// Runs one fixture's input the way the API would: read the body (every
/// problem), resolve it, calculate.
fn run(input: &Value) -> Value {
    let input: FixtureInput = serde_json::from_value(input.clone()).expect("a fixture input");
    let outcome = match input {
        FixtureInput::Body {
            body,
            rf_settings,
            network_mode,
        } => CalculateMaximumTagsParameterizedBody::from_json(&body)
            .and_then(|body| MaxTagsInputs::from_body(&body, &rf_settings, network_mode)),
        FixtureInput::Configuration {
            role,
            rf_setting,
            seeders,
            max_tag_period,
            network_mode,
        } => MaxTagsInputs::from_role(
            &role,
            &rf_setting,
            Seeders {
                count: seeders.count,
                period: seeders.period,
            },
            max_tag_period,
            network_mode,
        ),
    }
    .and_then(|inputs| max_tags::calculate(&inputs));
    match outcome {
        Ok(result) => json!({ "result": result }),
        Err(problems) => json!({ "problems": problems_json(&problems) }),
    }
}

#[test]
fn every_fixture_gives_its_expected_output() {
    let mut results = 0;
    let mut problems = 0;
    let mut entries: Vec<_> = fs::read_dir(fixtures_dir())
        .expect("fixtures/max_tags exists")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.to_string_lossy().ends_with(".input.json"))
        .collect();
    entries.sort();
    for input_path in entries {
        let expected_path = PathBuf::from(
            input_path
                .to_string_lossy()
                .replace(".input.json", ".expected.json"),
        );
        let read = |path: &PathBuf| -> Value {
            serde_json::from_str(&fs::read_to_string(path).expect("a fixture file"))
                .expect("fixture JSON")
        };
        let expected = read(&expected_path);
        let actual = run(&read(&input_path));
        assert_eq!(
            actual,
            expected,
            "{} gave\n{}",
            input_path.display(),
            serde_json::to_string_pretty(&actual).unwrap()
        );
        if expected.get("result").is_some() {
            results += 1;
        } else {
            problems += 1;
        }
    }
    // The three worked examples of docs/max-tags.md, and the error cases.
    assert_eq!((results, problems), (3, 4));
}

fn public_inputs() -> MaxTagsInputs {
    let body = CalculateMaximumTagsParameterizedBody::from_json(&json!({
        "number_of_seeders": 4, "seeder_period": 97_500,
        "tag_period": 97_500, "maximum_tag_period": 48_750,
    }))
    .expect("a valid body");
    MaxTagsInputs::from_body(&body, &[], NetworkMode::MultiTime).expect("valid inputs")
}

#[test]
fn the_public_figure_holds_at_the_usual_setting() {
    let inputs = public_inputs();
    // No RF settings given and no name: the built-in default setting.
    assert_eq!(inputs.rf_setting, RfSetting::default_setting());
    let result = max_tags::calculate(&inputs).expect("a result");
    assert!(
        (250..=400).contains(&result.maximum_tags),
        "{} tags",
        result.maximum_tags
    );
    // About 3,300 locations per second in one coverage area: within 10 %.
    assert!((result.locations_per_second / 3_300.0 - 1.0).abs() < 0.1);
}

#[test]
fn multirange_carries_far_fewer_locations_than_multitime() {
    let mut inputs = public_inputs();
    inputs.network_mode = NetworkMode::MultiRange;
    let result = max_tags::calculate(&inputs).expect("a result");
    // The public figure is about 150 locations per second.
    assert!(
        (100.0..=250.0).contains(&result.locations_per_second),
        "{}",
        result.locations_per_second
    );
}

#[test]
fn a_body_built_in_rust_gets_every_problem_including_the_setting_name() {
    let body = CalculateMaximumTagsParameterizedBody {
        number_of_seeders: 2,
        seeder_period: NetworkTime::ZERO,
        tag_period: NetworkTime::ZERO,
        maximum_tag_period: NetworkTime::ZERO,
        accelerometer_period: None,
        gyroscope_period: None,
        magnetometer_period: None,
        quaternion_period: None,
        pressure_period: None,
        temperature_period: None,
        payload_overhead_size: Some(1_023),
        user_data_period: None,
        user_data_size: Some(1_024),
        settings: Some("fast".parse().expect("a name")),
    };
    let problems = MaxTagsInputs::from_body(
        &body,
        &[RfSetting::default_setting()],
        NetworkMode::MultiTime,
    )
    .expect_err("problems");
    assert_eq!(
        paths(&problems),
        [
            "settings",
            "tag_period",
            "maximum_tag_period",
            "seeder_period",
            "payload_overhead_size",
            "user_data_size"
        ]
    );
    assert_eq!(
        problems.as_slice()[0].message,
        "no RF setting is named `fast`; the settings are: default"
    );
}

#[test]
fn a_named_setting_is_found_and_absent_means_default() {
    let mut slow = RfSetting::default_setting();
    slow.name = "slow".parse().expect("a name");
    slow.bit_rate = netcfg_model::BitRate::Kbps110;
    let mut custom_default = RfSetting::default_setting();
    custom_default.preamble_length = netcfg_model::PreambleLength::Symbols128;
    let settings = [custom_default.clone(), slow.clone()];
    let mut body = CalculateMaximumTagsParameterizedBody::from_json(&json!({
        "number_of_seeders": 0, "seeder_period": 0,
        "tag_period": 97_500, "maximum_tag_period": 97_500,
    }))
    .expect("a valid body");
    let inputs = MaxTagsInputs::from_body(&body, &settings, NetworkMode::MultiTime).unwrap();
    assert_eq!(inputs.rf_setting, custom_default);
    body.settings = Some("slow".parse().unwrap());
    let inputs = MaxTagsInputs::from_body(&body, &settings, NetworkMode::MultiTime).unwrap();
    assert_eq!(inputs.rf_setting, slow);
    // The slow rate makes every frame longer, so fewer tags fit.
    let slow_tags = max_tags::calculate(&inputs).unwrap().maximum_tags;
    body.settings = None;
    let inputs = MaxTagsInputs::from_body(&body, &settings, NetworkMode::MultiTime).unwrap();
    assert!(max_tags::calculate(&inputs).unwrap().maximum_tags > slow_tags);
}

#[test]
fn a_role_that_is_not_a_tag_role_is_refused() {
    for role in builtin_roles() {
        let outcome = MaxTagsInputs::from_role(
            &role,
            &RfSetting::default_setting(),
            Seeders {
                count: 0,
                period: NetworkTime::ZERO,
            },
            NetworkTime::from_units(48_750),
            NetworkMode::MultiTime,
        );
        if role.id == RoleId::DEFAULT_TAG {
            let result = max_tags::calculate(&outcome.expect("a tag role")).unwrap();
            assert_eq!(result.effective_tag_period, NetworkTime::from_units(97_500));
        } else {
            let problems = outcome.expect_err("not a tag role");
            assert_eq!(problems.as_slice().len(), 1);
            assert_eq!(problems.as_slice()[0].path, "role_id");
            assert!(problems.as_slice()[0].message.contains("is not a tag role"));
        }
    }
}

#[test]
fn seeders_are_the_interfaces_with_the_seeder_role() {
    let interface = |role_id| netcfg_model::Interface {
        identifier: 0,
        role_id,
        x: Some(0),
        y: Some(0),
        z: Some(0),
    };
    let interfaces = [
        interface(RoleId::SEEDER),
        interface(RoleId::ANCHOR),
        interface(RoleId::SEEDER),
        interface(RoleId::DEFAULT_TAG),
    ];
    let seeder_role = builtin_roles()
        .into_iter()
        .find(|role| role.id == RoleId::SEEDER)
        .unwrap();
    let seeders = Seeders::count_in(&interfaces, &seeder_role);
    assert_eq!(seeders.count, 2);
    assert_eq!(seeders.period, NetworkTime::from_units(97_500));
}

#[test]
fn a_configuration_reports_where_each_bad_value_came_from() {
    let mut role = Role::new(
        RoleId::FIRST_CUSTOM,
        "slow".parse().unwrap(),
        NetworkTime::from_units(9_750),
    );
    role.window_duration = NetworkTime::from_units(9_750);
    let problems = MaxTagsInputs::from_role(
        &role,
        &RfSetting::default_setting(),
        Seeders {
            count: 3,
            period: NetworkTime::from_units(1_000),
        },
        NetworkTime::from_units(48_750),
        NetworkMode::MultiTime,
    )
    .expect_err("problems");
    assert_eq!(
        paths(&problems),
        [
            "seeders.network_period",
            "role.network_period",
            "role.window_duration"
        ]
    );
}

#[test]
fn the_schedule_cycle_limits_a_period_that_is_not_a_whole_number_of_cycles() {
    let mut inputs = public_inputs();
    inputs.tag_period = NetworkTime::from_units(146_250); // 150 ms: 3 cycles of 50 ms
    let whole = max_tags::calculate(&inputs).unwrap();
    assert_eq!(whole.limiting_factor, LimitingFactor::Airtime);
    assert_eq!(whole.effective_tag_period, inputs.tag_period);
    inputs.maximum_tag_period = NetworkTime::from_units(97_500); // 1.5 cycles of 100 ms
    let rounded = max_tags::calculate(&inputs).unwrap();
    assert_eq!(rounded.limiting_factor, LimitingFactor::MaximumTagPeriod);
    assert_eq!(
        rounded.effective_tag_period,
        NetworkTime::from_units(97_500)
    );
    assert!(rounded.maximum_tags < whole.maximum_tags);
}

#[test]
fn seeders_that_fill_the_channel_leave_no_tag() {
    let mut inputs = public_inputs();
    inputs.number_of_seeders = 40;
    inputs.seeder_period = netcfg_model::MIN_SEEDER_PERIOD;
    let result = max_tags::calculate(&inputs).unwrap();
    assert_eq!(result.maximum_tags, 0);
    assert_eq!(result.limiting_factor, LimitingFactor::Seeders);
    assert_eq!(result.airtime_left_for_tags_us, 0.0);
    assert_eq!(result.locations_per_second, 0.0);
}

#[test]
fn data_beyond_one_frame_takes_more_frames() {
    let mut inputs = public_inputs();
    inputs.user_data_period = netcfg_model::SensorPeriod::try_from(975).unwrap(); // 1 ms
    inputs.user_data_size = 1_000;
    let result = max_tags::calculate(&inputs).unwrap();
    // 1,002 bytes a millisecond for 100 ms: 100,200 bytes in 1,011 bytes of
    // room per frame.
    assert!((result.frames_per_beacon - 100_200.0 / 1_011.0).abs() < 1e-3);
    assert_eq!(result.maximum_tags, 0);
    assert_eq!(result.limiting_factor, LimitingFactor::Airtime);
}

#[test]
fn the_result_is_a_json_object_that_round_trips() {
    let result = max_tags::calculate(&public_inputs()).unwrap();
    let value = serde_json::to_value(&result).unwrap();
    assert!(value.is_object());
    assert_eq!(value["limiting_factor"], "airtime");
    let back: MaxTagsResult = serde_json::from_value(value).unwrap();
    assert_eq!(back, result);
    let schema = serde_json::to_value(schemars::schema_for!(MaxTagsResult)).unwrap();
    assert_eq!(schema["type"], "object");
    assert!(schema["required"].as_array().unwrap().len() >= 16);
}
