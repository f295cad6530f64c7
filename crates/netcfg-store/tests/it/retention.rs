//! Retention (decisions §20): history and notifications kept within their
//! counts and ages, pruned by the writer in the background or at once by
//! `Net::prune`, the file's free pages given back, and a restore that
//! never reaches past a pruning.

use std::time::{Duration, Instant};

use netcfg_model::{DeviceKey, Instance, Level, SerialNumber, time::clock::wall_clock_ms};
use netcfg_store::{ConflictKind, Net, Retention, StoreError, StoreOptions};

use crate::support::{TempStore, name, tag, temp_store_with};

const DAY_MS: u64 = 86_400_000;
const TAG: u32 = 0x0105_0001;

fn store_keeping(retention: Retention) -> (TempStore, Net) {
    let temp = temp_store_with(StoreOptions {
        retention,
        ..StoreOptions::default()
    });
    temp.store
        .create(&name("net"), Instance::ServerDefault)
        .unwrap();
    let net = temp.store.net(&name("net")).unwrap();
    (temp, net)
}

fn rename_tag(net: &Net, new_name: &str) {
    let mut renamed = tag(TAG);
    renamed.name = Some(new_name.parse().unwrap());
    net.replace_device(DeviceKey::Serial(SerialNumber::from_u32(TAG)), renamed)
        .unwrap();
}

fn tag_name(net: &Net) -> String {
    let device = net
        .device(DeviceKey::Serial(SerialNumber::from_u32(TAG)))
        .unwrap();
    device.name.map(|name| name.to_string()).unwrap_or_default()
}

fn ids(net: &Net) -> Vec<u64> {
    let mut ids: Vec<u64> = net
        .history(None, u32::MAX)
        .unwrap()
        .iter()
        .map(|entry| entry.id)
        .collect();
    ids.reverse();
    ids
}

fn sql(temp: &TempStore) -> rusqlite::Connection {
    rusqlite::Connection::open(temp.store.data_dir().join("net.sqlite")).unwrap()
}

fn count(conn: &rusqlite::Connection, query: &str) -> i64 {
    conn.query_row(query, [], |row| row.get(0)).unwrap()
}

#[test]
fn history_past_its_count_goes_to_a_margin_below_with_an_entry_saying_so() {
    let (temp, net) = store_keeping(Retention {
        history_keep: 100,
        ..Retention::default()
    });
    net.create_device(tag(TAG)).unwrap();
    for change in 2..=230 {
        rename_tag(&net, &format!("Tag {change}"));
    }
    net.prune().unwrap();

    // 1% below the bound (99), and the pruning's own entry.
    assert_eq!(ids(&net), (132..=231).collect::<Vec<_>>());
    let pruning = &net.history(None, 1).unwrap()[0];
    assert_eq!(pruning.origin, "local");
    assert!(
        pruning
            .summary
            .contains("the oldest 131 changes (1 to 131) went, more than history_keep (100)"),
        "{}",
        pruning.summary
    );
    let conn = sql(&temp);
    assert_eq!(
        count(
            &conn,
            "SELECT count(*) FROM history_undo WHERE id < (132 << 24)"
        ),
        0,
        "the undo rows of the changes pruned went with them"
    );
    assert_eq!(count(&conn, "PRAGMA freelist_count"), 0, "pages given back");

    let refused = net.restore(131);
    assert!(
        matches!(
            &refused,
            Err(StoreError::Conflict {
                kind: ConflictKind::HistoryPruned,
                ..
            })
        ),
        "{refused:?}"
    );
    assert_eq!(
        tag_name(&net),
        "Tag 230",
        "a refused restore changes nothing"
    );
    net.restore(132).unwrap();
    assert_eq!(tag_name(&net), "Tag 132");
    // A change never made is still not found.
    assert!(matches!(
        net.restore(10_000),
        Err(StoreError::NotFound { .. })
    ));
}

#[test]
fn notifications_past_their_count_go_read_ones_first() {
    let (_temp, net) = store_keeping(Retention {
        notifications_keep: 100,
        ..Retention::default()
    });
    let now = wall_clock_ms();
    let add = |count: u64| {
        for _ in 0..count {
            net.add_notification(Level::Warning, "event", None, now)
                .unwrap();
        }
    };
    let identifiers = || -> Vec<u64> {
        let notifications = net.notifications().unwrap();
        notifications.iter().map(|n| n.identifier).collect()
    };
    add(200);
    net.prune().unwrap();
    assert_eq!(identifiers(), (102..=200).collect::<Vec<_>>());

    for identifier in 190..=200 {
        net.set_notification_read(identifier, true).unwrap();
    }
    add(20);
    net.prune().unwrap();
    // 20 over: the 11 read ones, then the 9 oldest unread.
    let expected: Vec<u64> = (111..=189).chain(201..=220).collect();
    assert_eq!(identifiers(), expected);
    assert_eq!(net.unread_notifications().unwrap(), 99);
    // Identifiers go on from the highest ever given.
    add(1);
    assert_eq!(identifiers().last(), Some(&221));
}

#[test]
fn history_and_notifications_past_their_age_go() {
    let (temp, net) = store_keeping(Retention {
        history_keep_days: 30,
        notifications_keep_days: 90,
        ..Retention::default()
    });
    net.create_device(tag(TAG)).unwrap();
    for change in 2..=20 {
        rename_tag(&net, &format!("Tag {change}"));
    }
    let now = wall_clock_ms();
    sql(&temp)
        .execute(
            "UPDATE history SET timestamp_ms = ?1 WHERE id <= 10",
            [i64::try_from(now - 31 * DAY_MS).unwrap()],
        )
        .unwrap();
    for age_days in [120, 91, 89, 0] {
        net.add_notification(
            Level::Warning,
            format!("{age_days} days old"),
            None,
            now - age_days * DAY_MS,
        )
        .unwrap();
    }
    net.prune().unwrap();

    assert_eq!(ids(&net), (11..=21).collect::<Vec<_>>());
    let pruning = &net.history(None, 1).unwrap()[0];
    assert!(
        pruning.summary.contains(
            "the oldest 10 changes (1 to 10) went, older than history_keep_days (30 days)"
        ),
        "{}",
        pruning.summary
    );
    let kept: Vec<String> = net
        .notifications()
        .unwrap()
        .into_iter()
        .map(|notification| notification.message)
        .collect();
    assert_eq!(kept, ["89 days old", "0 days old"]);
}

/// Nobody calls `prune`: the writer looks after changes and prunes when
/// idle. Waited for up to a minute (it takes seconds), so a writer that
/// never prunes fails the test rather than hanging it.
#[test]
fn the_writer_prunes_in_the_background() {
    let (temp, net) = store_keeping(Retention {
        history_keep: 20,
        notifications_keep: 20,
        ..Retention::default()
    });
    net.create_device(tag(TAG)).unwrap();
    for change in 2..=60 {
        rename_tag(&net, &format!("Tag {change}"));
        net.add_notification(Level::Warning, "event", None, wall_clock_ms())
            .unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let history = ids(&net).len();
        let notifications = net.notifications().unwrap().len();
        if history <= 20 && notifications <= 20 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "after a minute: {history} history entries, {notifications} notifications"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(tag_name(&net), "Tag 60", "pruning changes no content");
    let conn = sql(&temp);
    // The vacuum step may still run; the pages of the rows are freed.
    assert_eq!(count(&conn, "PRAGMA auto_vacuum"), 2);
}

/// A configuration nobody writes: its oldest notification passes its age
/// a few seconds after the last write. Awake, its writer sleeps until then
/// and prunes it; put to rest first (no call for 200 ms), the store wakes
/// it then (decisions §20: within 10 s of passing a bound). Waited for up
/// to a minute so that a store that never prunes fails the test.
#[test]
fn a_configuration_nobody_writes_loses_what_passes_its_age() {
    for rests in [false, true] {
        let temp = temp_store_with(StoreOptions {
            retention: Retention {
                notifications_keep_days: 1,
                ..Retention::default()
            },
            idle_after: if rests {
                Duration::from_millis(200)
            } else {
                Duration::from_secs(600)
            },
            ..StoreOptions::default()
        });
        let net_name = name("net");
        temp.store
            .create(&net_name, Instance::ServerDefault)
            .unwrap();
        let net = temp.store.net(&net_name).unwrap();
        let now = wall_clock_ms();
        net.add_notification(Level::Warning, "old soon", None, now - DAY_MS + 4_000)
            .unwrap();
        net.add_notification(Level::Warning, "new", None, now)
            .unwrap();
        drop(net);
        let messages = || -> Vec<String> {
            let registry_free = temp.store.net(&net_name).unwrap();
            registry_free
                .notifications()
                .unwrap()
                .into_iter()
                .map(|notification| notification.message)
                .collect()
        };
        if rests {
            let deadline = Instant::now() + Duration::from_secs(60);
            while temp.store.net_if_awake(&net_name).is_some() {
                assert!(Instant::now() < deadline, "it never rested");
                std::thread::sleep(Duration::from_millis(50));
            }
        } else {
            assert_eq!(messages(), ["old soon", "new"], "not yet past its age");
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        while messages() != ["new"] {
            assert!(
                Instant::now() < deadline,
                "a minute later (resting: {rests}): {:?}",
                messages()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

#[test]
fn new_and_older_files_get_incremental_vacuum() {
    let temp = temp_store_with(StoreOptions::default());
    temp.store
        .create(&name("net"), Instance::ServerDefault)
        .unwrap();
    let path = temp.store.data_dir().join("net.sqlite");
    assert_eq!(count(&sql(&temp), "PRAGMA auto_vacuum"), 2, "a new file");

    // A file of an older version of this program has none: it gets it
    // when opened.
    let bytes = temp.store.download(&name("net")).unwrap();
    let older = temp.dir.path().join("older.sqlite");
    std::fs::write(&older, &bytes).unwrap();
    {
        let conn = rusqlite::Connection::open(&older).unwrap();
        conn.execute_batch("PRAGMA auto_vacuum = NONE; VACUUM;")
            .unwrap();
        assert_eq!(count(&conn, "PRAGMA auto_vacuum"), 0);
    }
    temp.store
        .upload(&name("older"), &std::fs::read(&older).unwrap())
        .unwrap();
    temp.store.net(&name("older")).unwrap().devices().unwrap();
    let uploaded = rusqlite::Connection::open(path.with_file_name("older.sqlite")).unwrap();
    assert_eq!(count(&uploaded, "PRAGMA auto_vacuum"), 2);
}

/// A file saved while a pruning was half done (entries gone, some of their
/// undo rows not yet) is whole: the upload takes it, and the next pruning
/// removes the rest.
#[test]
fn an_upload_of_a_file_pruned_half_way_is_taken_and_finished() {
    let (temp, net) = store_keeping(Retention {
        history_keep: 10,
        ..Retention::default()
    });
    net.create_device(tag(TAG)).unwrap();
    for change in 2..=8 {
        rename_tag(&net, &format!("Tag {change}"));
    }
    let bytes = temp.store.download(&name("net")).unwrap();
    let half = temp.dir.path().join("half.sqlite");
    std::fs::write(&half, &bytes).unwrap();
    rusqlite::Connection::open(&half)
        .unwrap()
        .execute("DELETE FROM history WHERE id <= 3", [])
        .unwrap();
    temp.store
        .upload(&name("half"), &std::fs::read(&half).unwrap())
        .unwrap();
    let uploaded = temp.store.net(&name("half")).unwrap();
    assert!(matches!(
        uploaded.restore(2),
        Err(StoreError::Conflict {
            kind: ConflictKind::HistoryPruned,
            ..
        })
    ));
    uploaded.restore(4).unwrap();
    assert_eq!(tag_name(&uploaded), "Tag 4");

    // Twelve entries now (4 to 9 and six more): past the bound of ten.
    for change in 10..=15 {
        rename_tag(&uploaded, &format!("Tag {change}"));
    }
    uploaded.prune().unwrap();
    let conn = rusqlite::Connection::open(temp.store.data_dir().join("half.sqlite")).unwrap();
    let oldest = count(&conn, "SELECT min(id) FROM history");
    assert_eq!(
        count(
            &conn,
            &format!("SELECT count(*) FROM history_undo WHERE id < ({oldest} << 24)")
        ),
        0
    );
}
