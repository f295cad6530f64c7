//! `cargo xtask crash [--kills N] [--threads T]` (`netcfg-load crash`): durable writes under load
//! against the real server, SIGKILL at random moments (N times, default
//! 20), restart on the same data directory, and after every restart:
//! - every acknowledged write is there (GET), and a write whose answer never
//!   came is either there or not, never half there;
//! - every saved-state file, as the kill left it (copied with its WAL),
//!   passes SQLite's `PRAGMA integrity_check` (the `sqlite3` command line;
//!   installed with apt-get when root and missing, else skipped and said);
//! - every configuration downloaded passes `integrity_check` too, and the
//!   server's own upload check (which runs it) accepts it under a new name;
//! - a recording runs through every kill and uploads are sent while the
//!   kills come: every capture whole, every upload whole or absent
//!   (crash/capture.rs).
//!
//! `NETCFG_CRASH_SEED` replays the kill moments and the workers' choices
//! (not the exact interleaving, which the scheduler decides).

pub(crate) mod capture;
mod people;
mod tracker;

use std::{
    path::{Path, PathBuf},
    process::Command,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU16, AtomicUsize, Ordering},
    },
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};
use clap::builder::RangedU64ValueParser;

use self::tracker::{Expect, Tracker, Verdict};
use crate::{
    server::{self, Client, Launch, Profile, Rng, Value, object},
    tools,
};

const NETS: [&str; 2] = ["crash-a", "crash-b"];
/// Setting keys per worker, created before the first kill.
const KEYS_PER_WORKER: u64 = 3;

/// What the main thread and the workers share.
#[derive(Debug)]
struct Control {
    port: AtomicU16,
    pause: AtomicBool,
    parked: AtomicUsize,
    stop: AtomicBool,
}

impl Control {
    /// A client of the server now running, with the run's admin token.
    fn client(&self) -> Client {
        Client::new(self.port.load(Ordering::SeqCst)).with_bearer(people::TOKEN)
    }

    /// Runs `work` again and again until the run stops, with a client of
    /// the server now running; while the main thread kills and checks it
    /// parks (counted in `parked`) until the pause ends.
    fn run_until_stopped(&self, mut work: impl FnMut(&Client)) {
        let mut client = self.client();
        while !self.stop.load(Ordering::SeqCst) {
            if !self.pause.load(Ordering::SeqCst) {
                work(&client);
                continue;
            }
            self.parked.fetch_add(1, Ordering::SeqCst);
            while self.pause.load(Ordering::SeqCst) && !self.stop.load(Ordering::SeqCst) {
                thread::sleep(Duration::from_millis(1));
            }
            self.parked.fetch_sub(1, Ordering::SeqCst);
            client.set_port(self.port.load(Ordering::SeqCst));
        }
    }
}

fn lock(tracker: &Mutex<Tracker>) -> std::sync::MutexGuard<'_, Tracker> {
    crate::sync::lock(tracker)
}

/// Writer threads by default.
pub const THREADS: usize = 4;

/// `cargo xtask crash`'s options (and `netcfg-load crash`'s).
#[derive(Debug, Clone, clap::Args)]
pub struct Options {
    /// SIGKILLs under load
    #[arg(long, default_value_t = 20)]
    pub kills: u32,
    /// Writer threads (1 to 15)
    #[arg(long, default_value_t = THREADS, value_parser = RangedU64ValueParser::<usize>::new().range(1..=15))]
    pub threads: usize,
}

impl Options {
    /// The options spelt out as the command line reads them.
    pub(crate) fn to_args(&self) -> Vec<String> {
        vec![
            "--kills".to_owned(),
            self.kills.to_string(),
            "--threads".to_owned(),
            self.threads.to_string(),
        ]
    }
}

pub(crate) fn crash(options: &Options) -> Result<()> {
    let Options { kills, threads } = *options;
    let seed = match std::env::var("NETCFG_CRASH_SEED") {
        Ok(seed) => seed.parse().context("NETCFG_CRASH_SEED: a number")?,
        Err(_) => Rng::seed_from_clock(),
    };
    println!(
        "crash: {kills} kills, {threads} writers, seed {seed} (NETCFG_CRASH_SEED={seed} replays it)"
    );
    let mut rng = Rng::new(seed);
    let sqlite3 = sqlite3_available();
    if let Err(why) = &sqlite3 {
        println!("crash: sqlite3 checks skipped: {why}");
    }
    let binary = server::build(Profile::Debug)?;
    let scratch = server::scratch_dir("crash")?;
    let (data, log, checks) = (
        scratch.join("data"),
        scratch.join("server.log"),
        scratch.join("check"),
    );
    std::fs::create_dir_all(&checks)?;
    let launch = Launch::new(&binary, &data, &log).config(&server::admin_token_settings(
        &scratch,
        people::TOKEN,
        "crash",
    )?);
    let mut server = launch.start()?;
    let mut client = Client::new(server.port()).with_bearer(people::TOKEN);
    setup(&mut client, threads)?;
    people::setup(&client, threads)?;
    let sources = capture::setup(&client)?;

    let Writers {
        control,
        trackers,
        mut handles,
    } = start_writers(threads, server.port(), &mut rng);
    let uploads = Arc::new(Mutex::new(capture::Uploads::default()));
    handles.push({
        let (control, uploads, sources) = (control.clone(), uploads.clone(), sources.clone());
        thread::spawn(move || capture::upload_until_stopped(&control, &sources, &uploads))
    });

    let mut report = Report::default();
    let started = Instant::now();
    for round in 1..=kills {
        control.pause.store(false, Ordering::SeqCst);
        thread::sleep(Duration::from_millis(rng.range(20, 700).unsigned_abs()));
        server.kill()?;
        control.pause.store(true, Ordering::SeqCst);
        wait_parked(&control, threads + 1)?;
        if let Ok(sqlite3) = &sqlite3 {
            report.files_checked +=
                check_files_on_disk(sqlite3, &data, &checks, &mut report.problems)?;
        }
        if round % 4 == 0 {
            // Now and then a kill while the server opens its files.
            let early = launch.spawn()?;
            thread::sleep(Duration::from_millis(rng.range(0, 80).unsigned_abs()));
            early.kill()?;
            report.startup_kills += 1;
        }
        server = launch
            .start()
            .with_context(|| format!("the server did not restart after kill {round}"))?;
        control.port.store(server.port(), Ordering::SeqCst);
        client.set_port(server.port());
        verify(&mut client, &trackers, &mut report)?;
        people::verify(&client, &trackers, &mut report)?;
        capture::verify(&client, &sources, &uploads, round, &mut report)?;
        check_downloads(
            &mut client,
            sqlite3.as_ref().ok(),
            &checks,
            round,
            &mut report,
        )?;
        println!(
            "crash: kill {round}/{kills}: {} acknowledged writes so far, {} problems",
            trackers.iter().map(|t| lock(t).acknowledged).sum::<u64>(),
            report.problems.len()
        );
    }
    control.stop.store(true, Ordering::SeqCst);
    for handle in handles {
        handle
            .join()
            .map_err(|_| anyhow::anyhow!("a writer panicked"))?;
    }
    drop(server);
    for tracker in &trackers {
        report.problems.extend(
            lock(tracker)
                .refused
                .iter()
                .map(|refusal| format!("refused: {refusal}")),
        );
    }
    let writes = [
        trackers.iter().map(|t| lock(t).acknowledged).sum(),
        trackers.iter().map(|t| lock(t).unanswered).sum(),
    ];
    report.print(seed, kills, started.elapsed(), writes, &sqlite3);
    if !report.problems.is_empty() {
        bail!("crash failed: {} problems", report.problems.len());
    }
    println!("crash: passed");
    Ok(())
}

/// The writer threads, and what they share with the main thread.
struct Writers {
    /// What steers them.
    control: Arc<Control>,
    /// What each acknowledged.
    trackers: Vec<Arc<Mutex<Tracker>>>,
    handles: Vec<thread::JoinHandle<()>>,
}

/// Starts `threads` writers, paused, against the server at `port`.
fn start_writers(threads: usize, port: u16, rng: &mut Rng) -> Writers {
    let control = Arc::new(Control {
        port: AtomicU16::new(port),
        pause: AtomicBool::new(true),
        parked: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
    });
    let trackers: Vec<Arc<Mutex<Tracker>>> = (0..threads)
        .map(|worker| Arc::new(Mutex::new(initial_tracker(worker))))
        .collect();
    let handles = trackers
        .iter()
        .enumerate()
        .map(|(id, tracker)| {
            let (control, tracker, rng) = (control.clone(), tracker.clone(), rng.fork());
            thread::spawn(move || write_until_stopped(id, rng, &control, &tracker))
        })
        .collect();
    Writers {
        control,
        trackers,
        handles,
    }
}

#[derive(Debug, Default)]
struct Report {
    problems: Vec<String>,
    items_checked: u64,
    acknowledged: u64,
    landed: u64,
    absent: u64,
    files_checked: u64,
    downloads_checked: u64,
    uploads_accepted: u64,
    startup_kills: u64,
    keys_tried: u64,
    uploads_checked: u64,
    recordings_checked: u64,
    records_found: u64,
}

impl Report {
    /// The summary; `writes`: the writes acknowledged, and those whose
    /// answer never came.
    fn print(
        &self,
        seed: u64,
        kills: u32,
        elapsed: Duration,
        writes: [u64; 2],
        sqlite3: &Result<String, String>,
    ) {
        let [acknowledged, unanswered] = writes;
        println!("crash summary (seed {seed})");
        println!(
            "  kills             {kills} under load, {} during start-up, {:.1} s",
            self.startup_kills,
            elapsed.as_secs_f64()
        );
        println!(
            "  writes            {acknowledged} acknowledged, {unanswered} unanswered (in flight or refused at a kill)"
        );
        println!(
            "  after restarts    {} items checked: {} as acknowledged, {} unanswered writes landed, {} absent",
            self.items_checked, self.acknowledged, self.landed, self.absent
        );
        match sqlite3 {
            Ok(_) => println!(
                "  integrity_check   {} files as the kill left them, {} downloads: all ok unless listed",
                self.files_checked, self.downloads_checked
            ),
            Err(why) => {
                println!(
                    "  integrity_check   sqlite3 skipped ({why}); the server's upload check only"
                )
            }
        }
        println!(
            "  upload check      {} downloads accepted by POST /nets/upload",
            self.uploads_accepted
        );
        println!(
            "  people            users and keys among the items; {} keys acknowledged before a kill authenticated after it",
            self.keys_tried
        );
        println!(
            "  recordings        {} cut by a kill, each whole ({} records); {} uploads (configurations, captures) whole or absent",
            self.recordings_checked, self.records_found, self.uploads_checked
        );
        println!("  problems          {}", self.problems.len());
        for problem in &self.problems {
            println!("    {problem}");
        }
    }
}

fn setting_key(worker: usize, k: u64) -> String {
    format!("crash_w{worker}_{k}")
}

/// The configurations, and each worker's setting keys at value 0.
fn setup(client: &mut Client, threads: usize) -> Result<()> {
    for net in NETS {
        let body = object([("name", Value::from(net)), ("instance", Value::from("sim"))]);
        expect(
            client.send("POST", "/nets", Some(&body))?,
            201,
            "POST /nets",
        )?;
        let keys = (0..threads)
            .flat_map(|w| (0..KEYS_PER_WORKER).map(move |k| (setting_key(w, k), Value::from(0))));
        let body = object(keys);
        expect(
            client.send("POST", &format!("/nets/{net}/settings"), Some(&body))?,
            200,
            "POST settings",
        )?;
    }
    Ok(())
}

fn initial_tracker(worker: usize) -> Tracker {
    let mut tracker = Tracker::default();
    people::initial(worker, &mut tracker);
    for net in NETS {
        for k in 0..KEYS_PER_WORKER {
            tracker.settings.insert(
                (net.to_owned(), setting_key(worker, k)),
                Expect {
                    acked: Some(Value::from(0)),
                    unanswered: Vec::new(),
                },
            );
        }
    }
    tracker
}

fn expect(response: server::Response, status: u16, what: &str) -> Result<server::Response> {
    if response.status != status {
        bail!("{what}: {} {}", response.status, response.text());
    }
    Ok(response)
}

fn wait_parked(control: &Control, threads: usize) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(60);
    while control.parked.load(Ordering::SeqCst) < threads {
        if Instant::now() > deadline {
            bail!("the writers did not stop within 60 s of a kill");
        }
        thread::sleep(Duration::from_millis(2));
    }
    Ok(())
}

/// A worker: device creations, device changes, setting changes, its
/// user's changes and keys, each recorded before it is sent and marked
/// acknowledged on a 2xx.
fn write_until_stopped(id: usize, mut rng: Rng, control: &Control, tracker: &Mutex<Tracker>) {
    let mut counter = 0u32;
    control.run_until_stopped(|client| {
        counter += 1;
        let net = (*rng.pick(&NETS).unwrap_or(&NETS[0])).to_owned();
        let (kind, key, method, path, body, sent) = match rng.below(12) {
            0..=3 => {
                let serial = new_serial(id, counter);
                let device = device(&serial, &mut rng, counter);
                let path = format!("/nets/{net}/devices");
                ("device", serial, "POST", path, device.clone(), device)
            }
            4..=6 => {
                let known: Vec<String> = lock(tracker)
                    .devices
                    .iter()
                    .filter(|((place, _), expect)| *place == net && expect.acked.is_some())
                    .map(|((_, serial), _)| serial.clone())
                    .collect();
                let Some(serial) = rng.pick(&known).cloned() else {
                    return;
                };
                let device = device(&serial, &mut rng, counter);
                let path = format!("/nets/{net}/devices/{serial}");
                ("device", serial, "PATCH", path, device.clone(), device)
            }
            10 | 11 => people::write(id, counter, rng.below(2) == 0),
            _ => {
                let key = setting_key(id, rng.below(KEYS_PER_WORKER));
                let value = Value::from(i64::from(counter));
                let body = object([(key.clone(), value.clone())]);
                let path = format!("/nets/{net}/settings");
                ("setting", key, "PATCH", path, body, value)
            }
        };
        let place = if matches!(kind, "user" | "key") {
            (people::PLACE.to_owned(), key)
        } else {
            (net, key)
        };
        {
            let mut tracker = lock(tracker);
            items_of(&mut tracker, kind)
                .entry(place.clone())
                .or_default()
                .unanswered
                .push(sent.clone());
        }
        let answered = client.send(method, &path, Some(&body));
        let mut tracker = lock(tracker);
        match answered {
            Ok(response) if (200..300).contains(&response.status) => {
                tracker.acknowledged += 1;
                if kind == "key"
                    && let Some(secret) = response
                        .payload("api_key")
                        .ok()
                        .and_then(|key| key.get("key")?.as_str().map(str::to_owned))
                {
                    tracker.fresh_keys.push(secret);
                }
                let expect = items_of(&mut tracker, kind).entry(place).or_default();
                expect.acked = Some(sent);
                expect.unanswered.clear();
            }
            Ok(response) => {
                tracker.refused.push(format!(
                    "{method} {path} {body}: {} {}",
                    response.status,
                    response.text()
                ));
                tracker.unanswered += 1;
            }
            Err(_) => {
                // No answer (the kill): the write may or may not be there.
                tracker.unanswered += 1;
                drop(tracker);
                thread::sleep(Duration::from_millis(2));
            }
        }
    });
}

/// The items a write of `kind` changes.
fn items_of<'t>(
    tracker: &'t mut Tracker,
    kind: &str,
) -> &'t mut std::collections::BTreeMap<tracker::Place, tracker::Expect> {
    match kind {
        "device" => &mut tracker.devices,
        "user" | "key" => &mut tracker.people,
        _ => &mut tracker.settings,
    }
}

/// The serial number of writer `id`'s `counter`th write when it adds a
/// device: a writer's own, none it made in its first 4,194,304 writes (22
/// bits; a 500-kill run makes about 70,000 per writer). The counter's low 16
/// bits are the last two bytes and its next six bits the middle byte
/// (`C0` to `FF`): with the write path as fast as it became, a writer of
/// the 500-kill run passed 65,536 writes, and a serial made of the low 16
/// bits alone came back and was refused as taken.
fn new_serial(id: usize, counter: u32) -> String {
    format!(
        "{:02X}:{:02X}:{:04X}",
        id,
        0xC0 | ((counter >> 16) & 0x3F),
        counter & 0xFFFF
    )
}

fn device(serial: &str, rng: &mut Rng, counter: u32) -> Value {
    object([
        ("serial_number", Value::from(serial)),
        (
            "interfaces",
            Value::Array(vec![object([
                ("identifier", Value::from(0)),
                ("role_id", Value::from(4)),
            ])]),
        ),
        ("disabled", Value::from(rng.chance(30))),
        ("name", Value::from(format!("write {counter}"))),
    ])
}

/// Every item every worker wrote, against what the restarted server holds.
fn verify(
    client: &mut Client,
    trackers: &[Arc<Mutex<Tracker>>],
    report: &mut Report,
) -> Result<()> {
    for net in NETS {
        let devices = expect(
            client.send("GET", &format!("/nets/{net}/devices"), None)?,
            200,
            "GET devices",
        )?
        .payload("devices")?;
        let devices: std::collections::BTreeMap<String, Value> = devices
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter_map(|device| {
                let serial = device.get("serial_number")?.as_str()?.to_owned();
                let mut device = device.clone();
                device.as_object_mut()?.remove("id");
                // The server answers a name left out as null; the writers always send one.
                Some((serial, device))
            })
            .collect();
        let settings = expect(
            client.send("GET", &format!("/nets/{net}/settings"), None)?,
            200,
            "GET settings",
        )?
        .payload("settings")?;
        let settings: std::collections::BTreeMap<String, Value> = settings
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter_map(|s| {
                Some((
                    s.get("setting_key")?.as_str()?.to_owned(),
                    s.get("value")?.clone(),
                ))
            })
            .collect();
        for tracker in trackers {
            let mut tracker = lock(tracker);
            let tracker = &mut *tracker;
            for (kind, items, found) in [
                ("device", &mut tracker.devices, &devices),
                ("setting", &mut tracker.settings, &settings),
            ] {
                for ((place, key), expect) in
                    items.iter_mut().filter(|((place, _), _)| place == net)
                {
                    report.items_checked += 1;
                    match expect.settle(found.get(key)) {
                        Verdict::Acknowledged => report.acknowledged += 1,
                        Verdict::Landed => report.landed += 1,
                        Verdict::Absent => report.absent += 1,
                        Verdict::Lost(how) => {
                            report.problems.push(format!("{place} {kind} {key}: {how}"))
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// Whether `sqlite3` can be run (installed when root and missing), or why
/// not.
fn sqlite3_available() -> Result<String, String> {
    tools::sqlite3()
        .map(|()| "sqlite3".to_owned())
        .map_err(|why| format!("{why:#}"))
}

/// `PRAGMA integrity_check` of one file: `None` when it says ok.
fn integrity_problem(sqlite3: &str, file: &Path) -> Result<Option<String>> {
    let output = Command::new(sqlite3)
        .arg(file)
        .arg("PRAGMA integrity_check;")
        .output()
        .context("could not run sqlite3")?;
    let said = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if output.status.success() && said == "ok" {
        return Ok(None);
    }
    Ok(Some(format!(
        "{}: integrity_check said {said:?} {}",
        file.display(),
        String::from_utf8_lossy(&output.stderr).trim()
    )))
}

/// Copies each saved-state file with its WAL, as the kill left them, and
/// checks the copy (the original stays for the server's own recovery).
fn check_files_on_disk(
    sqlite3: &str,
    data: &Path,
    checks: &Path,
    problems: &mut Vec<String>,
) -> Result<u64> {
    let mut checked = 0;
    let people = data.join("people");
    let people_files = std::fs::read_dir(&people).into_iter().flatten();
    for entry in std::fs::read_dir(data)?.chain(people_files) {
        let path = entry?.path();
        if path.extension().is_none_or(|ext| ext != "sqlite") {
            continue;
        }
        let name = path
            .file_name()
            .context("a file without a name")?
            .to_owned();
        let copy = checks.join(&name);
        for suffix in ["-wal", "-shm"] {
            let _ = std::fs::remove_file(with_suffix(&copy, suffix));
        }
        std::fs::copy(&path, &copy)?;
        let wal = with_suffix(&path, "-wal");
        if wal.exists() {
            std::fs::copy(&wal, with_suffix(&copy, "-wal"))?;
        }
        if let Some(problem) = integrity_problem(sqlite3, &copy)? {
            problems.push(format!("after a kill, {problem}"));
        }
        checked += 1;
    }
    Ok(checked)
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Downloads each configuration, checks the file with sqlite3, uploads it
/// under a new name (the server's upload runs integrity_check and refuses a
/// damaged file), and deletes that copy again.
fn check_downloads(
    client: &mut Client,
    sqlite3: Option<&String>,
    checks: &Path,
    round: u32,
    report: &mut Report,
) -> Result<()> {
    for net in NETS {
        let file = expect(
            client.send("GET", &format!("/nets/{net}/download"), None)?,
            200,
            "download",
        )?
        .body;
        if let Some(sqlite3) = sqlite3 {
            let path = checks.join(format!("{net}-download.sqlite"));
            std::fs::write(&path, &file)?;
            if let Some(problem) = integrity_problem(sqlite3, &path)? {
                report
                    .problems
                    .push(format!("download of {net} after kill {round}: {problem}"));
            }
            report.downloads_checked += 1;
        }
        let name = format!("{net}-upload-{round}");
        let response = client.upload(&name, &file)?;
        if response.status == 201 {
            report.uploads_accepted += 1;
            expect(
                client.send("DELETE", &format!("/nets/{name}"), None)?,
                204,
                "DELETE the uploaded copy",
            )?;
        } else {
            report.problems.push(format!(
                "the upload of {net}'s download after kill {round} was refused: {} {}",
                response.status,
                response.text()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::server::fake;

    /// A writer's new serial numbers do not come back after 65,536 writes
    /// (the 500-kill run passed that), and keep the server's form.
    #[test]
    fn a_writer_never_makes_the_same_serial_twice() {
        assert_eq!(new_serial(0, 1), "00:C0:0001");
        let serials: std::collections::HashSet<String> =
            (0..200_000).map(|counter| new_serial(3, counter)).collect();
        assert_eq!(serials.len(), 200_000);
        assert_eq!(new_serial(3, 65_537), "03:C1:0001");
        // The server's form: two hex digits, colon, two, colon, four.
        let serial = new_serial(63, u32::MAX);
        assert_eq!(serial, "3F:FF:FFFF");
    }

    #[test]
    fn each_worker_starts_with_its_own_keys_acknowledged_at_zero() {
        let tracker = initial_tracker(2);
        assert_eq!(
            tracker.settings.len(),
            NETS.len() * usize::try_from(KEYS_PER_WORKER).unwrap()
        );
        let place = ("crash-b".to_owned(), "crash_w2_1".to_owned());
        assert_eq!(tracker.settings[&place].acked, Some(Value::from(0)));
        assert!(tracker.devices.is_empty());
        assert_eq!(
            with_suffix(Path::new("/d/a.sqlite"), "-wal"),
            Path::new("/d/a.sqlite-wal")
        );
        let body = device("01:C0:0001", &mut Rng::new(1), 7);
        assert_eq!(body["serial_number"], "01:C0:0001");
        assert_eq!(body["name"], "write 7");
        assert!(body["disabled"].is_boolean());
    }

    /// After a restart: what each worker wrote, against what the server
    /// answers (the server's `id` of a device is not the worker's).
    #[test]
    fn verification_sorts_every_item_and_reports_lost_writes() {
        let port = fake::serve(|_, path, _| {
            let body = match path {
                "/nets/crash-a/devices" => json!({"devices": [
                    {"id": 17, "serial_number": "00:C0:0001", "name": "write 1"},
                ]}),
                "/nets/crash-a/settings" => json!({"settings": [
                    {"setting_key": "crash_w0_0", "value": 0},
                    {"setting_key": "crash_w0_1", "value": 8},
                ]}),
                "/nets/crash-b/settings" => json!({"settings": [
                    {"setting_key": "crash_w0_0", "value": 0},
                    {"setting_key": "crash_w0_1", "value": 0},
                    {"setting_key": "crash_w0_2", "value": 0},
                ]}),
                _ => json!({"devices": []}),
            };
            (200, body.to_string())
        });
        let mut tracker = initial_tracker(0);
        tracker.devices.insert(
            ("crash-a".to_owned(), "00:C0:0001".to_owned()),
            Expect {
                acked: Some(json!({"serial_number": "00:C0:0001", "name": "write 1"})),
                unanswered: Vec::new(),
            },
        );
        let key = |net: &str, k| (net.to_owned(), setting_key(0, k));
        // An unanswered write that landed, and an acknowledged one lost.
        tracker
            .settings
            .get_mut(&key("crash-a", 1))
            .unwrap()
            .unanswered = vec![Value::from(8)];
        let trackers = [Arc::new(Mutex::new(tracker))];
        let mut report = Report::default();
        verify(&mut Client::new(port), &trackers, &mut report).unwrap();
        assert_eq!(report.items_checked, 7);
        assert_eq!(
            (report.acknowledged, report.landed, report.absent),
            (5, 1, 0)
        );
        assert_eq!(
            report.problems,
            ["crash-a setting crash_w0_2: acknowledged 0, unanswered [], found nothing"]
        );
        // Settled: the write that landed is now the acknowledged value.
        assert_eq!(
            lock(&trackers[0]).settings[&key("crash-a", 1)].acked,
            Some(Value::from(8))
        );
    }
}
