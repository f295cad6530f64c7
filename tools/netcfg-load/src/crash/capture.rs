//! The crash run's recordings and uploads (issue 50): a running
//! configuration records its data streams through every kill, and an
//! uploader sends saved-state files (`POST /nets/upload`) and captures
//! (`PUT .../recordings/{name}`) while the kills come. After each restart:
//! - every recording the kill cut off is listed as ended, and its download
//!   is a whole capture (a header, then whole records, no record cut) whose
//!   records are as many as its summary's datagrams;
//! - every upload acknowledged is there, whole; one whose answer never came
//!   is there whole or not at all, never half published.
//!
//! Then the configuration is started again with a new recording.

use std::{
    sync::Mutex,
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};

use super::{Control, Report, expect};
use crate::server::{Client, Value, object};

/// The configuration that records.
pub(super) const NET: &str = "crash-rec";

/// What the uploader sent, by name: `Some(true)` acknowledged, `Some(false)`
/// unanswered (a kill came first), and what each upload holds.
#[derive(Debug, Default)]
pub(super) struct Uploads {
    /// Configurations uploaded: name, acknowledged.
    nets: Vec<(String, bool)>,
    /// Captures uploaded to [`NET`]: name, acknowledged.
    captures: Vec<(String, bool)>,
}

/// What the uploader sends: a saved-state file and a capture, with the
/// capture's datagrams.
#[derive(Debug, Clone)]
pub(super) struct Sources {
    net_file: Vec<u8>,
    capture: Vec<u8>,
    capture_datagrams: u64,
}

/// [`NET`]: four anchors and two tags on the simulator, running, with a
/// recording of two seconds whose capture the uploader sends; then a
/// recording that runs until the first kill.
pub(super) fn setup(client: &Client) -> Result<Sources> {
    let body = object([("name", Value::from(NET)), ("instance", Value::from("sim"))]);
    expect(
        client.send("POST", "/nets", Some(&body))?,
        201,
        "POST /nets",
    )?;
    let corners = [(0, 0), (8000, 0), (8000, 6000), (0, 6000)];
    for (index, (x, y)) in corners.into_iter().enumerate() {
        let anchor = serde_json::json!({
            "serial_number": format!("01:04:{:04X}", index + 1), "disabled": false,
            "interfaces": [{"identifier": 0, "role_id": 2, "x": x, "y": y, "z": 2500}]
        });
        expect(
            client.send("POST", &format!("/nets/{NET}/devices"), Some(&anchor))?,
            201,
            "POST an anchor",
        )?;
    }
    for index in 1..=2 {
        let tag = serde_json::json!({
            "serial_number": format!("01:05:{index:04X}"), "disabled": false,
            "interfaces": [{"identifier": 0, "role_id": 4}]
        });
        expect(
            client.send("POST", &format!("/nets/{NET}/devices"), Some(&tag))?,
            201,
            "POST a tag",
        )?;
    }
    start(client, "source", Some(2))?;
    let deadline = Instant::now() + Duration::from_secs(60);
    let summary = loop {
        let summary = expect(
            client.send("GET", &format!("/nets/{NET}/recordings/source"), None)?,
            200,
            "GET the source recording",
        )?
        .payload("recording")?;
        if summary["active"] == false {
            break summary;
        }
        if Instant::now() > deadline {
            bail!("the source recording did not end within a minute");
        }
        thread::sleep(Duration::from_millis(200));
    };
    let capture = download(client, "source")?;
    let capture_datagrams = summary["datagrams"].as_u64().context("datagrams")?;
    if capture_datagrams == 0 {
        bail!("the source recording holds no datagram: {summary}");
    }
    let net_file = expect(
        client.send("GET", &format!("/nets/{NET}/download"), None)?,
        200,
        "download",
    )?
    .body;
    start(client, "rec-0", None)?;
    Ok(Sources {
        net_file,
        capture,
        capture_datagrams,
    })
}

/// Starts [`NET`] (running already is fine) and a recording `name`.
fn start(client: &Client, name: &str, duration_s: Option<u64>) -> Result<()> {
    let action = object([("action", Value::from("start"))]);
    let started = client.send("POST", &format!("/nets/{NET}"), Some(&action))?;
    if !matches!(started.status, 200 | 409) {
        bail!("start {NET}: {} {}", started.status, started.text());
    }
    let mut body = vec![("name", Value::from(name))];
    if let Some(seconds) = duration_s {
        body.push(("duration_s", Value::from(seconds)));
    }
    expect(
        client.send(
            "POST",
            &format!("/nets/{NET}/recordings"),
            Some(&object(body)),
        )?,
        201,
        "start a recording",
    )?;
    Ok(())
}

fn download(client: &Client, name: &str) -> Result<Vec<u8>> {
    Ok(expect(
        client.send(
            "GET",
            &format!("/nets/{NET}/recordings/{name}/download"),
            None,
        )?,
        200,
        "download a recording",
    )?
    .body)
}

/// The uploader: one upload after another, alternately a configuration and
/// a capture, each noted before it is sent and acknowledged on a 201; it
/// parks while the main thread kills and checks.
pub(super) fn upload_until_stopped(control: &Control, sources: &Sources, uploads: &Mutex<Uploads>) {
    let mut counter = 0u32;
    control.run_until_stopped(|client| {
        counter += 1;
        let name = format!("up-{counter}");
        let configuration = counter.is_multiple_of(2);
        let answer = if configuration {
            crate::sync::lock(uploads).nets.push((name.clone(), false));
            client.upload(&name, &sources.net_file)
        } else {
            crate::sync::lock(uploads)
                .captures
                .push((name.clone(), false));
            client.request(
                "PUT",
                &format!("/nets/{NET}/recordings/{name}"),
                Some("application/vnd.tcpdump.pcap"),
                sources.capture.clone(),
            )
        };
        if answer.is_ok_and(|answer| answer.status == 201) {
            let mut uploads = crate::sync::lock(uploads);
            let list = if configuration {
                &mut uploads.nets
            } else {
                &mut uploads.captures
            };
            if let Some(entry) = list.last_mut() {
                entry.1 = true;
            }
        }
    });
}

/// After a restart: the uploads and the recordings cut off (see the
/// module's docs); then [`NET`] records again. Checked uploads are
/// deleted, so the data directory stays small.
pub(super) fn verify(
    client: &Client,
    sources: &Sources,
    uploads: &Mutex<Uploads>,
    round: u32,
    report: &mut Report,
) -> Result<()> {
    let (nets, captures) = {
        let mut uploads = crate::sync::lock(uploads);
        (
            std::mem::take(&mut uploads.nets),
            std::mem::take(&mut uploads.captures),
        )
    };
    for (name, acknowledged) in nets {
        let found = client.send("GET", &format!("/nets/{name}"), None)?.status;
        report.uploads_checked += 1;
        match (found, acknowledged) {
            (200, _) => {
                expect(
                    client.send("DELETE", &format!("/nets/{name}"), None)?,
                    204,
                    "DELETE an upload",
                )?;
            }
            (404, false) => {}
            (status, _) => report.problems.push(format!(
                "after kill {round}: the uploaded configuration {name} (acknowledged: {acknowledged}) answered {status}"
            )),
        }
    }
    for (name, acknowledged) in captures {
        let found = client.send("GET", &format!("/nets/{NET}/recordings/{name}"), None)?;
        report.uploads_checked += 1;
        match (found.status, acknowledged) {
            (200, _) => {
                let datagrams = found.payload("recording")?["datagrams"].as_u64();
                if datagrams != Some(sources.capture_datagrams) {
                    report.problems.push(format!(
                        "after kill {round}: the uploaded capture {name} holds {datagrams:?} datagrams, not {}",
                        sources.capture_datagrams
                    ));
                }
                delete_recording(client, &name)?;
            }
            (404, false) => {}
            (status, _) => report.problems.push(format!(
                "after kill {round}: the uploaded capture {name} (acknowledged: {acknowledged}) answered {status}"
            )),
        }
    }
    check_recordings(client, round, report)?;
    start(client, &format!("rec-{round}"), None)
}

/// Every recording of [`NET`] but the source: ended, and whole.
fn check_recordings(client: &Client, round: u32, report: &mut Report) -> Result<()> {
    let listed = expect(
        client.send("GET", &format!("/nets/{NET}/recordings"), None)?,
        200,
        "GET recordings",
    )?
    .payload("recordings")?;
    for recording in listed.as_array().context("a list of recordings")? {
        let name = recording["name"].as_str().context("a recording's name")?;
        if name == "source" {
            continue;
        }
        report.recordings_checked += 1;
        if recording["active"] != false || recording["ended"].is_null() {
            report.problems.push(format!(
                "after kill {round}: recording {name} is not listed as ended: {recording}"
            ));
        }
        let capture = download(client, name)?;
        match whole_records(&capture) {
            Ok(records) => {
                report.records_found += records;
                if Some(records) != recording["datagrams"].as_u64()
                    || Some(capture.len() as u64) != recording["size"].as_u64()
                {
                    report.problems.push(format!(
                        "after kill {round}: recording {name} has {records} records in {} bytes; its summary says {recording}",
                        capture.len()
                    ));
                }
            }
            Err(why) => report.problems.push(format!(
                "after kill {round}: recording {name} is not a whole capture: {why}"
            )),
        }
        delete_recording(client, name)?;
    }
    Ok(())
}

fn delete_recording(client: &Client, name: &str) -> Result<()> {
    expect(
        client.send("DELETE", &format!("/nets/{NET}/recordings/{name}"), None)?,
        204,
        "DELETE a recording",
    )?;
    Ok(())
}

/// The records of a classic pcap file that ends with a whole record; why
/// not, else.
pub(crate) fn whole_records(capture: &[u8]) -> Result<u64, String> {
    const HEADER: usize = 24;
    const RECORD_HEADER: usize = 16;
    let magic = capture.get(..4).ok_or("shorter than a pcap header")?;
    let little_endian = match magic {
        [0xd4, 0xc3, 0xb2, 0xa1] | [0x4d, 0x3c, 0xb2, 0xa1] => true,
        [0xa1, 0xb2, 0xc3, 0xd4] | [0xa1, 0xb2, 0x3c, 0x4d] => false,
        _ => return Err(format!("not pcap (magic {magic:02x?})")),
    };
    if capture.len() < HEADER {
        return Err("its header is cut".to_owned());
    }
    let (mut at, mut records) = (HEADER, 0);
    while at < capture.len() {
        let header = capture
            .get(at..at + RECORD_HEADER)
            .ok_or_else(|| format!("record {records}'s header is cut"))?;
        let length: [u8; 4] = header[8..12].try_into().map_err(|_| "a record header")?;
        let length = if little_endian {
            u32::from_le_bytes(length)
        } else {
            u32::from_be_bytes(length)
        } as usize;
        at += RECORD_HEADER + length;
        if at > capture.len() {
            return Err(format!("record {records} is cut"));
        }
        records += 1;
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::whole_records;

    #[test]
    fn a_capture_is_whole_only_when_its_last_record_is() {
        let mut capture = vec![0xd4, 0xc3, 0xb2, 0xa1];
        capture.resize(24, 0);
        assert_eq!(whole_records(&capture), Ok(0));
        let mut record = vec![0u8; 16];
        record[8] = 3;
        record.extend_from_slice(&[1, 2, 3]);
        capture.extend_from_slice(&record);
        assert_eq!(whole_records(&capture), Ok(1));
        let mut header_cut = capture.clone();
        header_cut.extend_from_slice(&record[..10]);
        assert_eq!(
            whole_records(&header_cut),
            Err("record 1's header is cut".to_owned())
        );
        capture.extend_from_slice(&record[..17]);
        assert_eq!(whole_records(&capture), Err("record 1 is cut".to_owned()));
        assert!(whole_records(b"PK\x03\x04").is_err());
    }
}
