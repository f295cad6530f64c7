//! The real server for the load tasks (`soak`, `crash`): build it, start it
//! on a free loopback port over a data directory, read its memory, kill it;
//! and a tiny HTTP/1.1 client (xtask has no HTTP crate).

mod http;
mod rng;

use std::{
    fs::OpenOptions,
    net::{TcpListener, TcpStream},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};

pub(crate) use serde_json::Value;

pub(crate) use self::{
    http::{Client, Response},
    rng::Rng,
};
use crate::{cargo, workspace_root};

/// Builds the server (debug: the load tasks look for errors, lost writes and
/// leaks, not speed) and returns the binary's path.
pub(crate) fn build() -> Result<PathBuf> {
    cargo(&["build", "--package", "netcfg-http"], &[])?;
    Ok(workspace_root().join("target/debug/netcfg-http"))
}

/// A directory under `target/<task>`, emptied: kept after the run, so a
/// failure can be looked into.
pub(crate) fn scratch_dir(task: &str) -> Result<PathBuf> {
    let dir = workspace_root().join("target").join(task);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)
            .with_context(|| format!("could not empty {}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("could not create {}", dir.display()))?;
    Ok(dir)
}

/// A JSON object from key-value pairs.
pub(crate) fn object<K: Into<String>>(pairs: impl IntoIterator<Item = (K, Value)>) -> Value {
    Value::Object(
        pairs
            .into_iter()
            .map(|(key, value)| (key.into(), value))
            .collect(),
    )
}

fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A running server; dropped, it is killed.
#[derive(Debug)]
pub(crate) struct Server {
    child: Child,
    port: u16,
}

impl Server {
    /// Starts `binary` on a free loopback port over `data_dir`, appending its
    /// log to `log`, and waits until it accepts connections.
    pub(crate) fn start(binary: &Path, data_dir: &Path, log: &Path) -> Result<Server> {
        Server::spawn(binary, data_dir, log)?.wait_until_up()
    }

    /// Starts the server without waiting for it to listen.
    pub(crate) fn spawn(binary: &Path, data_dir: &Path, log: &Path) -> Result<Server> {
        let port = free_port()?;
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .with_context(|| format!("could not open {}", log.display()))?;
        let child = Command::new(binary)
            .args([
                "--bind",
                "127.0.0.1",
                "--port",
                &port.to_string(),
                "--data-dir",
            ])
            .arg(data_dir)
            .env("RUST_LOG", "warn")
            // As the systemd unit runs it (packaging/netcfg.service): one
            // malloc arena, so memory freed by one thread serves them all.
            .env("MALLOC_ARENA_MAX", "1")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .with_context(|| format!("could not start {}", binary.display()))?;
        Ok(Server { child, port })
    }

    fn wait_until_up(mut self) -> Result<Self> {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return Ok(self);
            }
            if let Some(status) = self.child.try_wait()? {
                bail!("the server exited at start with {status} (see its log)");
            }
            thread::sleep(Duration::from_millis(20));
        }
        bail!(
            "the server did not listen on port {} within 30 s",
            self.port
        )
    }

    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident memory in KiB (`VmRSS` of `/proc/<pid>/status`).
    pub(crate) fn rss_kib(&self) -> Result<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .context("could not read the server's /proc status")?;
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .context("no VmRSS in the server's /proc status")
    }

    /// SIGKILL (what `Child::kill` sends on Unix), then reap it.
    pub(crate) fn kill(mut self) -> Result<()> {
        self.child.kill().context("could not kill the server")?;
        self.child.wait().context("could not reap the server")?;
        Ok(())
    }

    /// Whether the server is still running (it must not die by itself).
    pub(crate) fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
