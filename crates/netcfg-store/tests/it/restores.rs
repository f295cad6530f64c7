//! Restores made again and again: each journals only the rows it changes,
//! so the history grows with the changes made, never doubling.

use netcfg_model::{DeviceKey, SerialNumber};

use crate::support::{store_with_net, tag};

fn rename_tag(net: &netcfg_store::Net, serial: u32, new_name: &str) {
    let mut renamed = tag(serial);
    renamed.name = Some(new_name.parse().unwrap());
    net.replace_device(DeviceKey::Serial(SerialNumber::from_u32(serial)), renamed)
        .unwrap();
}

fn undo_rows(path: &std::path::Path) -> i64 {
    rusqlite::Connection::open(path)
        .unwrap()
        .query_row("SELECT count(*) FROM history_undo", [], |row| row.get(0))
        .unwrap()
}

/// Twenty restores to the first change, each after a few changes, as
/// CI's fuzzing made them: replaying every undo row since the target for
/// good journalled a restore as long as all it replayed, so each restore
/// doubled the next one's work (6 million undo rows, a writer busy for
/// minutes). Each restore still gives the content of its point, and is
/// undone by restoring to the change before it.
#[test]
fn twenty_restores_to_the_first_change_journal_only_what_each_changes() {
    let (temp, net) = store_with_net();
    let path = temp.store.data_dir().join("net.sqlite");
    net.create_device(tag(0x0105_0001)).unwrap();
    let first = net.history(None, 1).unwrap()[0].id;
    let named = |net: &netcfg_store::Net| {
        net.device(DeviceKey::Serial(SerialNumber::from_u32(0x0105_0001)))
            .unwrap()
            .name
            .map(|name| name.to_string())
    };
    for round in 0..20 {
        for step in 0..3 {
            rename_tag(&net, 0x0105_0001, &format!("tag {round}.{step}"));
        }
        net.create_device(tag(0x0105_0100 + round)).unwrap();
        net.restore(first).unwrap();
        assert_eq!(named(&net), None, "round {round}");
        assert_eq!(net.devices().unwrap().len(), 1, "round {round}");
    }
    // Each round: three renames and a device (about seven rows), and a
    // restore that changes two rows back and removes the device.
    let rows = undo_rows(&path);
    assert!(rows < 20 * 16, "{rows} undo rows after 20 rounds");

    // The last restore is undone by restoring to the change before it.
    let before_last = net.history(None, 1).unwrap()[0].id - 1;
    net.restore(before_last).unwrap();
    assert_eq!(named(&net).as_deref(), Some("tag 19.2"));
    assert_eq!(net.devices().unwrap().len(), 2);
}

/// Two devices that swapped serial numbers (unique) cannot be set back one
/// row at a time: the restore replays the history instead, and still gives
/// the content of its point.
#[test]
fn a_restore_across_swapped_serial_numbers_gives_its_point() {
    let (_temp, net) = store_with_net();
    net.create_device(tag(0x0105_0001)).unwrap();
    net.create_device(tag(0x0105_0002)).unwrap();
    let point = net.history(None, 1).unwrap()[0].id;
    let serials = |net: &netcfg_store::Net| {
        let mut devices: Vec<(String, String)> = net
            .devices()
            .unwrap()
            .into_iter()
            .map(|device| (device.id.to_string(), device.serial_number.to_string()))
            .collect();
        devices.sort();
        devices
    };
    let before = serials(&net);
    let key = |serial: u32| DeviceKey::Serial(SerialNumber::from_u32(serial));
    net.replace_device(key(0x0105_0001), tag(0x0105_0003))
        .unwrap();
    net.replace_device(key(0x0105_0002), tag(0x0105_0001))
        .unwrap();
    net.replace_device(key(0x0105_0003), tag(0x0105_0002))
        .unwrap();
    assert_ne!(serials(&net), before);
    net.restore(point).unwrap();
    assert_eq!(serials(&net), before);
}
