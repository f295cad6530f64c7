//! The crash run's people (decisions §17): the server runs with an admin
//! token that every request carries (access control on: each worker's
//! writes are checked against it at every restart), each worker has a user
//! whose display name it changes and to which it adds API keys. After each
//! restart every acknowledged change is there, an unanswered one there or
//! not, and every key acknowledged since the last restart authenticates as
//! its user: none lost, none half written (a key listed whose secret does
//! not work).

use anyhow::Result;

use super::{
    Report,
    tracker::{Expect, Tracker, Verdict},
};
use crate::server::{Client, Value, object};

/// The admin token of the run (`auth.tokens`).
pub(super) const TOKEN: &str = "crash-run-admin-token-0123456789abcdef";
/// Where a tracker keeps people's items (not a configuration).
pub(super) const PLACE: &str = "people";
/// The display name each worker's user starts with.
const FIRST_NAME: &str = "start";

/// Worker `worker`'s user.
pub(super) fn user_name(worker: usize) -> String {
    format!("crash-w{worker}")
}

/// Each worker's user, with its first display name.
pub(super) fn setup(client: &Client, threads: usize) -> Result<()> {
    for worker in 0..threads {
        let user = object([
            ("name", Value::from(user_name(worker))),
            ("display_name", Value::from(FIRST_NAME)),
            ("role", Value::from("operator")),
            ("password", Value::from("a crash run's password")),
        ]);
        client.expect_ok("POST", "/users", Some(&user.to_string()))?;
    }
    Ok(())
}

/// A worker's people items before the first write: its display name.
pub(super) fn initial(worker: usize, tracker: &mut Tracker) {
    tracker.people.insert(
        (PLACE.to_owned(), format!("user:{}", user_name(worker))),
        Expect {
            acked: Some(Value::from(FIRST_NAME)),
            unanswered: Vec::new(),
        },
    );
}

/// One write of worker `worker`: a new display name, or a new key.
/// (kind, item key, method, path, body, the value tracked)
pub(super) fn write(
    worker: usize,
    counter: u32,
    key: bool,
) -> (&'static str, String, &'static str, String, Value, Value) {
    let user = user_name(worker);
    if key {
        let name = format!("k{counter}");
        let body = object([
            ("name", Value::from(name.clone())),
            ("role", Value::from("viewer")),
        ]);
        let path = format!("/users/{user}/keys");
        (
            "key",
            format!("key:{user}/{name}"),
            "POST",
            path,
            body,
            Value::Bool(true),
        )
    } else {
        let display = format!("write {counter}");
        let body = object([("display_name", Value::from(display.clone()))]);
        let path = format!("/users/{user}");
        (
            "user",
            format!("user:{user}"),
            "PATCH",
            path,
            body,
            Value::from(display),
        )
    }
}

/// Every people item of every worker against the restarted server, and
/// the keys acknowledged since the last restart tried as they would be used.
pub(super) fn verify(
    client: &Client,
    trackers: &[std::sync::Arc<std::sync::Mutex<Tracker>>],
    report: &mut Report,
) -> Result<()> {
    for (worker, tracker) in trackers.iter().enumerate() {
        let user = user_name(worker);
        let record = client
            .expect_ok("GET", &format!("/users/{user}"), None)?
            .payload("user")?;
        let keys = client
            .expect_ok("GET", &format!("/users/{user}/keys"), None)?
            .payload("api_keys")?;
        let listed: Vec<String> = keys
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter_map(|key| Some(format!("key:{user}/{}", key.get("name")?.as_str()?)))
            .collect();
        let mut tracker = super::lock(tracker);
        for ((_, item), expect) in tracker.people.iter_mut() {
            let found = if item.starts_with("user:") {
                record.get("display_name").cloned()
            } else {
                listed.contains(item).then_some(Value::Bool(true))
            };
            report.items_checked += 1;
            match expect.settle(found.as_ref()) {
                Verdict::Acknowledged => report.acknowledged += 1,
                Verdict::Landed => report.landed += 1,
                Verdict::Absent => report.absent += 1,
                Verdict::Lost(how) => report.problems.push(format!("{item}: {how}")),
            }
        }
        for secret in std::mem::take(&mut tracker.fresh_keys) {
            let answer = client
                .clone()
                .with_bearer(&secret)
                .send("GET", "/session", None)?;
            let who = answer
                .payload("session")
                .ok()
                .and_then(|session| session.get("user").cloned());
            report.keys_tried += 1;
            if answer.status != 200 || who != Some(Value::from(user.clone())) {
                report.problems.push(format!(
                    "a key of {user} acknowledged before the kill: GET /session answered {} {}",
                    answer.status,
                    answer.text()
                ));
            }
        }
    }
    Ok(())
}
