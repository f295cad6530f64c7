//! The one server launcher of the tasks that run the real server (the
//! harnesses here, and xtask's schemathesis, browser and dist): build it,
//! start it on a free loopback port over a data directory (optionally with
//! the bench's baseline route), wait for its first answer, read its memory,
//! stop it with SIGTERM or kill it; and the one HTTP client they talk to it
//! with.

#[cfg(test)]
pub(crate) mod fake;
mod http;
mod memory;
mod rng;

use std::{
    fs::OpenOptions,
    net::TcpListener,
    path::{Path, PathBuf},
    process::{Child, Command, ExitStatus, Stdio},
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};
pub use serde_json::Value;

pub(crate) use self::rng::Rng;
pub use self::{
    http::{Client, Response},
    memory::{RssSampler, peak_rss_kib, reset_peak_rss, rss_kib},
};
use crate::workspace::{self, cargo};

/// The environment variable that makes the server serve the baseline route
/// (bins/netcfg-http/src/baseline.rs); only the bench sets it.
const BASELINE_VARIABLE: &str = "NETCFG_BENCH_BASELINE";
/// Only a hung server takes this long to answer its first request.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// A JSON object from key-value pairs.
pub fn object<K: Into<String>>(pairs: impl IntoIterator<Item = (K, Value)>) -> Value {
    Value::Object(
        pairs
            .into_iter()
            .map(|(key, value)| (key.into(), value))
            .collect(),
    )
}

/// Which build of the server.
#[derive(Debug, Clone, Copy)]
pub enum Profile {
    /// The load and contract tasks look for errors, lost writes and leaks,
    /// not speed.
    Debug,
    /// The benchmarks measure what users run.
    Release,
}

/// Builds the server and returns the binary's path.
pub fn build(profile: Profile) -> Result<PathBuf> {
    let (args, dir): (&[&str], _) = match profile {
        Profile::Debug => (&["build", "--package", "netcfg-http"], "debug"),
        Profile::Release => (
            &["build", "--release", "--package", "netcfg-http"],
            "release",
        ),
    };
    cargo(args, &[])?;
    Ok(workspace::target_dir()?.join(dir).join("netcfg-http"))
}

/// Writes `scratch/netcfg.toml`, the server's settings with one admin
/// token (`auth.tokens`: access control on) named `name`; its path.
pub fn admin_token_settings(scratch: &Path, token: &str, name: &str) -> Result<PathBuf> {
    let file = scratch.join("netcfg.toml");
    std::fs::write(
        &file,
        format!(
            "[auth]\ntokens = [{{ token = \"{token}\", access = \"admin\", name = \"{name}\" }}]\n"
        ),
    )
    .with_context(|| format!("writing {}", file.display()))?;
    Ok(file)
}

/// A directory under `target/<task>`, emptied: kept after the run, so a
/// failure can be looked into.
pub fn scratch_dir(task: &str) -> Result<PathBuf> {
    let dir = workspace::root().join("target").join(task);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)
            .with_context(|| format!("could not empty {}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("could not create {}", dir.display()))?;
    Ok(dir)
}

fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// What a server is started with.
#[derive(Debug, Clone)]
pub struct Launch {
    binary: PathBuf,
    data_dir: PathBuf,
    log: PathBuf,
    baseline: Option<PathBuf>,
    config: Option<PathBuf>,
}

impl Launch {
    /// `binary` over `data_dir`, its standard error appended to `log`.
    pub fn new(binary: &Path, data_dir: &Path, log: &Path) -> Launch {
        Launch {
            binary: binary.to_owned(),
            data_dir: data_dir.to_owned(),
            log: log.to_owned(),
            baseline: None,
            config: None,
        }
    }

    /// Also read the settings file `file` (`--config`).
    pub fn config(mut self, file: &Path) -> Launch {
        self.config = Some(file.to_owned());
        self
    }

    /// Also serve `GET /_bench/baseline` with the bytes of `file`.
    pub fn baseline(mut self, file: &Path) -> Launch {
        self.baseline = Some(file.to_owned());
        self
    }

    /// Starts the server and waits for its first answer.
    pub fn start(&self) -> Result<Server> {
        let mut server = self.spawn()?;
        server.wait_for_first_answer()?;
        Ok(server)
    }

    /// Starts the server without waiting for it (to kill it while it opens
    /// its files).
    pub fn spawn(&self) -> Result<Server> {
        let port = free_port()?;
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .with_context(|| format!("could not open {}", self.log.display()))?;
        let mut command = Command::new(&self.binary);
        command
            .args([
                "--bind",
                "127.0.0.1",
                "--port",
                &port.to_string(),
                "--data-dir",
            ])
            .arg(&self.data_dir)
            .env("RUST_LOG", "warn")
            // The server's compiled-in allocator options, not the caller's.
            .env_remove("MALLOC_CONF")
            .env_remove(BASELINE_VARIABLE)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log);
        if let Some(baseline) = &self.baseline {
            command.env(BASELINE_VARIABLE, baseline);
        }
        if let Some(config) = &self.config {
            command.arg("--config").arg(config);
        }
        let spawned = Instant::now();
        let child = command
            .spawn()
            .with_context(|| format!("could not start {}", self.binary.display()))?;
        Ok(Server {
            child,
            port,
            spawned,
            startup: Duration::ZERO,
            log: self.log.clone(),
        })
    }
}

/// A running server; dropped, it is killed.
#[derive(Debug)]
pub struct Server {
    child: Child,
    port: u16,
    spawned: Instant,
    /// From spawn to the first 200 (or 401) answer to `GET /nets` (which
    /// lists every configuration), once started.
    pub startup: Duration,
    log: PathBuf,
}

impl Server {
    fn wait_for_first_answer(&mut self) -> Result<()> {
        let client = Client::new(self.port);
        while self.spawned.elapsed() < START_TIMEOUT {
            if let Some(status) = self.child.try_wait()? {
                bail!(
                    "the server exited at start with {status}; its log ({}) ends:\n{}",
                    self.log.display(),
                    self.log_tail()
                );
            }
            // 401: access control is on (a token or a user).
            if client
                .send("GET", "/nets", None)
                .is_ok_and(|answer| answer.status == 200 || answer.status == 401)
            {
                self.startup = self.spawned.elapsed();
                return Ok(());
            }
            thread::sleep(Duration::from_millis(2));
        }
        bail!(
            "the server did not answer on port {} within {START_TIMEOUT:?}; its log ({}) ends:\n{}",
            self.port,
            self.log.display(),
            self.log_tail()
        )
    }

    /// The last lines of the server's log, for an error message.
    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    /// The loopback port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// A new client of this server.
    pub fn client(&self) -> Client {
        Client::new(self.port)
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident memory in KiB (`VmRSS` of `/proc/<pid>/status`).
    pub fn rss_kib(&self) -> Result<u64> {
        rss_kib(self.pid())
    }

    /// Samples the resident memory every 50 ms until the sampler finishes.
    pub fn sample_rss(&self) -> RssSampler {
        RssSampler::start(self.pid())
    }

    /// SIGKILL (what `Child::kill` sends on Unix), then reap it.
    pub fn kill(mut self) -> Result<()> {
        self.child.kill().context("could not kill the server")?;
        self.child.wait().context("could not reap the server")?;
        Ok(())
    }

    /// Stops the server with SIGTERM (it drains and closes its files), and
    /// fails if it has not exited within 20 s.
    pub fn stop(mut self) -> Result<()> {
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

    /// How the server ended, if it did (it must not end by itself).
    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
