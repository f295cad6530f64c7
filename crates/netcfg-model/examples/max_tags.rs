//! The maximum-tag calculator, offline.
//!
//! ```text
//! cargo run -p netcfg-model --example max_tags -- \
//!     --number-of-seeders 4 --seeder-period 97500 --tag-period 97500 --maximum-tag-period 48750
//! ```
//!
//! Flags: every field of `calculate_maximum_tags_parameterized_body` with
//! dashes (`--accelerometer-period 9750`, `--user-data-size 8`...), the RF
//! setting (`--bit-rate 850 --channel 2 --prf 16 --preamble-length 256
//! --preamble-code 3`; the default setting otherwise), `--window-duration`
//! (units), `--mode multitime|multirange`, and `--json` to print the
//! `maximum_tags_calculation` object. Periods are in network time units
//! (1/975,000 s). A bad input prints every problem and exits with status 2.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "printing the result is the point of this program"
)]

use std::process::ExitCode;

use netcfg_model::{
    FromJson, NetworkMode, NetworkTime, Problems, RfSetting,
    body::CalculateMaximumTagsParameterizedBody,
    max_tags::{self, MaxTagsInputs, MaxTagsResult},
};
use serde_json::{Map, Value};

const BODY_FIELDS: &[&str] = &[
    "number_of_seeders",
    "seeder_period",
    "tag_period",
    "maximum_tag_period",
    "accelerometer_period",
    "gyroscope_period",
    "magnetometer_period",
    "quaternion_period",
    "pressure_period",
    "temperature_period",
    "payload_overhead_size",
    "user_data_period",
    "user_data_size",
];
const RF_FIELDS: &[&str] = &[
    "bit_rate",
    "channel",
    "prf",
    "preamble_length",
    "preamble_code",
];

/// The command line, sorted into a body, an RF setting and options.
struct Command {
    body: Map<String, Value>,
    rf: Map<String, Value>,
    window: Value,
    mode: Option<String>,
    json: bool,
}

/// A flag's value as JSON: a number when it reads as one, else a string, so
/// the body's own validation names what is wrong with it.
fn value_of(text: &str) -> Value {
    text.parse::<i64>()
        .map(Value::from)
        .unwrap_or_else(|_| Value::from(text))
}

fn parse_args(args: &[String], problems: &mut Problems) -> Command {
    let mut command = Command {
        body: Map::new(),
        rf: Map::new(),
        window: Value::from(0),
        mode: None,
        json: false,
    };
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let Some(name) = flag.strip_prefix("--") else {
            problems.push(flag.as_str(), "expected a flag such as --tag-period");
            continue;
        };
        let field = name.replace('-', "_");
        if field == "json" {
            command.json = true;
            continue;
        }
        let Some(text) = args.next() else {
            problems.push(field, "this flag needs a value");
            break;
        };
        match field.as_str() {
            "mode" => command.mode = Some(text.clone()),
            "window_duration" => command.window = value_of(text),
            "settings" => {
                command.body.insert(field, Value::from(text.as_str()));
            }
            known if BODY_FIELDS.contains(&known) => {
                command.body.insert(field, value_of(text));
            }
            known if RF_FIELDS.contains(&known) => {
                command.rf.insert(field, value_of(text));
            }
            _ => problems.push(
                field,
                "unknown flag; see the top of examples/max_tags.rs for the flags",
            ),
        }
    }
    command
}

/// The inputs the command line describes, or every problem with it.
fn inputs_of(command: Command, mut problems: Problems) -> Result<(MaxTagsInputs, bool), Problems> {
    let body = CalculateMaximumTagsParameterizedBody::from_json(&Value::Object(command.body))
        .map_err(|found| problems.extend(found))
        .ok();
    let mut rf = serde_json::to_value(RfSetting::default_setting()).unwrap_or_default();
    if let Value::Object(fields) = &mut rf {
        fields.extend(command.rf);
    }
    let rf_setting = serde_json::from_value::<RfSetting>(rf)
        .map_err(|error| problems.push("settings", error.to_string()))
        .ok();
    let mode = match command.mode.as_deref().map(str::parse::<NetworkMode>) {
        None => Some(NetworkMode::default()),
        Some(Ok(mode)) => Some(mode),
        Some(Err(error)) => {
            problems.push("mode", error.to_string());
            None
        }
    };
    let window = serde_json::from_value::<NetworkTime>(command.window)
        .map_err(|error| problems.push("window_duration", error.to_string()))
        .ok();
    let (Some(body), Some(rf_setting), Some(mode), Some(window)) = (body, rf_setting, mode, window)
    else {
        return Err(problems);
    };
    match MaxTagsInputs::from_body(&body, &[rf_setting], mode) {
        Ok(mut inputs) => {
            inputs.window_duration = window;
            problems.into_result((inputs, command.json))
        }
        Err(found) => {
            problems.extend(found);
            Err(problems)
        }
    }
}

fn print_result(inputs: &MaxTagsInputs, result: &MaxTagsResult) {
    let rf = &inputs.rf_setting;
    println!(
        "RF: {} kbit/s, channel {}, PRF {} MHz, preamble {} symbols; mode {}",
        rf.bit_rate.value(),
        rf.channel.value(),
        rf.prf.value(),
        rf.preamble_length.symbols(),
        result.network_mode
    );
    println!(
        "maximum tags:              {} (limited by {:?})",
        result.maximum_tags, result.limiting_factor
    );
    println!("locations per second:      {}", result.locations_per_second);
    println!(
        "tag period:                {} units = {} µs",
        result.effective_tag_period.units(),
        result.tag_period_us
    );
    println!(
        "beacon:                    {} bytes in {} frame(s), {} µs",
        result.beacon_bytes, result.frames_per_beacon, result.frame_airtime_us
    );
    println!(
        "one location:              {} µs of frames",
        result.exchange_airtime_us
    );
    println!(
        "slot:                      {} µs = location + guard {} µs + window {} µs",
        result.slot_us, result.guard_time_us, result.window_us
    );
    println!(
        "seeders:                   {} µs per tag period (timing packet {} µs)",
        result.seeder_airtime_us, result.seeder_frame_airtime_us
    );
    println!(
        "airtime left for tags:     {} µs per tag period",
        result.airtime_left_for_tags_us
    );
}

/// The usage text: the module documentation's first paragraphs.
const USAGE: &str = "usage: max_tags --number-of-seeders N --seeder-period UNITS --tag-period UNITS --maximum-tag-period UNITS
       [--accelerometer-period U] [--gyroscope-period U] [--magnetometer-period U] [--quaternion-period U]
       [--pressure-period U] [--temperature-period U] [--payload-overhead-size BYTES]
       [--user-data-period U] [--user-data-size BYTES]
       [--bit-rate 110|850|6800] [--channel 1|2|3|4|5|7|9] [--prf 16|64] [--preamble-length SYMBOLS]
       [--preamble-code 1..24] [--window-duration U] [--mode multitime|multirange] [--json]

Periods are in network time units of 1/975,000 s (97500 = 100 ms = 10 Hz); sensor and user-data
periods are 0 (off) or at least 975. Without RF flags the default setting is used (6.8 Mbit/s,
channel 5, PRF 64, preamble 64, code 9). A bad input prints every problem and exits with status 2.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args.iter().any(|arg| arg == "--help" || arg == "-h") {
        println!("{USAGE}");
        return if args.is_empty() {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        };
    }
    let mut problems = Problems::new();
    let command = parse_args(&args, &mut problems);
    let outcome = inputs_of(command, problems).and_then(|(inputs, json)| {
        max_tags::calculate(&inputs).map(|result| (inputs, result, json))
    });
    match outcome {
        Ok((_, result, true)) => {
            println!(
                "{}",
                serde_json::to_string_pretty(&result).unwrap_or_default()
            );
            ExitCode::SUCCESS
        }
        Ok((inputs, result, false)) => {
            print_result(&inputs, &result);
            ExitCode::SUCCESS
        }
        Err(problems) => {
            for problem in problems {
                eprintln!("error: {problem}");
            }
            ExitCode::from(2)
        }
    }
}
