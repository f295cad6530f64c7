//! A real MQTT broker (Debian's mosquitto) on a free loopback port, and a
//! real subscriber (Eclipse Paho, `tests/mqtt/subscribe.py`), for the
//! outputs' tests.

use std::{
    io::{BufRead, BufReader},
    net::TcpStream,
    path::PathBuf,
    process::{Child, ChildStdin, Command, Stdio},
    sync::mpsc::{self, Receiver},
    thread,
    time::{Duration, Instant},
};

use serde_json::Value;

use super::{HUNG, free_port};

/// A mosquitto of its own: its port, configuration and persistence in a
/// temporary directory. Stopped (SIGTERM, so it saves its sessions) on drop.
#[derive(Debug)]
pub(crate) struct Broker {
    /// Its loopback port.
    pub(crate) port: u16,
    config: PathBuf,
    child: Option<Child>,
    _dir: tempfile::TempDir,
}

impl Broker {
    /// Starts one; it keeps subscribers' sessions across a restart.
    pub(crate) fn start() -> Self {
        Self::start_with(|port, _| format!("listener {port} 127.0.0.1\nallow_anonymous true\n"))
    }

    /// Starts one that speaks only TLS, with the certificate `pki`'s
    /// authority signed for `localhost` (on every interface, so that
    /// `localhost` reaches it however it resolves), and lets in only
    /// `username` with `password`.
    pub(crate) fn start_secured(pki: &super::pki::Pki, username: &str, password: &str) -> Self {
        Self::start_with(|port, dir| {
            let passwords = dir.join("passwords");
            let made = Command::new("mosquitto_passwd")
                .args(["-b", "-c"])
                .arg(&passwords)
                .args([username, password])
                .status()
                .expect("mosquitto_passwd runs (apt-get install mosquitto)");
            assert!(made.success(), "mosquitto_passwd made no password file");
            std::fs::set_permissions(
                &passwords,
                std::os::unix::fs::PermissionsExt::from_mode(0o644),
            )
            .expect("a readable password file");
            format!(
                "listener {port}\ncafile {}\ncertfile {}\nkeyfile {}\nallow_anonymous false\npassword_file {}\n",
                pki.ca.display(),
                pki.cert.display(),
                pki.key.display(),
                passwords.display()
            )
        })
    }

    /// Starts a site's broker, bridged to `central`: what is published
    /// under `site/#` goes on to it at QoS 1 (`docs/outputs.md`, Past one
    /// machine), queued while the central one is away. `site` names the
    /// bridge's client on the central broker: bridges of one name (by
    /// default the host's) would take each other's place there.
    pub(crate) fn start_bridged(central: &Broker, site: &str) -> Self {
        let central = central.port;
        Self::start_with(|port, _| {
            format!(
                "listener {port} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 100000\n\
                 connection central\naddress 127.0.0.1:{central}\ntopic site/# out 1\n\
                 cleansession false\nrestart_timeout 1\nremote_clientid bridge-{site}\n"
            )
        })
    }

    /// Starts one whose listener `listener` says (given its port and
    /// directory).
    fn start_with(listener: impl FnOnce(u16, &std::path::Path) -> String) -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        // Started as root, mosquitto drops to its own user, which must be
        // able to write its persistence file here.
        std::fs::set_permissions(
            dir.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o777),
        )
        .expect("the broker's directory is writable by all");
        let port = free_port();
        let config = dir.path().join("mosquitto.conf");
        std::fs::write(
            &config,
            format!(
                "{}persistence true\npersistence_location {}/\nlog_dest none\n",
                listener(port, dir.path()),
                dir.path().display()
            ),
        )
        .expect("the broker's configuration is written");
        let mut broker = Self {
            port,
            config,
            child: None,
            _dir: dir,
        };
        broker.run();
        broker
    }

    fn run(&mut self) {
        let child = Command::new("/usr/sbin/mosquitto")
            .arg("-c")
            .arg(&self.config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("mosquitto starts (apt-get install mosquitto)");
        self.child = Some(child);
        let deadline = Instant::now() + HUNG;
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "mosquitto never listened");
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops it (as an outage), saving its sessions.
    pub(crate) fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = Command::new("kill")
                .arg("-TERM")
                .arg(child.id().to_string())
                .status();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port.
    pub(crate) fn restart(&mut self) {
        self.stop();
        self.run();
    }

    /// `mqtt://127.0.0.1:PORT`.
    pub(crate) fn url(&self) -> String {
        format!("mqtt://127.0.0.1:{}", self.port)
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One message the subscriber received.
#[derive(Debug, Clone)]
pub(crate) struct Message {
    pub(crate) topic: String,
    pub(crate) payload: Value,
    pub(crate) retain: bool,
    pub(crate) qos: u64,
}

/// A Paho subscriber with a persistent session, printing what it gets.
#[derive(Debug)]
pub(crate) struct Subscriber {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
}

impl Subscriber {
    /// Subscribes to `topic` at QoS 1 on `broker`, and waits until it is
    /// connected.
    pub(crate) fn start(broker: &Broker, topic: &str, client_id: &str) -> Self {
        Self::start_as(broker, topic, client_id, None)
    }

    /// [`Subscriber::start`] over TLS to `localhost`, trusting `ca`, as
    /// `username` with `password`.
    pub(crate) fn start_secured(
        broker: &Broker,
        topic: &str,
        client_id: &str,
        login: (&std::path::Path, &str, &str),
    ) -> Self {
        Self::start_as(broker, topic, client_id, Some(login))
    }

    fn start_as(
        broker: &Broker,
        topic: &str,
        client_id: &str,
        login: Option<(&std::path::Path, &str, &str)>,
    ) -> Self {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mqtt/subscribe.py");
        let mut command = Command::new("python3");
        if let Some((ca, username, password)) = login {
            command
                .env("MQTT_CAFILE", ca)
                .env("MQTT_USERNAME", username)
                .env("MQTT_PASSWORD", password);
        }
        let host = if login.is_some() {
            "localhost"
        } else {
            "127.0.0.1"
        };
        let mut child = command
            .args([script, host, &broker.port.to_string(), topic, client_id])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 runs the Paho subscriber (pip install paho-mqtt)");
        let stdout = child.stdout.take().expect("its output");
        let (sender, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let Ok(value) = serde_json::from_str(&line) else {
                    continue;
                };
                if sender.send(value).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let subscriber = Self {
            child,
            stdin,
            lines,
        };
        subscriber.wait_connected();
        subscriber
    }

    /// Waits for the next (re)connection.
    pub(crate) fn wait_connected(&self) {
        let deadline = Instant::now() + HUNG;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .expect("the subscriber connects");
            if line["connected"] == true {
                return;
            }
        }
    }

    /// The next message within `wait`, if any.
    pub(crate) fn next_within(&self, wait: Duration) -> Option<Message> {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).ok()?;
            if line.get("topic").is_none() {
                continue;
            }
            let text = line["payload"].as_str().unwrap_or_default();
            return Some(Message {
                topic: line["topic"].as_str().unwrap_or_default().to_owned(),
                payload: serde_json::from_str(text).unwrap_or(Value::String(text.to_owned())),
                retain: line["retain"] == true,
                qos: line["qos"].as_u64().unwrap_or(0),
            });
        }
    }

    /// Reads messages until one matches; returns it and those before it.
    #[track_caller]
    pub(crate) fn until(&self, wanted: impl Fn(&Message) -> bool) -> (Message, Vec<Message>) {
        let mut skipped = Vec::new();
        let deadline = Instant::now() + HUNG;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some(message) = self.next_within(left) else {
                panic!(
                    "no matching message came; the last ones: {:?}",
                    skipped.iter().rev().take(5).collect::<Vec<_>>()
                );
            };
            if wanted(&message) {
                return (message, skipped);
            }
            skipped.push(message);
        }
    }
}

impl Drop for Subscriber {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
