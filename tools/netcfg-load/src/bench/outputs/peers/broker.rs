//! A mosquitto broker on a free loopback port, with its own configuration
//! file: stopped with SIGTERM (it saves its store first) and started again
//! on the same port, for the outage.

use std::{
    fs,
    net::TcpStream,
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};

use super::{READY_TIMEOUT, append_to, free_port, tail, terminate};

/// Where Debian's mosquitto package puts the broker.
const MOSQUITTO: &str = "/usr/sbin/mosquitto";

/// A mosquitto on a free loopback port, stopped with SIGTERM and started
/// again on the same port with the same configuration.
#[derive(Debug)]
pub(crate) struct Broker {
    child: Option<Child>,
    port: u16,
    config: PathBuf,
    log: PathBuf,
}

impl Broker {
    /// Writes `dir/{name}.conf` and starts the broker. It never drops QoS 0
    /// messages for a subscriber that falls behind (`max_queued_messages
    /// 0`: its default of 1,000 would measure the broker, not netcfg). With
    /// `persistent`, it keeps sessions and retained messages across a
    /// restart in `dir/{name}-store` (mode 0777: run as root, mosquitto
    /// drops to its own user), and queues QoS 0 messages for a persistent
    /// subscriber that is away.
    pub(crate) fn start(dir: &Path, name: &str, persistent: bool) -> Result<Broker> {
        let port = free_port()?;
        let config = dir.join(format!("{name}.conf"));
        let mut text =
            format!("listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 0\n");
        if persistent {
            let store = dir.join(format!("{name}-store"));
            fs::create_dir_all(&store)?;
            fs::set_permissions(&store, fs::Permissions::from_mode(0o777))?;
            text.push_str(&format!(
                "persistence true\npersistence_location {}/\nqueue_qos0_messages true\n",
                store.display()
            ));
        } else {
            text.push_str("persistence false\n");
        }
        fs::write(&config, text)?;
        let mut broker = Broker {
            child: None,
            port,
            config,
            log: dir.join(format!("{name}.log")),
        };
        broker.restart()?;
        Ok(broker)
    }

    /// Starts the broker (again) and waits until it listens.
    pub(crate) fn restart(&mut self) -> Result<()> {
        if self.child.is_some() {
            bail!("the broker runs already");
        }
        let mut child = Command::new(MOSQUITTO)
            .arg("-c")
            .arg(&self.config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(append_to(&self.log)?)
            .spawn()
            .with_context(|| format!("could not start {MOSQUITTO}"))?;
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            if let Some(status) = child.try_wait()? {
                bail!(
                    "mosquitto exited at start with {status}; {} ends:\n{}",
                    self.log.display(),
                    tail(&self.log)
                );
            }
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                break;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                bail!("mosquitto did not listen on {} within 15 s", self.port);
            }
            thread::sleep(Duration::from_millis(10));
        }
        self.child = Some(child);
        Ok(())
    }

    /// Stops it with SIGTERM (it saves its store first when persistent).
    pub(crate) fn stop(&mut self) -> Result<()> {
        match self.child.take() {
            Some(mut child) => terminate(&mut child, "mosquitto"),
            None => Ok(()),
        }
    }

    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// Its process id while it runs.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
