//! Schedules through the real server (decisions §16): a schedule starts
//! and stops the network at its time, each run journalled in the history
//! as `schedule:<name>` and told in a notification; starts and stops asked
//! over HTTP are journalled too; runs whose time passed while the server
//! was down are reported as missed after it starts again.

use std::{
    thread,
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use serde_json::{Value, json};

use crate::support::{Request, Server, act, history, notifications, wait_until};

fn running(server: &Server, net: &str) -> bool {
    server
        .send(&Request::get(&format!("/nets/{net}")))
        .expect(200)["configuration"]["state"]
        == "running"
}

/// `net`'s schedule `name`.
fn schedule(server: &Server, net: &str, name: &str) -> Value {
    server
        .send(&Request::get(&format!("/nets/{net}/schedules/{name}")))
        .expect(200)["schedule"]
        .clone()
}

#[test]
fn a_schedule_starts_and_stops_the_network_and_journals_each_run() {
    let server = Server::start();
    server.create_on_simulator("site", &[]);
    let created = server
        .send(&Request::json(
            "POST",
            "/nets/site/schedules",
            &json!({"name": "pulse", "cron": "*/2 * * * * *", "action": "start"}),
        ))
        .expect(201)["schedule"]
        .clone();
    let next = created["next_run_ms"].as_i64().expect("a next run");
    assert_eq!(next % 2_000, 0, "on an even second: {created}");

    let started = wait_until(|| running(&server, "site"), |running| *running);
    assert!(started, "the schedule did not start the network");
    let told = wait_until(
        || notifications(&server, "site", "Schedule pulse (start): started"),
        |found| !found.is_empty(),
    );
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0]["level"], 3);
    let journal = history(&server, "site");
    let run = journal
        .iter()
        .find(|entry| entry["origin"] == "schedule:pulse")
        .unwrap_or_else(|| panic!("no run in the history: {journal:?}"));
    assert_eq!(run["summary"], "Started");
    assert_eq!(run["path"], "/nets/site/schedules/pulse");
    assert!(
        journal.iter().all(|entry| entry["origin"] != "local"),
        "a run's ledger is not journalled: {journal:?}"
    );

    // Later runs find it running: skipped, and said so.
    let last = wait_until(
        || schedule(&server, "site", "pulse"),
        |schedule| schedule["last_run"]["outcome"] == "skipped",
    );
    assert_eq!(
        last["last_run"]["message"], "it was running already",
        "{last}"
    );
    assert!(last["next_run_ms"].as_i64() > last["last_run"]["due_ms"].as_i64());

    // The same schedule, now a stop.
    server
        .send(&Request::json(
            "PATCH",
            "/nets/site/schedules/pulse",
            &json!({"action": "stop"}),
        ))
        .expect(200);
    let stopped = wait_until(|| running(&server, "site"), |running| !*running);
    assert!(!stopped, "the schedule did not stop the network");
    let journal = wait_until(
        || history(&server, "site"),
        |journal| journal.iter().any(|entry| entry["summary"] == "Stopped"),
    );
    let stop = journal
        .iter()
        .find(|entry| entry["summary"] == "Stopped")
        .unwrap();
    assert_eq!(stop["origin"], "schedule:pulse");

    // Disabled, it runs no more; a start asked over HTTP is journalled as
    // its asker's.
    server
        .send(&Request::json(
            "PATCH",
            "/nets/site/schedules/pulse",
            &json!({"enabled": false}),
        ))
        .expect(200);
    act(&server, "site", "start");
    let newest = &history(&server, "site")[0];
    assert_eq!(
        (newest["summary"].as_str(), newest["origin"].as_str()),
        (Some("Started"), Some("anonymous")),
        "{newest}"
    );
    thread::sleep(Duration::from_millis(2_500));
    assert!(running(&server, "site"), "a disabled schedule stopped it");
}

/// A server with the configuration `site` and its schedule `hourly`, a
/// restart at the top of each hour.
fn site_with_an_hourly_restart() -> Server {
    let server = Server::start();
    server.create_on_simulator("site", &[]);
    server
        .send(&Request::json(
            "POST",
            "/nets/site/schedules",
            &json!({"name": "hourly", "cron": "0 * * * *", "action": "restart"}),
        ))
        .expect(201);
    server
}

#[test]
fn runs_missed_while_the_server_was_down_are_reported_after_it_starts() {
    let server = site_with_an_hourly_restart();
    // The server is down for three and a half hours: its ledger is wound
    // back by as much while it is stopped.
    let server = server.restart(|data_dir| {
        let file = rusqlite::Connection::open(data_dir.join("site.sqlite")).unwrap();
        let changed = file
            .execute(
                "UPDATE schedule_runs SET since_ms = since_ms - 12600000 WHERE schedule = 'hourly'",
                [],
            )
            .unwrap();
        assert_eq!(changed, 1);
    });
    let missed = wait_until(
        || notifications(&server, "site", "Schedule hourly (restart): missed"),
        |found| !found.is_empty(),
    );
    assert_eq!(missed.len(), 1, "{missed:?}");
    let message = missed[0]["message"].as_str().unwrap();
    assert!(
        message.contains("runs from") && message.ends_with("the server was not running"),
        "{message}"
    );
    assert_eq!(missed[0]["level"], 2);
    let schedule = schedule(&server, "site", "hourly");
    // A run of the last minute still runs (a restart of a stopped network
    // is skipped); older ones are missed.
    let outcome = schedule["last_run"]["outcome"].as_str();
    assert!(matches!(outcome, Some("missed" | "skipped")), "{schedule}");
    assert!(
        schedule["next_run_ms"].as_i64() > schedule["last_run"]["due_ms"].as_i64(),
        "{schedule}"
    );
    // Reported once: not again at the next look.
    thread::sleep(Duration::from_millis(1_000));
    assert_eq!(
        notifications(&server, "site", "Schedule hourly (restart): missed").len(),
        1
    );
}

/// A file that was elsewhere for hours counts its schedules' runs from its
/// upload: this server missed none of the runs due meanwhile.
#[test]
fn an_uploaded_file_counts_its_schedules_from_its_arrival() {
    let server = site_with_an_hourly_restart();
    let file = server.send(&Request::get("/nets/site/download"));
    assert_eq!(file.status, 200);
    // The file lies somewhere for three and a half hours.
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("site.sqlite");
    std::fs::write(&path, &file.body).unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute(
            "UPDATE schedule_runs SET since_ms = since_ms - 12600000",
            [],
        )
        .unwrap();
    let old = std::fs::read(&path).unwrap();
    server
        .send(&Request::multipart(
            "/nets/upload",
            &[("name", "moved")],
            &[("net_file", "site.sqlite", &old)],
        ))
        .expect(201);
    let schedule = schedule(&server, "moved", "hourly");
    let hour_ahead = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
        + 3_600_000;
    assert!(
        schedule["next_run_ms"]
            .as_i64()
            .is_some_and(|next| next > hour_ahead - 3_600_000 && next <= hour_ahead),
        "the next run is the coming hour: {schedule}"
    );
    thread::sleep(Duration::from_millis(1_000));
    assert!(
        notifications(&server, "moved", "Schedule hourly").is_empty(),
        "nothing was missed"
    );
}

/// A run that fails (a start on a serial port that does not exist) is told
/// at level 1 with the engine's reason, and recorded as failed; nothing is
/// journalled.
#[test]
fn a_run_that_fails_raises_an_error_notification() {
    let server = Server::start();
    server
        .send(&Request::json(
            "POST",
            "/nets",
            &json!({"name": "site", "instance": "/dev/ttyNETCFG-NONE"}),
        ))
        .expect(201);
    server
        .send(&Request::json(
            "POST",
            "/nets/site/schedules",
            &json!({"name": "pulse", "cron": "*/2 * * * * *", "action": "start"}),
        ))
        .expect(201);
    let failed = wait_until(
        || notifications(&server, "site", "Schedule pulse (start): failed: "),
        |found| !found.is_empty(),
    );
    assert!(!failed.is_empty(), "no failure was told");
    assert_eq!(failed[0]["level"], 1, "{failed:?}");
    // Read between runs: a run in progress shows as running.
    let schedule = wait_until(
        || schedule(&server, "site", "pulse"),
        |schedule| schedule["last_run"]["outcome"] != "running",
    );
    assert_eq!(schedule["last_run"]["outcome"], "failed", "{schedule}");
    assert!(!running(&server, "site"));
    assert!(
        history(&server, "site")
            .iter()
            .all(|entry| entry["origin"] != "schedule:pulse"),
        "a failed run changed nothing to journal"
    );
}
