//! The rules the inputs must follow, shared by the calculator and the
//! request body's validation.

use super::constants::MAX_FRAME_BYTES;
use super::inputs::MaxTagsInputs;
use crate::{role::MIN_SEEDER_PERIOD, validation::Problems};

/// Records every broken rule of `inputs` except the RF setting's own rules;
/// `path_of` turns an input field's name into the path to report.
pub(crate) fn check_rules(
    inputs: &MaxTagsInputs,
    path_of: &dyn Fn(&'static str) -> String,
    problems: &mut Problems,
) {
    check_field_rules(inputs, path_of, problems);
    check_combination_rules(inputs, path_of, problems);
}

/// The rules of single values (and the seeder period, which only matters
/// when there are seeders): what a request body must follow.
pub(crate) fn check_field_rules(
    inputs: &MaxTagsInputs,
    path_of: &dyn Fn(&'static str) -> String,
    problems: &mut Problems,
) {
    for (field, period) in [
        ("tag_period", inputs.tag_period),
        ("maximum_tag_period", inputs.maximum_tag_period),
    ] {
        if period.is_zero() {
            problems.push(path_of(field), "a period must be more than 0");
        }
    }
    if inputs.number_of_seeders > 0 && inputs.seeder_period < MIN_SEEDER_PERIOD {
        problems.push(
            path_of("seeder_period"),
            format!(
                "a seeder period must be at least {} (about 4.5 ms); {} is too short",
                MIN_SEEDER_PERIOD.units(),
                inputs.seeder_period.units()
            ),
        );
    }
    if inputs.payload_overhead_size >= MAX_FRAME_BYTES {
        problems.push(
            path_of("payload_overhead_size"),
            format!(
                "the overhead is at most {} bytes: a frame holds at most {MAX_FRAME_BYTES} and needs room for data",
                MAX_FRAME_BYTES - 1
            ),
        );
    }
    if inputs.user_data_size > MAX_FRAME_BYTES {
        problems.push(
            path_of("user_data_size"),
            format!("user data is at most {MAX_FRAME_BYTES} bytes"),
        );
    }
}

/// The rules between values that are each fine but conflict: the HTTP layer
/// answers these with 409 (the inputs conflict), the others with 400.
pub(crate) fn check_combination_rules(
    inputs: &MaxTagsInputs,
    path_of: &dyn Fn(&'static str) -> String,
    problems: &mut Problems,
) {
    if !inputs.tag_period.is_zero() && inputs.tag_period < inputs.maximum_tag_period {
        problems.push(
            path_of("tag_period"),
            format!(
                "the tag period ({}) is shorter than maximum_tag_period ({}), the shortest period a tag may use",
                inputs.tag_period.units(),
                inputs.maximum_tag_period.units()
            ),
        );
    }
    let window = inputs.window_duration;
    if !window.is_zero() && !inputs.tag_period.is_zero() && window >= inputs.tag_period {
        problems.push(
            path_of("window_duration"),
            format!(
                "the window ({}) must be shorter than the tag period ({})",
                window.units(),
                inputs.tag_period.units()
            ),
        );
    }
}

/// The path of an input field when the inputs came from a configuration's
/// role, seeders and settings.
pub(crate) fn configuration_path(field: &'static str) -> String {
    match field {
        "tag_period" => "role.network_period".to_owned(),
        "maximum_tag_period" => "max_tag_period".to_owned(),
        "seeder_period" => "seeders.network_period".to_owned(),
        "number_of_seeders" => "seeders".to_owned(),
        "window_duration"
        | "accelerometer_period"
        | "gyroscope_period"
        | "magnetometer_period"
        | "quaternion_period"
        | "pressure_period"
        | "temperature_period" => format!("role.{field}"),
        other => other.to_owned(),
    }
}
