//! The real server binary, started on a free port of the loopback
//! interface, timed to its first answer, measured through /proc, stopped
//! with SIGTERM.

use std::{
    fs,
    net::TcpListener,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};

use crate::{server::Client, workspace_root};

/// The environment variable that makes the server serve the baseline route
/// (bins/netcfg-http/src/baseline.rs).
pub(crate) const BASELINE_VARIABLE: &str = "NETCFG_BENCH_BASELINE";

/// A running server; stopped when dropped.
pub(crate) struct Server {
    child: Child,
    pub(crate) port: u16,
    /// From spawn to the first 2xx answer to `GET /nets`.
    pub(crate) startup: Duration,
}

/// What the server is started with.
pub(crate) struct Launch<'a> {
    pub(crate) data_dir: &'a Path,
    pub(crate) baseline: Option<&'a Path>,
    pub(crate) log: PathBuf,
}

fn binary() -> PathBuf {
    workspace_root().join("target/release/netcfg-http")
}

fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

impl Server {
    /// Spawns the release binary and waits for its first answer.
    pub(crate) fn start(launch: &Launch<'_>) -> Result<Self> {
        let port = free_port()?;
        let log = fs::File::create(&launch.log)
            .with_context(|| format!("could not create {}", launch.log.display()))?;
        let mut command = Command::new(binary());
        command
            .args([
                "--bind",
                "127.0.0.1",
                "--port",
                &port.to_string(),
                "--data-dir",
            ])
            .arg(launch.data_dir)
            .env("RUST_LOG", "warn")
            .env_remove(BASELINE_VARIABLE)
            .stdout(Stdio::null())
            .stderr(log);
        if let Some(baseline) = launch.baseline {
            command.env(BASELINE_VARIABLE, baseline);
        }
        let spawned = Instant::now();
        let child = command
            .spawn()
            .with_context(|| format!("could not start {}", binary().display()))?;
        let mut server = Self {
            child,
            port,
            startup: Duration::ZERO,
        };
        server.startup = server.first_answer(spawned)?;
        Ok(server)
    }

    /// Polls `GET /nets` (which lists every configuration) until it answers.
    fn first_answer(&mut self, spawned: Instant) -> Result<Duration> {
        let deadline = spawned + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait()? {
                bail!("the server exited at start with {status} (see its log in target/bench/)");
            }
            if let Ok(answer) = Client::new(self.port).send("GET", "/nets", None)
                && answer.status == 200
            {
                return Ok(spawned.elapsed());
            }
            thread::sleep(Duration::from_millis(2));
        }
        bail!(
            "the server did not answer on port {} within 60 s",
            self.port
        )
    }

    /// The process id, for /proc.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident memory now, in kB (VmRSS).
    pub(crate) fn rss_kb(&self) -> Result<u64> {
        rss_kb(self.pid())
    }

    /// Samples the resident memory every 50 ms until the sampler is dropped.
    pub(crate) fn sample_rss(&self) -> RssSampler {
        RssSampler::start(self.pid())
    }

    /// Stops the server with SIGTERM (it drains and closes its files), and
    /// kills it if it has not exited within 20 s.
    pub(crate) fn stop(mut self) -> Result<()> {
        let _ = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if self.child.try_wait()?.is_some() {
                return Ok(());
            }
            thread::sleep(Duration::from_millis(20));
        }
        bail!("the server did not stop within 20 s of SIGTERM")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// VmRSS of a process, in kB.
fn rss_kb(pid: u32) -> Result<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status"))
        .with_context(|| format!("could not read /proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.split_whitespace().next())
        .and_then(|kb| kb.parse().ok())
        .context("no VmRSS line in /proc/<pid>/status")
}

/// The highest resident memory seen while it lives.
pub(crate) struct RssSampler {
    running: Arc<AtomicBool>,
    peak_kb: Arc<AtomicU64>,
    thread: Option<thread::JoinHandle<()>>,
}

impl RssSampler {
    fn start(pid: u32) -> Self {
        let running = Arc::new(AtomicBool::new(true));
        let peak_kb = Arc::new(AtomicU64::new(0));
        let thread = thread::spawn({
            let (running, peak_kb) = (running.clone(), peak_kb.clone());
            move || {
                while running.load(Ordering::Relaxed) {
                    if let Ok(kb) = rss_kb(pid) {
                        peak_kb.fetch_max(kb, Ordering::Relaxed);
                    }
                    thread::sleep(Duration::from_millis(50));
                }
            }
        });
        Self {
            running,
            peak_kb,
            thread: Some(thread),
        }
    }

    /// Stops sampling; the peak in kB.
    pub(crate) fn finish(mut self) -> u64 {
        self.stop_thread();
        self.peak_kb.load(Ordering::Relaxed)
    }

    fn stop_thread(&mut self) {
        self.running.store(false, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for RssSampler {
    fn drop(&mut self) {
        self.stop_thread();
    }
}
