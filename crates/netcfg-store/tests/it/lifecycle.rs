//! The lifecycle of configurations under concurrency. A copy of a large
//! configuration delays no call for another one: while
//! the copy's file in `.tmp/` is provably still growing, another
//! configuration is listed, read, changed and downloaded, and all of that
//! ends before the copy does. The test checks the order of events, never a
//! duration.

use std::{
    path::Path,
    sync::{
        Mutex,
        atomic::{AtomicBool, Ordering},
    },
    thread,
    time::Duration,
};

use netcfg_model::{DeviceKey, Instance, SerialNumber};

use crate::support::{name, tag, temp_store};

/// Devices written straight into the file: with a 64-character name each,
/// about 40 MB, so the copy takes a while even on a fast disk.
const DEVICES: u32 = 400_000;

/// Fills configuration `file` with [`DEVICES`] tags through SQL (the typed
/// path would take minutes in a debug build; the rows are the same).
fn fill(file: &Path) {
    let conn = rusqlite::Connection::open(file).expect("the file opens");
    conn.busy_timeout(Duration::from_secs(60))
        .expect("a busy timeout");
    conn.execute_batch(&format!(
        "BEGIN;
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {DEVICES})
         INSERT INTO devices (id, serial_number, name, disabled)
             SELECT i, 16777216 + i, printf('%064d', i), 0 FROM n;
         INSERT INTO interfaces (device_id, identifier, role_id) SELECT id, 0, 4 FROM devices;
         COMMIT;
         PRAGMA wal_checkpoint(TRUNCATE);"
    ))
    .expect("the devices are written");
}

/// The size of the copy being built in `.tmp/`, if there is one.
fn copy_in_progress(temp_dir: &Path) -> Option<u64> {
    std::fs::read_dir(temp_dir)
        .ok()?
        .filter_map(Result::ok)
        .filter(|entry| entry.file_name().to_string_lossy().starts_with("copy-"))
        .filter_map(|entry| entry.metadata().ok())
        .map(|metadata| metadata.len())
        .max()
}

#[test]
fn a_long_copy_delays_no_call_for_another_configuration() {
    let temp = temp_store();
    let store = &temp.store;
    let (big, other, copy) = (name("big"), name("other"), name("big-copy"));
    store.create(&big, Instance::ServerDefault).unwrap();
    store.create(&other, Instance::ServerDefault).unwrap();
    fill(&store.data_dir().join("big.sqlite"));
    assert_eq!(
        store.net(&big).unwrap().devices().unwrap().len(),
        DEVICES as usize
    );

    let events = Mutex::new(Vec::<&str>::new());
    let event = |what| events.lock().unwrap().push(what);
    let copied = AtomicBool::new(false);
    thread::scope(|scope| {
        let copying = scope.spawn(|| {
            let result = store.copy(&big, &copy);
            event("copy finished");
            copied.store(true, Ordering::SeqCst);
            result
        });

        // Wait until the copy's file is seen growing: the copy is then
        // running, between its start and its publication.
        let temp_dir = store.data_dir().join(".tmp");
        let mut seen = 0;
        loop {
            assert!(
                !copied.load(Ordering::SeqCst),
                "the copy ended before it was seen running; make the configuration larger"
            );
            match copy_in_progress(&temp_dir) {
                Some(size) if seen > 0 && size > seen => break,
                Some(size) => seen = size,
                None => {}
            }
            thread::sleep(Duration::from_millis(1));
        }
        event("copy seen running");

        let listed = store.list().unwrap();
        assert!(listed.iter().any(|c| c.name == other));
        event("list");
        assert_eq!(store.get(&other).unwrap().name, other);
        event("other read");
        let net = store.net(&other).unwrap();
        net.create_device(tag(7)).unwrap();
        net.device(DeviceKey::Serial(SerialNumber::from_u32(7)))
            .unwrap();
        event("other changed");
        assert!(!store.download(&other).unwrap().is_empty());
        event("other downloaded");
        store
            .create(&name("third"), Instance::ServerDefault)
            .unwrap();
        event("third created");

        copying.join().unwrap().unwrap();
    });

    assert_eq!(
        *events.lock().unwrap(),
        [
            "copy seen running",
            "list",
            "other read",
            "other changed",
            "other downloaded",
            "third created",
            "copy finished"
        ],
        "calls for other configurations waited for the copy"
    );
    let copied = store.net(&copy).unwrap();
    assert_eq!(copied.devices().unwrap().len(), DEVICES as usize);
}

/// The guarantees the short locking keeps: of concurrent creates, copies,
/// uploads and renames onto one new name exactly one wins and the others
/// are conflicts, and the winner's file is whole.
#[test]
fn of_concurrent_steps_onto_one_name_exactly_one_wins() {
    let temp = temp_store();
    let store = &temp.store;
    for source in ["source", "renamed-a", "renamed-b"] {
        store
            .create(&name(source), Instance::ServerDefault)
            .unwrap();
    }
    store
        .net(&name("source"))
        .unwrap()
        .create_device(tag(1))
        .unwrap();
    let upload = store.download(&name("source")).unwrap();
    for round in 0..4 {
        let target = name(&format!("target-{round}"));
        let outcomes: Vec<Result<(), &str>> = thread::scope(|scope| {
            let steps: Vec<_> = (0..8)
                .map(|step| {
                    let (target, upload) = (&target, &upload);
                    scope.spawn(move || {
                        let result = match step % 4 {
                            0 => store.create(target, Instance::ServerDefault).map(drop),
                            1 => store.copy(&name("source"), target).map(drop),
                            2 => store.upload(target, upload).map(drop),
                            _ => {
                                let from = name(if step == 3 { "renamed-a" } else { "renamed-b" });
                                let moved = store.update(&from, Some(target), None).map(drop);
                                if moved.is_ok() {
                                    // Put the source name back for the next round.
                                    store.copy(target, &from).unwrap();
                                }
                                moved
                            }
                        };
                        result.map_err(|error| crate::support::kind(&error))
                    })
                })
                .collect();
            steps.into_iter().map(|step| step.join().unwrap()).collect()
        });
        let won = outcomes.iter().filter(|outcome| outcome.is_ok()).count();
        assert_eq!(won, 1, "round {round}: {outcomes:?}");
        assert!(
            outcomes
                .iter()
                .all(|outcome| matches!(outcome, Ok(()) | Err("conflict"))),
            "round {round}: {outcomes:?}"
        );
        assert!(store.net(&target).unwrap().roles().is_ok());
    }
}
