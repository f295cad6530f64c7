//! `#[request_body]` on bodies made for the test: what each kind of field,
//! each option and each check does, problem by problem.

use netcfg_model_derive::request_body;
use serde_json::{Value, json};

use crate::{
    FromJson,
    validation::{Problems, join},
};

/// Every kind of field.
#[request_body(check = sum_below_ten)]
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
struct Sample {
    required: u8,
    optional: Option<u8>,
    clearable: Option<Option<u8>>,
    #[serde(rename = "type")]
    kind: Option<String>,
    #[from_json(with = even)]
    even: Option<u8>,
}

/// The rule of `Sample`: `required + optional` below 10.
fn sum_below_ten(body: &Sample, path: &str, problems: &mut Problems) {
    if body.required + body.optional.unwrap_or(0) >= 10 {
        problems.push(join(path, "optional"), "the sum must stay below 10");
    }
}

fn even(value: &Value, path: &str, problems: &mut Problems) -> Option<u8> {
    match value.as_u64().and_then(|number| u8::try_from(number).ok()) {
        Some(number) if number % 2 == 0 => Some(number),
        _ => {
            problems.push(path, "an even number below 256");
            None
        }
    }
}

/// A PATCH body: at least one field; its check runs on what was read.
#[request_body(at_least_one, check = low_below_high(low, high))]
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, schemars::JsonSchema)]
struct Patch {
    low: Option<u8>,
    high: Option<Option<u8>>,
}

fn low_below_high(
    low: &Option<u8>,
    high: &Option<Option<u8>>,
    path: &str,
    problems: &mut Problems,
) {
    if let (Some(low), Some(Some(high))) = (low, high)
        && low >= high
    {
        problems.push(join(path, "high"), "above low");
    }
}

/// Each problem as `path: message`.
fn problems<T: FromJson + std::fmt::Debug>(body: Value) -> Vec<String> {
    let problems = T::from_json(&body).unwrap_err();
    problems
        .as_slice()
        .iter()
        .map(|problem| format!("{}: {}", problem.path, problem.message))
        .collect()
}

#[test]
fn each_field_is_read_as_its_type_says() {
    let body = json!({"required": 1, "clearable": null, "type": "t", "even": 4});
    let sample = Sample::from_json(&body).unwrap();
    let expected = Sample {
        required: 1,
        optional: None,
        clearable: Some(None),
        kind: Some("t".to_owned()),
        even: Some(4),
    };
    assert_eq!(sample, expected);
    // Written back with its JSON names, and without what was not given.
    assert_eq!(
        serde_json::to_value(&sample).unwrap(),
        json!({"required": 1, "clearable": null, "type": "t", "even": 4})
    );
    let through_serde: Sample = serde_json::from_value(body).unwrap();
    assert_eq!(through_serde, expected);
}

#[test]
fn every_problem_is_on_its_field_in_the_order_of_the_fields() {
    let body = json!({"optional": null, "clearable": "x", "kind": "k", "even": 3, "type": 1});
    assert_eq!(
        problems::<Sample>(body),
        [
            "required: this field is required",
            "optional: null is not a value here; leave the field out instead",
            "clearable: expected a whole number from 0 to 255, found the text \"x\"",
            "type: expected text in quotes, found 1",
            "even: an even number below 256",
            "kind: unknown field; the fields are: required, optional, clearable, type, even",
        ]
    );
    let nested = Sample::from_json_at(&json!([]), "samples[2]", &mut Problems::new());
    assert_eq!(nested, None);
    assert_eq!(
        problems::<Sample>(json!("text")),
        [": expected a JSON object, found a string"]
    );
}

#[test]
fn a_body_check_runs_once_the_required_fields_are_read() {
    assert_eq!(
        problems::<Sample>(json!({"required": 6, "optional": 4})),
        ["optional: the sum must stay below 10"]
    );
    // A wrong optional field reads as absent for the check.
    assert_eq!(
        problems::<Sample>(json!({"required": 9, "optional": -1})),
        ["optional: expected a whole number from 0 to 255, found -1"]
    );
    let mut found = Problems::new();
    let body = json!({"required": 9, "optional": 9});
    assert_eq!(Sample::from_json_at(&body, "sample", &mut found), None);
    assert_eq!(found.as_slice()[0].path, "sample.optional");
}

#[test]
fn a_patch_needs_one_field_and_null_counts_only_where_it_clears() {
    let none = "at least one field must be given: low, high";
    assert_eq!(problems::<Patch>(json!({})), [format!(": {none}")]);
    assert_eq!(
        problems::<Patch>(json!({"low": null})),
        [
            "low: null is not a value here; leave the field out instead".to_owned(),
            format!(": {none}"),
        ]
    );
    assert_eq!(
        problems::<Patch>(json!({"other": 1})),
        [
            format!(": {none}"),
            "other: unknown field; the fields are: low, high".to_owned(),
        ]
    );
    let cleared = Patch::from_json(&json!({"high": null})).unwrap();
    assert_eq!(cleared.high, Some(None));
}

#[test]
fn a_check_of_named_fields_runs_whatever_else_failed() {
    assert_eq!(
        problems::<Patch>(json!({"low": 5, "high": 5, "extra": true})),
        [
            "extra: unknown field; the fields are: low, high",
            "high: above low",
        ]
    );
    assert!(Patch::from_json(&json!({"low": 5, "high": null})).is_ok());
}

#[test]
fn the_schema_says_what_the_reader_accepts() {
    let schema = schemars::schema_for!(Patch).to_value();
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(schema["minProperties"], json!(1));
    assert_eq!(schema.get("required"), None);
    // An optional field is documented as its value, not as nullable; a
    // clearable one takes null.
    assert_eq!(schema["properties"]["low"]["type"], json!("integer"));
    assert_eq!(
        schema["properties"]["high"]["type"],
        json!(["integer", "null"])
    );
    let sample = schemars::schema_for!(Sample).to_value();
    assert_eq!(sample["required"], json!(["required"]));
    assert!(sample["properties"].get("type").is_some());
}
