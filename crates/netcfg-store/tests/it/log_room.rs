//! The write-ahead log lengthened ahead of the commits (`wal_room`): the
//! log grows in chunks of zeros rather than commit by commit, and what a
//! crash leaves (the file and its log as they are on disk) opens with every
//! acknowledged change and passes SQLite's integrity check.

use netcfg_model::{DeviceKey, SerialNumber};

use crate::support::{store_with_net, tag};

const TAG: u32 = 0x0105_0001;

#[test]
fn the_log_grows_ahead_and_its_image_opens_whole() {
    let (temp, net) = store_with_net();
    net.create_device(tag(TAG)).unwrap();
    for change in 1..=300 {
        let mut renamed = tag(TAG);
        renamed.name = Some(format!("Tag {change}").parse().unwrap());
        net.replace_device(DeviceKey::Serial(SerialNumber::from_u32(TAG)), renamed)
            .unwrap();
    }
    let dir = temp.store.data_dir();
    // 300 commits of a few 4,120-byte frames each; the log holds more
    // room than they fill, in zeros at its end. The room is made after a
    // commit is answered: waited for (a minute at most).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let log = loop {
        let log = std::fs::read(dir.join("net.sqlite-wal")).unwrap();
        if log.ends_with(&[0; 4120]) {
            break log;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no room at the log's end"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(log.len() >= 256 * 1024, "log of {} bytes", log.len());
    let file = std::fs::read(dir.join("net.sqlite")).unwrap();

    // The image a crash leaves: the file and its log, no index.
    let image = tempfile::tempdir().unwrap();
    std::fs::write(image.path().join("copy.sqlite"), file).unwrap();
    std::fs::write(image.path().join("copy.sqlite-wal"), log).unwrap();
    let conn = rusqlite::Connection::open(image.path().join("copy.sqlite")).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let names: Vec<String> = conn
        .prepare("SELECT name FROM devices")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(names, ["Tag 300"]);
}
