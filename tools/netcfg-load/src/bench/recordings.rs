//! Recordings and replays (issue 29): what recording costs the server, the
//! disk a recorded position takes, whether a replay at ten times sends the
//! recorded positions in their order in a tenth of the time, and what an
//! upload costs the server's memory; on the real server.
//!
//! 1. **Cost**: [`NETS`] configurations of [`events::TAGS`] tags at 10 Hz
//!    on the simulator (33,000 positions a second); the server's CPU
//!    without recordings, then with one recording on each configuration,
//!    [`ROUNDS`] times alternately in one run, so that whatever else the
//!    machine does weighs on both alike: the difference is their cost.
//! 2. **Disk**: those recordings, downloaded and read here (pcap.rs: the
//!    harness reads the files itself, not with the server's code): their
//!    bytes over the PositionV3 items in them.
//! 3. **Replay**: with the others stopped, one configuration recorded for
//!    [`REPLAY_SECONDS`] and stopped; a configuration
//!    `replay:<net>/<recording>?speed=10` started, paused at 0, a
//!    recording of it started (the replay's own datagrams), resumed; the
//!    wall time until its state says `finished` (polled every
//!    [`POLL`]) over a tenth of the recording's duration, and the
//!    PositionV3 items of both recordings compared field by field.
//! 4. **Upload**: with nothing running, a capture of [`UPLOAD_BYTES`] made
//!    of the replayed recording's records repeated (later pass after
//!    pass), sent with one PUT as it is made; the server's peak resident
//!    memory during it over its memory before: `VmHWM` after resetting it
//!    (`clear_refs`, root), and `VmRSS` sampled every 10 ms.
//!
//! Figures are printed beside their goals; nothing is enforced.

mod pcap;

use std::{
    io::{BufRead, BufReader, Write},
    net::TcpStream,
    path::Path,
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail, ensure};

use super::{events, met, net_action, outputs, report, rules, step};
use crate::server::{self, Client, Launch, RssSampler, Server, Value};

/// Configurations running at once in the cost rounds.
const NETS: usize = 10;
/// Rounds of the cost comparison (without recordings, then with).
const ROUNDS: usize = 3;
/// How long the replayed recording lasts in the reported run.
const REPLAY_SECONDS: u64 = 60;
/// A shorter recording to replay, for quick tries (not a reported
/// figure). Not `NETCFG_...`: the server reads those as its settings, and
/// refuses unknown ones.
const REPLAY_VARIABLE: &str = "BENCH_REPLAY_SECONDS";
/// The replay's speed.
const SPEED: u32 = 10;
/// The replaying configuration.
const REPLAY_NET: &str = "replay";
/// How often the replay's state is read while it plays.
const POLL: Duration = Duration::from_millis(20);
/// The length of the uploaded capture (its last whole record within).
const UPLOAD_BYTES: u64 = 64 << 20;
/// Left to the server before its memory is read: jemalloc gives freed
/// pages back within a second.
const SETTLE: Duration = Duration::from_secs(2);
/// Goals: recording's cost in cores, bytes a position, the upload's
/// memory in MiB.
const GOAL_CORES: f64 = 0.05;
const GOAL_BYTES: f64 = 64.0;
const GOAL_UPLOAD_MIB: f64 = 16.0;

/// Part 1.
#[derive(Debug, Default)]
struct Cost {
    /// Positions a second of all the configurations (`/metrics`).
    positions_per_second: f64,
    /// Server cores without recordings and with, each round.
    rounds: Vec<(f64, f64)>,
    /// The recordings made: their configuration and their last state.
    recordings: Vec<(String, Value)>,
}

/// Part 2.
#[derive(Debug, Default)]
struct Disk {
    files: usize,
    bytes: u64,
    datagrams: u64,
    positions: u64,
    /// The recordings' durations added up.
    recorded_ms: u64,
}

/// Part 3.
#[derive(Debug)]
struct Replay {
    source_ms: u64,
    /// From the resume to the first state read that said `finished`.
    elapsed: Duration,
    /// First to last datagram of the recording of the replay.
    echo_ms: u64,
    recorded: usize,
    played: usize,
    /// The first position where the two differ.
    difference: Option<usize>,
    /// The recording replayed, as downloaded (part 4 repeats it).
    file: Vec<u8>,
}

/// Part 4.
#[derive(Debug)]
struct Upload {
    bytes: u64,
    records: usize,
    seconds: f64,
    /// What the server counted of it.
    datagrams: u64,
    before_kib: u64,
    /// `VmHWM` after the upload, when it could be reset before.
    hwm_kib: Option<u64>,
    sampled_peak_kib: u64,
    after_kib: u64,
}

pub(crate) fn measure(binary: &Path, dir: &Path, seconds: u32) -> Result<()> {
    let replay_seconds =
        super::shortened_seconds(REPLAY_VARIABLE, REPLAY_SECONDS, "recordings: a replay")?;
    let launch = Launch::new(
        binary,
        &dir.join("recordings"),
        &dir.join("server-recordings.log"),
    );
    step(&format!(
        "recordings: {NETS} configurations of {} tags at 10 Hz on the simulator",
        events::TAGS
    ));
    let server = launch.start()?;
    let client = server.client();
    let nets = rules::start_sites(&server, "recorded", NETS)?;
    thread::sleep(Duration::from_secs(3));
    let cost = cost(&server, &nets, seconds)?;
    step(&format!(
        "recordings: reading the {} recordings",
        cost.recordings.len()
    ));
    let disk = disk(&client, &cost.recordings)?;
    for net in &nets[1..] {
        net_action(&client, net, "stop")?;
    }
    let replay = replay(&client, &nets[0], replay_seconds)?;
    let upload = upload(&server, &nets[0], &replay.file)?;
    drop(client);
    server.stop()?;
    print(&cost, &disk, &replay, &upload);
    Ok(())
}

/// Starts a recording of `net` with `body`; its state.
fn start_recording(client: &Client, net: &str, body: &str) -> Result<Value> {
    client
        .expect_ok("POST", &format!("/nets/{net}/recordings"), Some(body))?
        .payload("recording")
}

/// Stops an active recording; its last state.
fn stop_recording(client: &Client, net: &str, name: &str) -> Result<Value> {
    let path = format!("/nets/{net}/recordings/{name}");
    let response = client.expect_ok("DELETE", &path, None)?;
    ensure!(
        response.status == 200,
        "DELETE {path} answered {}: the recording was not active",
        response.status
    );
    response.payload("recording")
}

fn recording(client: &Client, net: &str, name: &str) -> Result<Value> {
    client
        .expect_ok("GET", &format!("/nets/{net}/recordings/{name}"), None)?
        .payload("recording")
}

fn download(client: &Client, net: &str, name: &str) -> Result<Vec<u8>> {
    Ok(client
        .expect_ok(
            "GET",
            &format!("/nets/{net}/recordings/{name}/download"),
            None,
        )?
        .body)
}

fn number(value: &Value, field: &str) -> Result<u64> {
    value[field]
        .as_u64()
        .with_context(|| format!("no `{field}` in {value}"))
}

/// Part 1: the rounds without and with recordings.
fn cost(server: &Server, nets: &[String], seconds: u32) -> Result<Cost> {
    let client = server.client();
    let (started, produced) = (Instant::now(), outputs::positions_produced(&client)?);
    let mut cost = Cost::default();
    for round in 1..=ROUNDS {
        step(&format!("recordings: round {round}, no recording"));
        let without = rules::server_cores(server, seconds)?;
        step(&format!(
            "recordings: round {round}, a recording of each configuration"
        ));
        let name = format!("round{round}");
        for net in nets {
            start_recording(&client, net, &format!(r#"{{"name": "{name}"}}"#))?;
        }
        let with = rules::server_cores(server, seconds)?;
        for net in nets {
            let stopped = stop_recording(&client, net, &name)?;
            cost.recordings.push((net.clone(), stopped));
        }
        eprintln!("    server CPU {without:.3} cores without recordings, {with:.3} with");
        cost.rounds.push((without, with));
    }
    let produced = outputs::positions_produced(&client)?.saturating_sub(produced);
    cost.positions_per_second = produced as f64 / started.elapsed().as_secs_f64();
    Ok(cost)
}

/// Part 2: the recordings' bytes and what they hold.
fn disk(client: &Client, recordings: &[(String, Value)]) -> Result<Disk> {
    let mut disk = Disk::default();
    for (net, recording) in recordings {
        let name = recording["name"].as_str().context("a recording's name")?;
        let file = download(client, net, name)?;
        let (size, datagrams) = (number(recording, "size")?, number(recording, "datagrams")?);
        let contents =
            pcap::contents(&file).with_context(|| format!("recording {name} of {net}"))?;
        // What the server says of its file and what is in it must agree, or
        // the figure would be of something else.
        ensure!(
            file.len() as u64 == size && contents.datagrams == datagrams,
            "recording {name} of {net}: {} bytes and {} datagrams downloaded, {recording} listed",
            file.len(),
            contents.datagrams
        );
        disk.files += 1;
        disk.bytes += size;
        disk.datagrams += datagrams;
        disk.positions += contents.positions.len() as u64;
        disk.recorded_ms += number(recording, "duration_ms")?;
    }
    Ok(disk)
}

/// Polls a recording until it has ended (within `timeout`).
fn wait_ended(client: &Client, net: &str, name: &str, timeout: Duration) -> Result<Value> {
    let deadline = Instant::now() + timeout;
    loop {
        let now = recording(client, net, name)?;
        if now["active"] == false {
            return Ok(now);
        }
        if Instant::now() > deadline {
            bail!("recording {name} of {net} still active after {timeout:?}: {now}");
        }
        thread::sleep(Duration::from_millis(200));
    }
}

fn control_replay(client: &Client, body: &str) -> Result<Value> {
    client
        .expect_ok("PATCH", &format!("/nets/{REPLAY_NET}/replay"), Some(body))?
        .payload("replay")
}

/// Reads the replay's state every [`POLL`] until it says `finished`; the
/// time since `resumed` then.
fn wait_finished(client: &Client, resumed: Instant, timeout: Duration) -> Result<Duration> {
    loop {
        let state = client
            .expect_ok("GET", &format!("/nets/{REPLAY_NET}/replay"), None)?
            .payload("replay")?;
        if state["finished"] == true {
            return Ok(resumed.elapsed());
        }
        if resumed.elapsed() > timeout {
            bail!("the replay had not finished after {timeout:?}: {state}");
        }
        thread::sleep(POLL);
    }
}

/// Records `net` for `seconds` as `source`, then stops it; the
/// recording's duration in ms.
fn record_source(client: &Client, net: &str, seconds: u64) -> Result<u64> {
    step(&format!("recordings: recording {net} for {seconds} s"));
    start_recording(
        client,
        net,
        &format!(r#"{{"name": "source", "duration_s": {seconds}}}"#),
    )?;
    let source = wait_ended(client, net, "source", Duration::from_secs(seconds + 30))?;
    net_action(client, net, "stop")?;
    number(&source, "duration_ms")
}

/// Part 3: `net` recorded for `seconds`, replayed at ten times.
fn replay(client: &Client, net: &str, seconds: u64) -> Result<Replay> {
    let source_ms = record_source(client, net, seconds)?;
    step(&format!("recordings: replaying it at {SPEED} times"));
    client.expect_ok(
        "POST",
        "/nets",
        Some(&format!(
            r#"{{"name": "{REPLAY_NET}", "instance": "replay:{net}/source?speed={SPEED}"}}"#
        )),
    )?;
    net_action(client, REPLAY_NET, "start")?;
    control_replay(client, r#"{"paused": true, "position_ms": 0}"#)?;
    start_recording(client, REPLAY_NET, r#"{"name": "echo"}"#)?;
    let resumed = Instant::now();
    control_replay(client, r#"{"paused": false}"#)?;
    let timeout = Duration::from_millis(source_ms / u64::from(SPEED) * 5) + Duration::from_secs(30);
    let elapsed = wait_finished(client, resumed, timeout)?;
    let echo = stop_recording(client, REPLAY_NET, "echo")?;
    net_action(client, REPLAY_NET, "stop")?;

    let file = download(client, net, "source")?;
    let recorded = pcap::contents(&file).context("the replayed recording")?;
    let played =
        pcap::contents(&download(client, REPLAY_NET, "echo")?).context("the replay's recording")?;
    Ok(Replay {
        source_ms,
        elapsed,
        echo_ms: number(&echo, "duration_ms")?,
        recorded: recorded.positions.len(),
        played: played.positions.len(),
        difference: pcap::first_difference(&recorded.positions, &played.positions),
        file,
    })
}

/// Part 4: a capture of [`UPLOAD_BYTES`] made of `source`'s records,
/// uploaded to `net`, the server's memory watched.
fn upload(server: &Server, net: &str, source: &[u8]) -> Result<Upload> {
    let records = pcap::records(source)?;
    let capture = pcap::Repeated::new(&records, UPLOAD_BYTES)?;
    let (bytes, count) = (capture.len(), capture.records());
    step(&format!(
        "recordings: uploading a capture of {:.1} MiB ({count} records)",
        bytes as f64 / 1_048_576.0
    ));
    thread::sleep(SETTLE);
    let pid = server.pid();
    let before_kib = server::rss_kib(pid)?;
    let reset = server::reset_peak_rss(pid);
    if let Err(error) = &reset {
        eprintln!("    {error:#}: the peak is VmRSS sampled every 10 ms only");
    }
    let sampler = RssSampler::every(pid, Duration::from_millis(10));
    let started = Instant::now();
    let path = format!("/nets/{net}/recordings/upload");
    let (status, answer) = put_streaming(server.port(), &path, bytes, capture)?;
    let seconds = started.elapsed().as_secs_f64();
    let sampled_peak_kib = sampler.finish();
    let hwm_kib = match reset {
        Ok(()) => Some(server::peak_rss_kib(pid)?),
        Err(_) => None,
    };
    ensure!(status == 201, "PUT {path} answered {status}: {answer}");
    let uploaded = recording(&server.client(), net, "upload")?;
    ensure!(
        number(&uploaded, "size")? == bytes,
        "{bytes} bytes sent, {uploaded} stored"
    );
    Ok(Upload {
        bytes,
        records: count,
        seconds,
        datagrams: number(&uploaded, "datagrams")?,
        before_kib,
        hwm_kib,
        sampled_peak_kib,
        after_kib: server::rss_kib(pid)?,
    })
}

/// A PUT of a pcap of `length` bytes, sent piece by piece as `pieces` makes
/// them (the client's `Client` takes whole bodies); the answer's status
/// and body.
fn put_streaming(
    port: u16,
    path: &str,
    length: u64,
    pieces: impl Iterator<Item = Vec<u8>>,
) -> Result<(u16, String)> {
    let mut socket = TcpStream::connect(("127.0.0.1", port)).context("the upload's connection")?;
    socket.set_read_timeout(Some(Duration::from_secs(60)))?;
    write!(
        socket,
        "PUT {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/vnd.tcpdump.pcap\r\nContent-Length: {length}\r\n\r\n"
    )?;
    for piece in pieces {
        // A refusal may come (and the connection close) before the end:
        // its answer says more than the failed write.
        if socket.write_all(&piece).is_err() {
            break;
        }
    }
    read_answer(&mut BufReader::new(socket)).with_context(|| format!("the answer to PUT {path}"))
}

/// The status and body of an HTTP/1.1 answer with a `Content-Length`.
fn read_answer(reader: &mut impl BufRead) -> Result<(u16, String)> {
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|status| status.parse().ok())
        .with_context(|| format!("no status in {line:?}"))?;
    let mut length = 0;
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().context("a Content-Length")?;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok((status, String::from_utf8_lossy(&body).into_owned()))
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1_024.0
}

fn print(cost: &Cost, disk: &Disk, replay: &Replay, upload: &Upload) {
    println!("bench: recordings and replays (issue 29)");
    print_cost(cost);
    print_disk(disk);
    print_replay(replay);
    print_upload(upload);
}

fn print_cost(cost: &Cost) {
    let list = |values: Vec<String>| values.join(", ");
    println!(
        "  {NETS} configurations of {} tags at 10 Hz: {:.0} positions a second (/metrics, over the rounds)",
        events::TAGS,
        cost.positions_per_second
    );
    println!(
        "  server cores without recordings, each round: {}",
        list(
            cost.rounds
                .iter()
                .map(|(without, _)| format!("{without:.3}"))
                .collect()
        )
    );
    println!(
        "  server cores with a recording of each configuration, each round: {}",
        list(
            cost.rounds
                .iter()
                .map(|(_, with)| format!("{with:.3}"))
                .collect()
        )
    );
    let extra: Vec<f64> = cost
        .rounds
        .iter()
        .map(|(without, with)| with - without)
        .collect();
    let median = report::median(&extra);
    println!(
        "  their cost, each round: {}; median {median:+.3} cores (goal: at most +{GOAL_CORES:.3}: {})",
        list(extra.iter().map(|extra| format!("{extra:+.3}")).collect()),
        met(median <= GOAL_CORES)
    );
}

fn print_disk(disk: &Disk) {
    let per_position = disk.bytes as f64 / disk.positions.max(1) as f64;
    println!(
        "  on disk: {per_position:.1} bytes a position (goal: at most {GOAL_BYTES:.0}: {}): {} bytes in {} recordings holding {} positions",
        met(per_position <= GOAL_BYTES),
        disk.bytes,
        disk.files,
        disk.positions
    );
    println!(
        "    {} datagrams: {:.1} positions and {:.0} bytes a datagram; {:.0} positions a second of recording, a configuration",
        disk.datagrams,
        disk.positions as f64 / disk.datagrams.max(1) as f64,
        disk.bytes as f64 / disk.datagrams.max(1) as f64,
        disk.positions as f64 / (disk.recorded_ms.max(1) as f64 / 1_000.0)
    );
}

fn print_replay(replay: &Replay) {
    let tenth = replay.source_ms as f64 / f64::from(SPEED) / 1_000.0;
    let ratio = replay.elapsed.as_secs_f64() / tenth;
    println!(
        "  replay at {SPEED} times of a recording of {:.3} s: finished after {:.3} s, {ratio:.3} times its duration ÷ {SPEED} ({tenth:.3} s; goal: about 1, taken as 0.9 to 1.1: {}); the recording of the replay spans {:.3} s",
        replay.source_ms as f64 / 1_000.0,
        replay.elapsed.as_secs_f64(),
        met((0.9..=1.1).contains(&ratio)),
        replay.echo_ms as f64 / 1_000.0
    );
    match replay.difference {
        None => println!(
            "    positions (serial, network time, x, y, z; goal: the same in the same order: met): the same {} in the same order",
            replay.recorded
        ),
        Some(index) => println!(
            "    positions (goal: the same in the same order: NOT met): {} recorded, {} played, the first difference at position {index}",
            replay.recorded, replay.played
        ),
    }
}

fn print_upload(upload: &Upload) {
    let hwm = upload
        .hwm_kib
        .map(|hwm| hwm.saturating_sub(upload.before_kib));
    let sampled = upload.sampled_peak_kib.saturating_sub(upload.before_kib);
    let growth = mib(hwm.unwrap_or(sampled).max(sampled));
    println!(
        "  upload of a capture of {:.1} MiB ({} records, one streamed PUT) in {:.2} s: {:.1} MiB/s; the server counted {} datagrams",
        upload.bytes as f64 / 1_048_576.0,
        upload.records,
        upload.seconds,
        upload.bytes as f64 / 1_048_576.0 / upload.seconds,
        upload.datagrams
    );
    println!(
        "    the server's resident memory: {:.1} MiB before, peak {growth:+.1} MiB (goal: under +{GOAL_UPLOAD_MIB:.0}: {}; VmHWM after clear_refs {}, VmRSS every 10 ms {:+.1}), {:.1} MiB after",
        mib(upload.before_kib),
        met(growth < GOAL_UPLOAD_MIB),
        hwm.map_or_else(
            || "unavailable".to_owned(),
            |hwm| format!("{:+.1}", mib(hwm))
        ),
        mib(sampled),
        mib(upload.after_kib)
    );
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::server::fake;

    #[test]
    fn reads_answers_with_and_without_a_body() {
        let cases: [(&str, Option<(u16, &str)>); 4] = [
            (
                "HTTP/1.1 201 Created\r\ncontent-length: 13\r\n\r\n{\"a\": \"b c\"}\n",
                Some((201, "{\"a\": \"b c\"}\n")),
            ),
            (
                "HTTP/1.1 204 No Content\r\nDate: x\r\n\r\n",
                Some((204, "")),
            ),
            ("garbage\r\n\r\n", None),
            ("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", None),
        ];
        for (answer, expected) in cases {
            let read = read_answer(&mut answer.as_bytes()).ok();
            assert_eq!(
                read.as_ref().map(|(status, body)| (*status, body.as_str())),
                expected,
                "{answer:?}"
            );
        }
    }

    #[test]
    fn a_streamed_put_sends_every_piece_in_order() {
        let received = Arc::new(Mutex::new(Vec::new()));
        let port = fake::serve({
            let received = Arc::clone(&received);
            move |method, path, body| {
                received
                    .lock()
                    .unwrap()
                    .push((method.to_owned(), path.to_owned(), body.to_vec()));
                (201, r#"{"recording": {}}"#.to_owned())
            }
        });
        let pieces: Vec<Vec<u8>> = (0u8..50).map(|piece| vec![piece; 10_000]).collect();
        let all = pieces.concat();
        let answer = put_streaming(
            port,
            "/nets/a/recordings/b",
            all.len() as u64,
            pieces.into_iter(),
        )
        .unwrap();
        assert_eq!(answer, (201, r#"{"recording": {}}"#.to_owned()));
        let received = received.lock().unwrap();
        assert_eq!(received.len(), 1);
        assert_eq!(
            (received[0].0.as_str(), received[0].1.as_str()),
            ("PUT", "/nets/a/recordings/b")
        );
        assert!(received[0].2 == all, "the body arrives whole and in order");
    }
}
