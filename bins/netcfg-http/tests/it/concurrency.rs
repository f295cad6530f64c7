//! Optimistic concurrency through the real server (decisions.md §10): a
//! GET of a configuration's item or list carries a strong ETag; a matching
//! If-None-Match is a 304 with no body; a write with a stale If-Match is a
//! 412 that changes nothing; of clients that write with the same tag at
//! once, exactly one succeeds.

use std::{sync::Barrier, thread};

use serde_json::{Value, json};

use crate::support::{Request, Response, Server};

const DEVICE: &str = "/nets/site/devices/01:04:0001";

fn anchor(name: &str) -> Value {
    json!({"serial_number": "01:04:0001", "disabled": false, "name": name,
           "interfaces": [{"identifier": 0, "role_id": 2, "x": 0, "y": 0, "z": 2500}]})
}

fn server_with_a_device() -> Server {
    let server = Server::start();
    server.create_on_simulator("site", &[anchor("first")]);
    server
}

fn tag(response: &Response) -> String {
    response
        .header("ETag")
        .unwrap_or_else(|| panic!("no ETag on a {} response", response.status))
        .to_owned()
}

fn name_of(server: &Server) -> Value {
    server.send(&Request::get(DEVICE)).expect(200)["device"]["name"].clone()
}

fn patch(server: &Server, name: &str, if_match: &str) -> Response {
    server.send(&Request::json("PATCH", DEVICE, &anchor(name)).header("If-Match", if_match))
}

#[test]
fn a_read_is_tagged_and_revalidated_with_a_304() {
    let server = server_with_a_device();
    let first = server.send(&Request::get(DEVICE));
    assert_eq!(first.status, 200);
    let etag = tag(&first);
    assert!(
        etag.starts_with('"') && !etag.starts_with("W/"),
        "a strong tag: {etag}"
    );
    assert_eq!(
        tag(&server.send(&Request::get(DEVICE))),
        etag,
        "the same bytes, the same tag"
    );

    let again = server.send(&Request::get(DEVICE).header("If-None-Match", &etag));
    assert_eq!(again.status, 304);
    assert!(again.body.is_empty());
    assert_eq!(tag(&again), etag);

    patch(&server, "renamed", "*").expect(200);
    let changed = server.send(&Request::get(DEVICE).header("If-None-Match", &etag));
    assert_eq!(changed.status, 200, "a changed item is sent again");
    assert_ne!(tag(&changed), etag);
    // Lists are tagged too, and in 5.0.
    let list = server.send(&Request::get("/nets/site/devices").header("Api-Version", "5.0"));
    assert_eq!(list.status, 200);
    tag(&list);
}

#[test]
fn a_stale_if_match_changes_nothing() {
    let server = server_with_a_device();
    let stale = tag(&server.send(&Request::get(DEVICE)));
    patch(&server, "second", &stale).expect(200);

    let refused = patch(&server, "third", &stale);
    assert_eq!(refused.status, 412);
    let body = refused.json();
    assert_eq!(body["code"], "precondition_failed");
    assert_eq!(body["Classification"], 1);
    assert_eq!(name_of(&server), "second");

    let deleted = server.send(&Request::new("DELETE", DEVICE).header("If-Match", &stale));
    assert_eq!(deleted.status, 412);
    server.send(&Request::get(DEVICE)).expect(200);

    // A create is compared with the list it adds to.
    let list = tag(&server.send(&Request::get("/nets/site/devices")));
    let tag_body = json!({"serial_number": "01:05:0001", "disabled": false,
                          "interfaces": [{"identifier": 0, "role_id": 4}]});
    server
        .send(&Request::json("POST", "/nets/site/devices", &tag_body).header("If-Match", &list))
        .expect(201);
    let again = json!({"serial_number": "01:05:0002", "disabled": false,
                       "interfaces": [{"identifier": 0, "role_id": 4}]});
    let late =
        server.send(&Request::json("POST", "/nets/site/devices", &again).header("If-Match", &list));
    assert_eq!(late.status, 412);
    server
        .send(&Request::get("/nets/site/devices/01:05:0002"))
        .expect(404);
}

#[test]
fn of_two_editors_with_one_tag_exactly_one_succeeds() {
    let server = server_with_a_device();
    for round in 0..5 {
        let etag = tag(&server.send(&Request::get(DEVICE)));
        let editors = 8;
        let barrier = Barrier::new(editors);
        let outcomes: Vec<(String, u16)> = thread::scope(|scope| {
            let handles: Vec<_> = (0..editors)
                .map(|editor| {
                    let (server, barrier, etag) = (&server, &barrier, &etag);
                    scope.spawn(move || {
                        let name = format!("round {round} editor {editor}");
                        barrier.wait();
                        let status = patch(server, &name, etag).status;
                        (name, status)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| handle.join().expect("an editor"))
                .collect()
        });
        let winners: Vec<&String> = outcomes
            .iter()
            .filter(|(_, status)| *status == 200)
            .map(|(name, _)| name)
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {outcomes:?}");
        assert!(
            outcomes
                .iter()
                .all(|(_, status)| *status == 200 || *status == 412),
            "{outcomes:?}"
        );
        assert_eq!(
            name_of(&server),
            json!(winners[0]),
            "the winner's change is the one kept"
        );
    }
}

/// A bad body is a 400 whatever the tag; a good one with a stale tag is a
/// 412, both before the handler runs.
#[test]
fn a_bad_body_is_a_400_whatever_the_tag() {
    let server = server_with_a_device();
    let stale = tag(&server.send(&Request::get(DEVICE)));
    patch(&server, "second", &stale).expect(200);
    let bad = json!({"serial_number": "01:04:0001", "disabled": "no"});
    let invalid = server.send(&Request::json("PATCH", DEVICE, &bad).header("If-Match", &stale));
    assert_eq!(invalid.status, 400);
    let malformed = server.send(
        &Request::new("PATCH", DEVICE)
            .header("Content-Type", "application/json")
            .header("If-Match", &stale)
            .body(b"{not json".to_vec()),
    );
    assert_eq!(malformed.status, 400);
    let current = tag(&server.send(&Request::get(DEVICE)));
    let invalid = server.send(&Request::json("PATCH", DEVICE, &bad).header("If-Match", &current));
    assert_eq!(invalid.status, 400);
    assert_eq!(patch(&server, "third", &stale).status, 412);
    assert_eq!(name_of(&server), "second");
}

/// A tag names the kind of data its representation shows: the
/// notifications a running network stores do not make an editor's tag
/// stale, while a write to the notifications compares their own tag.
#[test]
fn the_notifications_of_a_running_network_leave_an_editors_tag_current() {
    let server = server_with_a_device();
    let device = tag(&server.send(&Request::get(DEVICE)));
    let notifications = tag(&server.send(&Request::get("/nets/site/notifications")));
    let start = json!({"action": "start"});
    server
        .send(&Request::json("POST", "/nets/site", &start))
        .expect(200);
    while server
        .send(&Request::get("/nets/site/notifications"))
        .expect(200)["notifications"]
        .as_array()
        .is_none_or(Vec::is_empty)
    {
        thread::sleep(std::time::Duration::from_millis(20));
    }
    let listed = server.send(&Request::get("/nets/site/notifications"));
    assert_ne!(tag(&listed), notifications, "a notification was stored");
    assert_eq!(tag(&server.send(&Request::get(DEVICE))), device);

    let read = json!({"read": true});
    let stale = server.send(
        &Request::json("PATCH", "/nets/site/notifications", &read)
            .header("If-Match", &notifications),
    );
    assert_eq!(stale.status, 412);
    // The network may store another between a read and the write: each
    // try is a 200 or a 412, and one with a current tag succeeds.
    let mut current = tag(&listed);
    let mut marked = false;
    for _ in 0..50 {
        let status = server
            .send(
                &Request::json("PATCH", "/nets/site/notifications", &read)
                    .header("If-Match", &current),
            )
            .status;
        assert!(status == 200 || status == 412, "{status}");
        if status == 200 {
            marked = true;
            break;
        }
        current = tag(&server.send(&Request::get("/nets/site/notifications")));
    }
    assert!(marked, "no try with a current tag succeeded");
    patch(&server, "while it runs", &device).expect(200);
    assert_eq!(name_of(&server), "while it runs");
}
