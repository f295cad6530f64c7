//! The published description tells the truth: for each table, the
//! operations of `/api.json` are exactly the rows served (no more, no
//! fewer), each documented operation reaches its row, and every request
//! body schema accepts every body the model accepts (the valid fixtures of
//! `fixtures/model/`).

use crate::support::app_state;

use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
};

use actix_web::{http::StatusCode, test as actix_test};
use netcfg_api::{ApiVersion, Tables, create_app};
use serde_json::Value;

/// `METHOD path` for every operation of a document.
fn documented(document: &Value) -> BTreeSet<String> {
    document["paths"]
        .as_object()
        .expect("paths")
        .iter()
        .flat_map(|(path, operations)| {
            operations
                .as_object()
                .expect("operations")
                .keys()
                .map(move |method| format!("{} {path}", method.to_uppercase()))
        })
        .collect()
}

/// `METHOD path` for every row of a table, aliases included.
fn routed(tables: &Tables, version: ApiVersion) -> BTreeSet<String> {
    tables
        .table(version)
        .routes
        .iter()
        .flat_map(|route| {
            route
                .paths
                .iter()
                .map(move |path| format!("{} {path}", route.method))
        })
        .collect()
}

/// A concrete path for a template: every parameter gets a well-formed value.
fn concrete(path: &str) -> String {
    path.replace("{net_name}", "no-such-net")
        .replace("{device_key}", "01:04:0001")
        .replace("{interface_identifier}", "0")
        .replace("{serial_number}", "01:04:0001")
        .replace("{log_file_name}", "none.log")
        .replace("{setting_class}", "system")
        .replace("{setting_id}", "0")
        .replace("{role_id}", "5")
        .replace("{identifier}", "1")
        .replace("{interface}", "01:04:0002-0")
        .replace("{_type}", "twr")
        .replace("{name}", "default")
        .replace("{key}", "max_tag_period")
        .replace("{id}", "1")
}

#[actix_web::test]
async fn each_table_documents_exactly_the_operations_it_serves() {
    let fixture = app_state::fixture();
    let app = actix_test::init_service(create_app(fixture.state.clone())).await;
    for version in ApiVersion::ALL {
        let request = actix_test::TestRequest::get()
            .uri(&format!("/api.json?version={}", version.short()))
            .to_request();
        let document: Value = actix_test::call_and_read_body_json(&app, request).await;
        let documented = documented(&document);
        assert_eq!(
            documented,
            routed(&fixture.tables, version),
            "{version}: documented vs routed"
        );

        for operation in &documented {
            let (method, path) = operation.split_once(' ').expect("METHOD path");
            let request = actix_test::TestRequest::default()
                .method(method.parse().expect("a method"))
                .uri(&concrete(path))
                .insert_header(("Api-Version", version.short()))
                .to_request();
            let response = actix_test::call_service(&app, request).await;
            let status = response.status();
            // An event stream does not end: its head is the answer.
            let streams = response
                .headers()
                .get(actix_web::http::header::CONTENT_TYPE)
                .is_some_and(|value| value == "text/event-stream");
            let body = if streams {
                actix_web::web::Bytes::new()
            } else {
                actix_test::read_body(response).await
            };
            let text = String::from_utf8_lossy(&body);
            assert_ne!(
                status,
                StatusCode::METHOD_NOT_ALLOWED,
                "{version} {operation}: {text}"
            );
            assert!(
                !text.contains("no such route") && !text.contains("does not exist in API version"),
                "{version} {operation} is documented but not served: {text}"
            );
            assert_ne!(
                status,
                StatusCode::INTERNAL_SERVER_ERROR,
                "{version} {operation}: {text}"
            );
        }
    }
}

/// The model fixture folder holding the bodies of each JSON-body operation.
fn fixture_folder(operation_id: &str) -> Option<&'static str> {
    Some(match operation_id {
        "create_configuration" | "update_configuration" => "network_body",
        "configuration_action" => "action_body",
        "create_data_stream" | "update_data_stream" => "data_stream_body",
        "calculate_maximum_tags" => "calculate_maximum_tags_parameterized_body",
        "calculate_maximum_tags_for_role" => "calculate_maximum_tags_body",
        "device_action" => "device_command_body",
        "multi_device_action" => "multi_device_command_body",
        "create_device" | "update_device" => "device_body",
        "update_devices" => "devices_patch_body",
        "delete_devices" => "multiple_device_delete_body",
        "create_device_pairs" | "delete_device_pairs" => "device_pairs_body",
        "update_group_image" => "group_image_patch_body",
        "set_magnetometer_calibration" => "magnetometer_calibration_body",
        "update_notification" | "update_notifications" => "notification_patch_body",
        "update_network_mode" => "operating_mode_patch_body",
        "create_position_limit" => "position_limits_post_body",
        "create_alert_rule" => "alert_rule_post_body",
        "update_alert_rule" => "alert_rule_patch_body",
        "create_schedule" => "schedule_post_body",
        "update_schedule" => "schedule_patch_body",
        "create_zone" => "zone_post_body",
        "update_zone" => "zone_patch_body",
        "create_output" => "output_post_body",
        "update_output" => "output_patch_body",
        "start_recording" => "recording_post_body",
        "control_replay" => "replay_patch_body",
        "update_position_limit" => "position_limits_patch_body",
        "create_rf_setting" => "rf_settings_post_body",
        "update_rf_setting" => "rf_settings_patch_body",
        "create_role" => "role_post_body",
        "update_role" => "role_patch_body",
        "create_setting" | "replace_settings" | "update_settings" => "settings_body",
        "engine_command" => "engine_command_body",
        "add_paired_interface" => "paired_interface_body",
        "create_user" => "user_post_body",
        "update_user" => "user_patch_body",
        "create_api_key" => "api_key_post_body",
        "sign_in" => "session_post_body",
        "finish_sign_on" => "oidc_callback_body",
        _ => return None,
    })
}

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/model")
}

/// The fixtures of `folder` that the model accepts (their `.expected`
/// starts with `ok`), with their names.
fn valid_fixtures(folder: &str) -> Vec<(String, Value)> {
    let directory = fixtures_root().join(folder);
    let mut cases: Vec<_> = std::fs::read_dir(&directory)
        .unwrap_or_else(|error| panic!("{}: {error}", directory.display()))
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "json")
        })
        .filter(|path| {
            std::fs::read_to_string(path.with_extension("expected"))
                .is_ok_and(|expected| expected.starts_with("ok\n"))
        })
        .collect();
    cases.sort();
    cases
        .into_iter()
        .map(|path| {
            let value = serde_json::from_str(&std::fs::read_to_string(&path).expect("readable"))
                .expect("JSON");
            (
                path.file_name()
                    .expect("a name")
                    .to_string_lossy()
                    .into_owned(),
                value,
            )
        })
        .collect()
}

/// The body in the form the description advertises. The one form accepted
/// but not advertised: `interfaces` as a string holding the array (older
/// clients send it; a schema cannot say "a string that parses as this").
fn advertised_form(mut body: Value) -> Value {
    fn unwrap_interfaces(object: &mut Value) {
        if let Some(Value::String(text)) = object.get("interfaces")
            && let Ok(array) = serde_json::from_str::<Value>(text)
        {
            object["interfaces"] = array;
        }
    }
    match &mut body {
        Value::Array(items) => items.iter_mut().for_each(unwrap_interfaces),
        object => unwrap_interfaces(object),
    }
    body
}

#[test]
fn every_body_schema_accepts_every_body_the_model_accepts() {
    let fixture = app_state::fixture();
    let mut checked = 0;
    for version in ApiVersion::ALL {
        let document = serde_json::to_value(fixture.tables.document(version)).expect("JSON");
        for route in &fixture.tables.table(version).routes {
            let Some(netcfg_api::Body::Json(_)) = route.body else {
                continue;
            };
            let folder = fixture_folder(route.operation.as_str()).unwrap_or_else(|| {
                panic!(
                    "{}: map its body to a folder of fixtures/model",
                    route.operation
                )
            });
            let method = route.method.as_str().to_lowercase();
            let schema = &document["paths"][route.paths[0]][&method]["requestBody"]["content"]["application/json"]
                ["schema"];
            let validator = jsonschema::draft202012::new(schema).unwrap_or_else(|error| {
                panic!(
                    "{version} {}: the schema does not compile: {error}",
                    route.operation
                )
            });
            let cases = valid_fixtures(folder);
            assert!(!cases.is_empty(), "{folder} has no valid fixture");
            for (name, body) in cases {
                let body = advertised_form(body);
                let problems: Vec<String> = validator
                    .iter_errors(&body)
                    .map(|error| error.to_string())
                    .collect();
                assert!(
                    problems.is_empty(),
                    "{version} {}: the documented schema refuses {folder}/{name}, which the model accepts: {problems:?}",
                    route.operation
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 50, "only {checked} bodies were checked");
}

#[test]
fn resource_schemas_accept_the_valid_resource_fixtures() {
    let fixture = app_state::fixture();
    let document = serde_json::to_value(fixture.tables.document(ApiVersion::V5_1)).expect("JSON");
    for (component, folder) in [("Role", "role"), ("RfSetting", "rf_setting")] {
        let mut schema = document["components"]["schemas"][component].clone();
        assert!(
            schema.is_object(),
            "components.schemas.{component} is missing"
        );
        // Resolve the component's references against the whole document.
        schema["components"] = document["components"].clone();
        let validator =
            jsonschema::draft202012::new(&schema).expect("the component schema compiles");
        for (name, resource) in valid_fixtures(folder) {
            let problems: Vec<String> = validator
                .iter_errors(&resource)
                .map(|error| error.to_string())
                .collect();
            assert!(
                problems.is_empty(),
                "{component} refuses {folder}/{name}: {problems:?}"
            );
        }
    }
}
