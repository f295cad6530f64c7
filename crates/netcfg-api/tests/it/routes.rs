//! The route walk: every row of both route tables, through the real actix
//! app on a real store and the real engine (simulator). The cases are data
//! (`fixtures/api/*.json`, run in name order against one app and one data
//! directory); each response is checked for its status, the `Api-Version`
//! header, the envelope of its version (`message`, and `Classification` in
//! 5.1 with the level the row declares), its payload key, and for a 204 an
//! empty body with `Netcfg-Message` (and `Netcfg-Classification` in 5.1).
//!
//! Then the coverage: every status the seed lists for a row is declared by
//! the table and provoked by a step, unless it is in [`UNPROVOKABLE`] with
//! the reason; every path of every row (aliases too) is requested in each
//! version that serves it.

use crate::support;

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::Arc,
};

use actix_web::{test::TestRequest, web};
use netcfg_api::{ApiVersion, AppState, Operation, Services, Tables};
use serde_json::Value;

/// Rows that decisions.md adds to the seed's tables: (version, operation
/// id, statuses the walk provokes, where it is decided). The 200 of an
/// event stream is not in the walk (its body never ends): the streams are
/// tested on a real socket (bins/netcfg-http/tests/it/events.rs).
const DECIDED: &[(&str, &str, &[u16], &str)] = &[
    ("5.1", "stream_events", &[400], "decisions §8"),
    (
        "5.1",
        "stream_configuration_events",
        &[400, 404],
        "decisions §8",
    ),
    ("5.1", "list_history", &[200, 400, 404], "decisions §10"),
    (
        "5.1",
        "restore_history",
        &[200, 400, 404, 409],
        "decisions §10",
    ),
    (
        "5.1",
        "create_alert_rule",
        &[201, 400, 404, 409],
        "decisions §16",
    ),
    ("5.1", "get_alert_rule", &[200, 404], "decisions §16"),
    ("5.1", "list_alert_rules", &[200, 404], "decisions §16"),
    (
        "5.1",
        "update_alert_rule",
        &[200, 400, 404, 409],
        "decisions §16",
    ),
    ("5.1", "delete_alert_rule", &[204, 404], "decisions §16"),
    ("5.1", "list_alerts", &[200, 404], "decisions §16"),
    (
        "5.1",
        "create_schedule",
        &[201, 400, 404, 409],
        "decisions §16",
    ),
    ("5.1", "get_schedule", &[200, 404], "decisions §16"),
    ("5.1", "list_schedules", &[200, 404], "decisions §16"),
    (
        "5.1",
        "update_schedule",
        &[200, 400, 404, 409],
        "decisions §16",
    ),
    ("5.1", "delete_schedule", &[204, 404], "decisions §16"),
    ("5.1", "create_zone", &[201, 400, 404, 409], "decisions §13"),
    ("5.1", "get_zone", &[200, 404], "decisions §13"),
    ("5.1", "list_zones", &[200, 404], "decisions §13"),
    ("5.1", "update_zone", &[200, 400, 404, 409], "decisions §13"),
    ("5.1", "delete_zone", &[204, 404], "decisions §13"),
    (
        "5.1",
        "get_zone_occupancy",
        &[200, 404, 409],
        "decisions §13",
    ),
    (
        "5.1",
        "create_output",
        &[201, 400, 404, 409],
        "decisions §14",
    ),
    ("5.1", "get_output", &[200, 404], "decisions §14"),
    ("5.1", "list_outputs", &[200, 404], "decisions §14"),
    (
        "5.1",
        "update_output",
        &[200, 400, 404, 409],
        "decisions §14",
    ),
    ("5.1", "delete_output", &[204, 404], "decisions §14"),
    ("5.1", "get_output_status", &[200, 404], "decisions §14"),
    (
        "5.1",
        "start_recording",
        &[201, 400, 404, 409],
        "decisions §15",
    ),
    ("5.1", "list_recordings", &[200, 404], "decisions §15"),
    ("5.1", "get_recording", &[200, 404], "decisions §15"),
    ("5.1", "delete_recording", &[200, 204, 404], "decisions §15"),
    ("5.1", "download_recording", &[200, 404], "decisions §15"),
    (
        "5.1",
        "upload_recording",
        &[201, 400, 404, 409, 415],
        "decisions §15",
    ),
    ("5.1", "get_replay", &[200, 404, 409], "decisions §15"),
    (
        "5.1",
        "control_replay",
        &[200, 400, 404, 409],
        "decisions §15",
    ),
    ("5.1", "get_accuracy", &[200, 404, 409], "decisions §12"),
    (
        "5.1",
        "get_positions",
        &[200, 400, 404, 409],
        "decisions §18",
    ),
    ("5.1", "get_coverage", &[200, 400, 404], "decisions §12"),
    ("5.1", "run_survey", &[200, 404, 409], "decisions §12"),
    ("5.1", "get_survey", &[200, 404], "decisions §12"),
    ("5.1", "sign_in", &[200, 400, 401], "decisions §17"),
    ("5.1", "get_session", &[200, 401], "decisions §17"),
    ("5.1", "sign_out", &[204], "decisions §17"),
    ("5.1", "get_sign_on", &[200], "decisions §17"),
    // Without a provider here; the 200s and 401 against a real one in
    // tests/browser/test_sign_on.py, the 502 in netcfg-http's it/sign_on.rs.
    ("5.1", "begin_sign_on", &[404], "decisions §17"),
    ("5.1", "finish_sign_on", &[400, 404], "decisions §17"),
    ("5.1", "list_users", &[200, 401, 403], "decisions §17"),
    ("5.1", "create_user", &[201, 400, 403, 409], "decisions §17"),
    ("5.1", "get_user", &[200, 403, 404], "decisions §17"),
    (
        "5.1",
        "update_user",
        &[200, 400, 403, 404, 409],
        "decisions §17",
    ),
    ("5.1", "delete_user", &[204, 403, 404, 409], "decisions §17"),
    ("5.1", "list_api_keys", &[200, 401], "decisions §17"),
    (
        "5.1",
        "create_api_key",
        &[201, 400, 403, 409],
        "decisions §17",
    ),
    ("5.1", "delete_api_key", &[204, 404], "decisions §17"),
    ("5.1", "get_audit", &[200, 400, 403], "decisions §17"),
];

/// Statuses the seed lists that no request can provoke on a healthy host:
/// (version or `*`, operation id or `*`, status, why).
const UNPROVOKABLE: &[(&str, &str, u16, &str)] = &[
    (
        "*",
        "*",
        500,
        "a fault of the server or its host (disk full, I/O error, a dead worker); \
         500 never answers a request (decisions §4)",
    ),
    (
        "*",
        "get_setting",
        409,
        "only for a saved-state file that is locked or newer than this server; the API \
         cannot make one (an upload of a newer schema is refused with 400)",
    ),
    (
        "*",
        "list_settings",
        409,
        "only for a saved-state file that is locked or newer than this server (as get_setting)",
    ),
    (
        "*",
        "set_magnetometer_calibration",
        409,
        "nothing in a configuration's state conflicts with storing a calibration: the \
         store has no conflict for it, and a stopped network just stores it",
    ),
    (
        "5.1",
        "delete_device_pairs",
        409,
        "deleting pairs cannot find them all already in the asked state but absent: \
         pairs not there are 417 (none deleted) or 206 (some)",
    ),
    (
        "5.1",
        "update_position_limit",
        409,
        "the PATCH body holds only coordinates (no name), so nothing can collide, and a \
         running network takes new bounding boxes",
    ),
    (
        "5.0",
        "delete_paired_interface",
        409,
        "unpairing answers 404 for a pair that does not exist; nothing else conflicts",
    ),
    (
        "*",
        "get_packages",
        404,
        "only when a component is missing on the host (iproute2); the step accepts \
         either answer, see EITHER",
    ),
];

/// Rows whose answer depends on the host: a step accepts either status and
/// covers the row with whichever it got.
const EITHER: &[(&str, [u16; 2], &str)] = &[(
    "get_packages",
    [200, 404],
    "404 lists the components with the missing ones marked; iproute2 may be absent",
)];

/// The seed's rows: version to operation id to the statuses it lists.
fn seed_rows() -> BTreeMap<String, BTreeMap<String, Vec<u16>>> {
    let path = support::fixtures_dir().join("seed_rows.json");
    let text = std::fs::read_to_string(&path).expect("fixtures/api/seed_rows.json");
    let mut rows: BTreeMap<String, Value> = serde_json::from_str(&text).expect("seed rows");
    rows.remove("about");
    rows.into_iter()
        .map(|(version, rows)| {
            (
                version,
                serde_json::from_value(rows).expect("operation id to statuses"),
            )
        })
        .collect()
}

fn exempt(version: &str, operation_id: &str, status: u16) -> bool {
    UNPROVOKABLE.iter().any(|(v, op, s, _)| {
        (*v == "*" || *v == version) && (*op == "*" || *op == operation_id) && *s == status
    })
}

#[test]
fn the_tables_hold_exactly_the_seeds_rows_and_declare_their_statuses() {
    let tables = Tables::standard();
    let seed = seed_rows();
    let mut problems = Vec::new();
    for version in ApiVersion::ALL {
        let rows = &seed[version.short()];
        let table = tables.table(version);
        let served: BTreeSet<&str> = table
            .routes
            .iter()
            .map(|route| route.operation.as_str())
            .collect();
        let listed: BTreeSet<&str> = rows.keys().map(String::as_str).collect();
        for missing in listed.difference(&served) {
            problems.push(format!(
                "{version}: the seed has {missing}, the table does not"
            ));
        }
        let decided = |operation_id: &str| {
            DECIDED
                .iter()
                .any(|(decided_version, decided_operation, _, _)| {
                    *decided_version == version.short() && *decided_operation == operation_id
                })
        };
        for extra in served
            .difference(&listed)
            .filter(|operation_id| !decided(operation_id))
        {
            problems.push(format!(
                "{version}: the table has {extra}, the seed does not"
            ));
        }
        for (operation_id, statuses) in rows {
            let Some(route) = operation_id
                .parse::<Operation>()
                .ok()
                .and_then(|operation| table.route(operation))
            else {
                continue;
            };
            for status in statuses {
                if route.declared(status_code(*status)).is_none() {
                    problems.push(format!(
                        "{version}: {operation_id} does not declare {status}"
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_row_of_both_tables_answers_as_the_seed_says() {
    let world = support::World::new();
    let state = world.state();
    let fixtures = support::fixture::load_all(&support::fixtures_dir());
    let walk = actix_web::rt::System::new().block_on(async {
        let app = actix_web::test::init_service(netcfg_api::create_app(state.clone())).await;
        support::walk(&app, TestRequest::to_request, &fixtures).await
    });
    // The engine's runtime ends here, outside any async context.
    drop(world);
    assert!(
        walk.failures.is_empty(),
        "{} of {} steps failed:\n\n{}",
        walk.failures.len(),
        walk.steps,
        walk.failures.join("\n\n")
    );
    let missing = uncovered(&walk);
    assert!(
        missing.is_empty(),
        "{} steps passed, but these are not exercised:\n{}",
        walk.steps,
        missing.join("\n")
    );
}

/// A status of the seed's rows, as a status code.
fn status_code(status: u16) -> actix_web::http::StatusCode {
    actix_web::http::StatusCode::from_u16(status).expect("the seed's statuses are HTTP statuses")
}

/// What the walk did not reach: seed statuses (not exempt), the statuses
/// of rows decisions.md adds, and paths.
fn uncovered(walk: &support::Walk) -> Vec<String> {
    let tables = Tables::standard();
    let mut missing = Vec::new();
    for (version, operation_id, statuses, _) in DECIDED {
        for status in *statuses {
            let key = ((*version).to_owned(), (*operation_id).to_owned(), *status);
            if !walk.covered.contains(&key) {
                missing.push(format!("{version} {operation_id} {status}"));
            }
        }
    }
    for (version, rows) in seed_rows() {
        let parsed: ApiVersion = version.parse().expect("a version");
        for (operation_id, statuses) in rows {
            let got = |status: u16| {
                walk.covered
                    .contains(&(version.clone(), operation_id.clone(), status))
            };
            if let Some((_, either, _)) = EITHER.iter().find(|(op, _, _)| *op == operation_id) {
                if !either.iter().any(|status| got(*status)) {
                    missing.push(format!("{version} {operation_id}: none of {either:?}"));
                }
                continue;
            }
            for status in statuses {
                if !got(status) && !exempt(&version, &operation_id, status) {
                    missing.push(format!("{version} {operation_id} {status}"));
                }
            }
        }
        for route in &tables.table(parsed).routes {
            for path in &route.paths {
                if !walk.aliases.contains(&(version.clone(), *path)) {
                    missing.push(format!(
                        "{version} {} {path} ({}) is never requested",
                        route.method, route.operation
                    ));
                }
            }
        }
    }
    missing
}

/// A store holding configuration `site` with the devices `serials`, and
/// the application's state on it with `engine`.
fn state_with_devices(
    engine: netcfg_engine::MockEngine,
    serials: &[&str],
) -> (tempfile::TempDir, web::Data<AppState>) {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let store = Arc::new(netcfg_store::Store::open(directory.path()).expect("a store"));
    let name: netcfg_model::ConfigName = "site".parse().expect("a name");
    store
        .create(&name, netcfg_model::Instance::default())
        .expect("created");
    let net = store.net(&name).expect("opened");
    for serial in serials {
        let body = serde_json::json!({
            "serial_number": serial, "disabled": false,
            "interfaces": [{"identifier": 0, "role_id": 4}]
        });
        net.create_device(netcfg_model::FromJson::from_json(&body).expect("a device body"))
            .expect("created");
    }
    let services = Services {
        store,
        engine: Arc::new(engine),
        command_timeout: netcfg_api::DEFAULT_COMMAND_TIMEOUT,
    };
    let state = web::Data::new(AppState::new(ApiVersion::V5_1, services));
    (directory, state)
}

#[actix_web::test]
async fn a_multi_device_command_naming_unknown_serials_is_a_404_and_sends_nothing() {
    let mut engine = netcfg_engine::MockEngine::new();
    engine.expect_multi_device_command().never();
    let (_directory, state) = state_with_devices(engine, &["01:05:0001"]);
    let app = actix_web::test::init_service(netcfg_api::create_app(state)).await;
    let request = TestRequest::post()
        .uri("/nets/site/devices/action")
        .set_json(serde_json::json!({
            "action": "clear_device_error",
            "serial_numbers": ["01:05:0001", "01:05:0998", "01:05:0999"]
        }))
        .to_request();
    let response = actix_web::test::call_service(&app, request).await;
    assert_eq!(response.status(), 404);
    let body: Value = actix_web::test::read_body_json(response).await;
    assert_eq!(body["code"], "device_not_found");
    let message = body["message"].as_str().expect("a message");
    assert!(
        message.contains("01:05:0998, 01:05:0999") && !message.contains("01:05:0001"),
        "{message}"
    );
}

#[actix_web::test]
async fn a_multi_device_command_that_fails_in_part_is_a_200_at_level_2() {
    use netcfg_model::{ActionOutcome, DeviceActionName, DeviceActionReply, SerialNumber};
    let mut engine = netcfg_engine::MockEngine::new();
    engine
        .expect_multi_device_command()
        .times(1)
        .returning(|_, serials, _, timeout| {
            let results: Vec<netcfg_engine::DeviceCommandResult> = serials
                .into_iter()
                .enumerate()
                .map(|(index, serial_number): (usize, SerialNumber)| {
                    let result = if index == 0 {
                        Ok(DeviceActionReply {
                            serial_number,
                            action: DeviceActionName::ClearDeviceError,
                            outcome: ActionOutcome::Done,
                        })
                    } else {
                        Err(netcfg_engine::EngineError::DeviceTimeout {
                            serial_number,
                            action: DeviceActionName::ClearDeviceError,
                            waited: timeout,
                        })
                    };
                    (serial_number, result)
                })
                .collect();
            Box::pin(async move { Ok(results) })
        });
    let (_directory, state) = state_with_devices(engine, &["01:05:0001", "01:05:0002"]);
    let app = actix_web::test::init_service(netcfg_api::create_app(state)).await;
    let request = TestRequest::post()
        .uri("/nets/site/devices/action")
        .set_json(serde_json::json!({
            "action": "clear_device_error",
            "serial_numbers": ["01:05:0001", "01:05:0002"]
        }))
        .to_request();
    let response = actix_web::test::call_service(&app, request).await;
    assert_eq!(response.status(), 200);
    let body: Value = actix_web::test::read_body_json(response).await;
    assert_eq!(body["Classification"], 2, "{body}");
    assert_eq!(body["status"]["replies"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        body["status"]["failures"][0]["serial_number"], "01:05:0002",
        "{body}"
    );
}

#[actix_web::test]
async fn a_fault_of_the_host_is_a_500_with_an_incident_id_and_no_internal_text() {
    let (directory, state) = state_with_devices(netcfg_engine::MockEngine::new(), &[]);
    // New configurations are built in `.tmp/`: a file in its place makes
    // every create fail inside the store, as a broken disk would.
    let temp = directory.path().join(".tmp");
    std::fs::remove_dir_all(&temp).expect("the store's .tmp/ is removed");
    std::fs::write(&temp, b"not a directory").expect("a file takes its place");
    let app = actix_web::test::init_service(netcfg_api::create_app(state)).await;
    let request = TestRequest::post()
        .uri("/nets")
        .set_json(serde_json::json!({"name": "other", "instance": "sim"}))
        .to_request();
    let response = actix_web::test::call_service(&app, request).await;
    assert_eq!(response.status(), 500);
    let body: Value = actix_web::test::read_body_json(response).await;
    assert_eq!(body["code"], "internal_error", "{body}");
    let incident = body["incident"].as_str().expect("an incident id");
    let message = body["message"].as_str().expect("a message");
    assert!(message.contains(incident), "{message}");
    let root = directory.path().to_string_lossy().into_owned();
    for internal in [root.as_str(), ".tmp", "os error", "SQLite", "sqlite"] {
        assert!(!message.contains(internal), "{internal} in {message}");
    }
}
