//! Recordings' files (decisions §15): a capture cut by a crash is summed up
//! from its whole records at the next listing; a writer that meets a
//! failure leaves a capture that reads whole; uploads publish under a free
//! name only.

use std::{fs::OpenOptions, io::Write as _, net::SocketAddr};

use netcfg_model::{ConfigName, Instance, RecordingEnd, RecordingName, pcap};
use netcfg_store::RecordingWriter;

use crate::support::{TempStore, name, temp_store};

fn recording(text: &str) -> RecordingName {
    text.parse().unwrap()
}

/// A CDP datagram's header and no item: enough for a reader to count it.
fn datagram(sequence: u32) -> Vec<u8> {
    let mut bytes = b"LC02".to_vec();
    bytes.extend_from_slice(&sequence.to_le_bytes());
    bytes.extend_from_slice(b"CDP0002\0");
    bytes.extend_from_slice(&[0; 4]);
    bytes
}

fn addresses() -> (SocketAddr, SocketAddr) {
    (
        "0.0.0.0:40000".parse().unwrap(),
        "239.255.76.67:7667".parse().unwrap(),
    )
}

/// A store with one configuration, `site`, recording `recording_name`
/// (started at `started_ms`).
fn recording_site(
    recording_name: &str,
    started_ms: u64,
) -> (TempStore, ConfigName, RecordingWriter) {
    let temp = temp_store();
    let site = name("site");
    temp.store.create(&site, Instance::ServerDefault).unwrap();
    let writer = temp
        .store
        .create_recording(&site, &recording(recording_name), started_ms)
        .unwrap();
    (temp, site, writer)
}

#[test]
fn a_capture_cut_by_a_crash_is_summed_up_from_its_whole_records() {
    let (temp, site, mut writer) = recording_site("cut", 1_000);
    let store = &temp.store;
    let (from, to) = addresses();
    for index in 0..5u32 {
        writer
            .append(
                2_000_000 + u64::from(index) * 250_000,
                from,
                to,
                &datagram(index),
            )
            .unwrap();
    }
    // The process dies: the buffer is lost or half written, no summary.
    let path = store.recording_path(&site, &recording("cut")).unwrap();
    std::mem::forget(writer);
    let mut file = OpenOptions::new().append(true).open(&path).unwrap();
    let mut whole = pcap::FileHeader::NETCFG.encode().to_vec();
    for index in 0..3u32 {
        pcap::append_record(
            &mut whole,
            2_000_000 + u64::from(index) * 250_000,
            from,
            to,
            &datagram(index),
        );
    }
    // What a crash can leave: whole records, then part of one.
    file.set_len(0).unwrap();
    file.write_all(&whole).unwrap();
    file.write_all(&whole[24..40]).unwrap();
    drop(file);

    let listed = store.recordings(&site, &[]).unwrap();
    assert_eq!(listed.len(), 1);
    let cut = &listed[0];
    assert_eq!(cut.ended, Some(RecordingEnd::Interrupted));
    assert_eq!(
        (cut.datagrams, cut.started_ms, cut.duration_ms),
        (3, 2_000, 500)
    );
    assert!(!cut.active);
    // The half-written record is cut off: the capture is whole again.
    assert_eq!(std::fs::read(&path).unwrap(), whole);
    assert_eq!(cut.size, whole.len() as u64);
    // The summary is kept: the next listing reads it, not the capture.
    assert_eq!(store.recording(&site, &recording("cut")).unwrap(), *cut);
    // One that is active is the caller's to describe.
    assert!(
        store
            .recordings(&site, &[recording("cut")])
            .unwrap()
            .is_empty()
    );
}

/// A kill before the writer's buffer first went to the file can leave
/// the capture without a whole header: it gets one (an empty capture).
#[test]
fn a_capture_cut_inside_its_header_gets_a_whole_header() {
    let (temp, site, writer) = recording_site("early", 5);
    let store = &temp.store;
    let path = store.recording_path(&site, &recording("early")).unwrap();
    std::mem::forget(writer);
    std::fs::write(&path, &pcap::FileHeader::NETCFG.encode()[..10]).unwrap();
    let listed = store.recordings(&site, &[]).unwrap();
    assert_eq!((listed[0].datagrams, listed[0].size), (0, 24));
    assert_eq!(
        std::fs::read(&path).unwrap(),
        pcap::FileHeader::NETCFG.encode()
    );
}

#[test]
fn a_finished_capture_is_whole_and_names_are_never_reused() {
    let (temp, site, mut writer) = recording_site("night", 5);
    let store = &temp.store;
    let (from, to) = addresses();
    writer.append(7_000_000, from, to, &datagram(0)).unwrap();
    writer.append(7_100_000, from, to, &datagram(1)).unwrap();
    let finished = writer.finish(RecordingEnd::Duration).unwrap();
    assert_eq!(
        (finished.datagrams, finished.duration_ms, finished.ended),
        (2, 100, Some(RecordingEnd::Duration))
    );
    let path = store.recording_path(&site, &recording("night")).unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().len(), finished.size);
    assert!(matches!(
        store.create_recording(&site, &recording("night"), 5),
        Err(netcfg_store::StoreError::Conflict { .. })
    ));

    // The same bytes uploaded under another name; not under a taken one.
    let bytes = std::fs::read(&path).unwrap();
    let mut upload = store.begin_recording_upload().unwrap();
    upload.write(&bytes).unwrap();
    let copy = store
        .finish_recording_upload(&site, &recording("copy"), upload)
        .unwrap();
    assert_eq!((copy.datagrams, copy.duration_ms), (2, 100));
    assert_eq!(copy.ended, Some(RecordingEnd::Uploaded));
    let mut again = store.begin_recording_upload().unwrap();
    again.write(&bytes).unwrap();
    assert!(matches!(
        store.finish_recording_upload(&site, &recording("night"), again),
        Err(netcfg_store::StoreError::Conflict { .. })
    ));
    assert_eq!(store.recordings(&site, &[]).unwrap().len(), 2);
    assert_eq!(store.recordings_size().unwrap(), 2 * finished.size);

    store.delete_recording(&site, &recording("copy")).unwrap();
    assert!(matches!(
        store.recording(&site, &recording("copy")),
        Err(netcfg_store::StoreError::NotFound { .. })
    ));
}
