//! Test helpers: a real mosquitto per test, a mosquitto_sub subscriber, and
//! the plans and events the tests send.

#![allow(dead_code, reason = "each test file uses a part of these helpers")]

use std::{
    io::{BufRead, BufReader},
    net::{TcpListener, TcpStream},
    process::{Child, Command, Stdio},
    sync::{Arc, mpsc},
    time::{Duration, Instant},
};

use netcfg_model::{
    BatchMs, ConfigName, ItemName, Output, OutputEventKind, OutputPlan, OutputSecrets,
    OutputStatus, Qos, RateHz, SerialNumber, TopicPrefix,
    event::{PositionEntry, ZoneEvent, ZoneHappening},
};
use netcfg_outputs::{OutputEvent, Outputs};

/// How long any wait may take before the test fails (generous: the
/// machine is shared).
pub(crate) const DEADLINE: Duration = Duration::from_secs(30);

/// A free loopback port (bound then released).
pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Polls `check` until it holds, or panics with `what` after [`DEADLINE`].
pub(crate) fn wait_until(what: &str, mut check: impl FnMut() -> bool) {
    let end = Instant::now() + DEADLINE;
    while !check() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A mosquitto on a loopback port of its own, killed on drop.
pub(crate) struct Broker {
    pub(crate) port: u16,
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl Broker {
    /// Starts one; `persist` keeps sessions across a restart.
    pub(crate) fn start(persist: bool) -> Self {
        let dir = tempfile::tempdir().unwrap();
        // Run as root, mosquitto drops to its own user: it must be able to
        // write its database here.
        std::fs::set_permissions(
            dir.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o777),
        )
        .unwrap();
        let port = free_port();
        let mut config = format!("listener {port} 127.0.0.1\nallow_anonymous true\n");
        if persist {
            config += &format!(
                "persistence true\npersistence_location {}/\nautosave_interval 1\n",
                dir.path().display()
            );
        } else {
            config += "persistence false\n";
        }
        std::fs::write(dir.path().join("mosquitto.conf"), config).unwrap();
        let mut broker = Self {
            port,
            dir,
            child: None,
        };
        broker.launch();
        broker
    }

    fn launch(&mut self) {
        let child = Command::new("/usr/sbin/mosquitto")
            .arg("-c")
            .arg(self.dir.path().join("mosquitto.conf"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("mosquitto is installed");
        self.child = Some(child);
        let port = self.port;
        wait_until("mosquitto to listen", || {
            TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
    }

    /// Stops it cleanly (SIGTERM: it saves its sessions) and waits for it.
    pub(crate) fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let status = Command::new("kill")
                .arg("-TERM")
                .arg(child.id().to_string())
                .status()
                .unwrap();
            assert!(status.success());
            child.wait().unwrap();
        }
    }

    /// Starts it again on the same port.
    pub(crate) fn restart(&mut self) {
        self.stop();
        self.launch();
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

/// One message a subscriber received.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    pub(crate) topic: String,
    pub(crate) payload: String,
    pub(crate) qos: u8,
    pub(crate) retained: bool,
}

impl Received {
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.payload)
            .unwrap_or_else(|e| panic!("{:?} is not JSON: {e}", self.payload))
    }
}

/// `mosquitto_sub` on `netcfg/#`, its messages read by a thread.
pub(crate) struct Subscriber {
    child: Child,
    messages: mpsc::Receiver<Received>,
    /// What arrived while probing, not yet returned.
    early: std::cell::RefCell<std::collections::VecDeque<Received>>,
}

impl Subscriber {
    /// Subscribes to `filter` (and `probe/#`) and returns once the
    /// subscription is known to work: a probe published after it arrives.
    pub(crate) fn start(port: u16, filter: &str, extra: &[&str]) -> Self {
        let mut child = Command::new("mosquitto_sub")
            .args(["-h", "127.0.0.1", "-p", &port.to_string(), "-q", "1"])
            .args(["-t", filter, "-t", "probe/#", "-F", "%j"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("mosquitto_sub is installed");
        let stdout = child.stdout.take().unwrap();
        let (sender, messages) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let received = parse_line(&line);
                if sender.send(received).is_err() {
                    break;
                }
            }
        });
        let subscriber = Self {
            child,
            messages,
            early: Default::default(),
        };
        subscriber.probe(port);
        subscriber
    }

    /// Publishes probes until one comes back (the subscription is live).
    pub(crate) fn probe(&self, port: u16) {
        let end = Instant::now() + DEADLINE;
        loop {
            let tag = format!("{:?}", Instant::now());
            publish(port, "probe/ready", &tag);
            let until = Instant::now() + Duration::from_millis(500);
            while let Some(remaining) = until.checked_duration_since(Instant::now()) {
                match self.messages.recv_timeout(remaining) {
                    Ok(m) if m.topic == "probe/ready" && m.payload == tag => return,
                    Ok(m) if m.topic.starts_with("probe/") => {}
                    Ok(m) => self.early.borrow_mut().push_back(m),
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => panic!("mosquitto_sub exited"),
                }
            }
            assert!(Instant::now() < end, "the subscriber never got its probe");
        }
    }

    /// The next message that is not a probe, within [`DEADLINE`].
    pub(crate) fn next(&self) -> Received {
        if let Some(early) = self.early.borrow_mut().pop_front() {
            return early;
        }
        let end = Instant::now() + DEADLINE;
        loop {
            let remaining = end
                .checked_duration_since(Instant::now())
                .expect("timed out waiting for a message");
            match self.messages.recv_timeout(remaining) {
                Ok(m) if m.topic.starts_with("probe/") => {}
                Ok(m) => return m,
                Err(error) => panic!("no message: {error}"),
            }
        }
    }

    /// The next message on `topic`, skipping others.
    pub(crate) fn next_on(&self, topic: &str) -> Received {
        loop {
            let m = self.next();
            if m.topic == topic {
                return m;
            }
        }
    }

    /// Whatever arrived (without waiting), probes left out.
    pub(crate) fn drain(&self) -> Vec<Received> {
        let early: Vec<_> = self.early.borrow_mut().drain(..).collect();
        early
            .into_iter()
            .chain(self.messages.try_iter())
            .filter(|m| !m.topic.starts_with("probe/"))
            .collect()
    }
}

impl Drop for Subscriber {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Publishes one message with mosquitto_pub.
pub(crate) fn publish(port: u16, topic: &str, payload: &str) {
    let status = Command::new("mosquitto_pub")
        .args(["-h", "127.0.0.1", "-p", &port.to_string(), "-q", "1"])
        .args(["-t", topic, "-m", payload])
        .status()
        .unwrap();
    assert!(status.success(), "mosquitto_pub failed");
}

/// The retained message on `topic`, read by a fresh subscriber (`None` if
/// there is none).
pub(crate) fn retained(port: u16, topic: &str) -> Option<Received> {
    let output = Command::new("mosquitto_sub")
        .args(["-h", "127.0.0.1", "-p", &port.to_string(), "-q", "1"])
        .args([
            "-t",
            topic,
            "-F",
            "%j",
            "--retained-only",
            "-C",
            "1",
            "-W",
            "3",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    let line = text.lines().next()?;
    Some(parse_line(line))
}

/// One line of `mosquitto_sub -F %j`.
fn parse_line(line: &str) -> Received {
    let value: serde_json::Value = serde_json::from_str(line).unwrap();
    Received {
        topic: value["topic"].as_str().unwrap().to_owned(),
        payload: value["payload"].as_str().unwrap_or_default().to_owned(),
        qos: value["qos"].as_u64().unwrap() as u8,
        retained: value["retain"].as_u64() == Some(1),
    }
}

pub(crate) fn net(name: &str) -> ConfigName {
    name.parse().unwrap()
}

pub(crate) fn item(name: &str) -> ItemName {
    name.parse().unwrap()
}

/// An MQTT output to `port` carrying every kind.
pub(crate) fn mqtt_plan(name: &str, port: u16) -> OutputPlan {
    OutputPlan {
        output: Output {
            name: item(name),
            url: format!("mqtt://127.0.0.1:{port}").parse().unwrap(),
            events: OutputEventKind::ALL.to_vec(),
            enabled: true,
            topic_prefix: Some(TopicPrefix::default_prefix()),
            qos: Some(Qos::AT_MOST_ONCE),
            max_rate_hz: RateHz::try_from(0.0).unwrap(),
            batch_ms: BatchMs::try_from(0).unwrap(),
            ca_file: None,
            username_set: false,
            password_set: false,
            secret_set: false,
        },
        secrets: OutputSecrets::default(),
    }
}

pub(crate) fn positions(network_time: u64, tags: &[(u32, i32)]) -> OutputEvent {
    OutputEvent::Positions {
        time_ms: 1_700_000_000_000 + network_time / 975,
        positions: tags
            .iter()
            .map(|(serial, x)| PositionEntry {
                serial_number: SerialNumber::from_u32(*serial),
                x: *x,
                y: 2,
                z: 3,
                quality: 9000,
                error_mm: 40,
                network_time,
                vx: None,
                vy: None,
            })
            .collect::<Vec<_>>()
            .into(),
    }
}

pub(crate) fn zone(net: &str, zone: &str, x: i32) -> OutputEvent {
    OutputEvent::Zone(Arc::new(ZoneEvent {
        net: net.to_owned(),
        zone: zone.to_owned(),
        serial_number: SerialNumber::from_u32(0x0123_4567),
        event: ZoneHappening::Enter,
        x,
        y: 0,
        z: 0,
        network_time: 1,
        time_ms: 2,
    }))
}

/// The status of `net`'s `output`, which must exist.
pub(crate) fn status(outputs: &Outputs, net_name: &str, output: &str) -> OutputStatus {
    outputs
        .status(&net(net_name), &item(output))
        .expect("the output ran")
}
