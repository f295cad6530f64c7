//! The maximum-tag calculator: how many tags a network can carry at a rate.
//!
//! A physical airtime model of an IEEE 802.15.4 HRP UWB network: the frame
//! airtime of a tag's beacon (preamble, SFD, PHY header, data with
//! Reed-Solomon parity), a guard time per slot, sensor and user data
//! amortised over their periods, the seeders' timing packets, the tags'
//! downlink windows, and MultiTime (one beacon per location) or MultiRange
//! (a ranging exchange per location). `docs/max-tags.md` gives the formula,
//! the source of every term, and worked examples.
//!
//! - [`MaxTagsInputs`]: the inputs, from a request body
//!   ([`MaxTagsInputs::from_body`]) or a configuration's tag role
//!   ([`MaxTagsInputs::from_role`]).
//! - [`calculate`]: the pure function.
//! - [`MaxTagsResult`]: the answer and its breakdown (the API's
//!   `maximum_tags_calculation` payload).
//! - [`constants`]: every figure of the model, with unit and source.
//!
//! The rule that `maximum_tag_period` sets: it is the shortest beacon period
//! a tag may use, so a `tag_period` shorter than it is an error; the network
//! schedules in cycles of that length, so tags beacon at the tag period
//! rounded down to a whole number of cycles.

pub mod constants;
mod inputs;
mod model;
mod phy;
mod result;
mod rules;

pub use inputs::{MaxTagsInputs, Seeders};
pub use result::{LimitingFactor, MaxTagsResult};
pub(crate) use rules::{check_field_rules, check_rules};

use crate::validation::{Problems, Validate};

/// How many tags the network described by `inputs` carries, with the airtime
/// breakdown. Pure and cheap: no I/O, no allocation unless there are problems.
///
/// # Errors
/// Every broken rule, each with the path of its input field: a zero period,
/// a tag period shorter than `maximum_tag_period`, a seeder period below
/// 4,375 when there are seeders, an overhead or user data too large for a
/// frame, a downlink window not shorter than the tag period, a preamble code
/// that does not suit the RF setting's channel and PRF (under `settings`).
///
/// # Example
/// The usual RF setting, 4 seeders and tags at 10 Hz, no sensor data:
/// ```
/// use netcfg_model::{NetworkMode, NetworkTime, RfSetting, max_tags};
/// use netcfg_model::body::CalculateMaximumTagsParameterizedBody;
///
/// let body: CalculateMaximumTagsParameterizedBody = serde_json::from_value(serde_json::json!({
///     "number_of_seeders": 4, "seeder_period": 97_500,
///     "tag_period": 97_500, "maximum_tag_period": 48_750,
/// })).unwrap();
/// let rf_settings = [RfSetting::default_setting()];
/// let inputs = max_tags::MaxTagsInputs::from_body(&body, &rf_settings, NetworkMode::MultiTime).unwrap();
/// let result = max_tags::calculate(&inputs).unwrap();
/// assert_eq!(result.maximum_tags, 353);
/// assert_eq!(result.limiting_factor, max_tags::LimitingFactor::Airtime);
/// assert_eq!(result.locations_per_second, 3530.0);
///
/// let mut too_fast = inputs.clone();
/// too_fast.tag_period = NetworkTime::from_millis(20);
/// let problems = max_tags::calculate(&too_fast).unwrap_err();
/// assert_eq!(problems.as_slice()[0].path, "tag_period");
/// ```
pub fn calculate(inputs: &MaxTagsInputs) -> Result<MaxTagsResult, Problems> {
    let mut problems = Problems::new();
    check_rules(inputs, &|field| field.to_owned(), &mut problems);
    inputs.rf_setting.validate_at("settings", &mut problems);
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(model::evaluate(inputs))
}
