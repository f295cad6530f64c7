//! The outside tools the tasks run, installed when missing: from Debian
//! with apt-get (which needs root; otherwise the error says what to run),
//! from PyPI with pip. `cargo xtask ci` installs them all first.

use std::{path::Path, process::Command};

use anyhow::{Context, Result, bail};

/// Where Debian's package puts the browser.
pub(crate) const CHROMIUM: &str = "/usr/bin/chromium";
/// Where Debian's chromium-driver puts the WebDriver that Selenium drives.
pub(crate) const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// The front end's end-to-end tests: Selenium drives Chromium, pytest runs
/// the tests (see ../shared/tooling.md).
const SELENIUM: &str = "selenium==4.51.0";
const PYTEST: &str = "pytest==9.2.0";
/// The schemathesis the contract checks were written against (see
/// ../shared/tooling.md).
const SCHEMATHESIS: &str = "schemathesis==4.32.5";
/// The vendor's decoder of the CDP data streams, which tests use to read
/// what the engine sends.
const CDP: &str = "cdp-py==1.8.1";
/// The Prometheus project's Python client, whose parser reads `/metrics`
/// in the server's tests.
const PROMETHEUS_CLIENT: &str = "prometheus-client==0.26.0";
/// The Eclipse Paho MQTT client, the outputs' tests' subscriber (see
/// ../shared/tooling.md).
const PAHO_MQTT: &str = "paho-mqtt==2.1.0";
/// A pcap reader of its own (not ours), with tcpdump, for the recordings'
/// tests.
const DPKT: &str = "dpkt==1.9.8";
/// Where Debian's mosquitto package puts the broker.
pub(crate) const MOSQUITTO: &str = "/usr/sbin/mosquitto";

/// Everything the steps of `cargo xtask ci` run. sqlite3 only deepens the
/// crash check (it runs without it and says so), so it cannot fail this.
pub(crate) fn install_for_ci() -> Result<()> {
    chromium()?;
    browser_tests()?;
    schemathesis()?;
    cdp()?;
    prometheus_client()?;
    mqtt()?;
    pcap()?;
    if let Err(why) = sqlite3() {
        eprintln!("tools: {why:#} (the crash check will skip its sqlite3 checks)");
    }
    Ok(())
}

/// Headless Chromium (the browser check).
pub(crate) fn chromium() -> Result<()> {
    apt("chromium", || Path::new(CHROMIUM).exists())
}

/// What the front end's tests need beside Chromium: its WebDriver,
/// Selenium and pytest.
pub(crate) fn browser_tests() -> Result<()> {
    apt("chromium-driver", || Path::new(CHROMEDRIVER).exists())?;
    pip(SELENIUM, || python_has("selenium", version_of(SELENIUM)))?;
    pip(PYTEST, || python_has("pytest", version_of(PYTEST)))
}

/// wrk (the benchmarks' load generator).
pub(crate) fn wrk() -> Result<()> {
    apt("wrk", || {
        Command::new("wrk")
            .arg("--version")
            .output()
            .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).contains("wrk"))
    })
}

/// The sqlite3 command line (the crash check's integrity checks).
pub(crate) fn sqlite3() -> Result<()> {
    apt("sqlite3", || {
        succeeds(Command::new("sqlite3").arg("-version"))
    })
}

/// schemathesis, the pinned version.
pub(crate) fn schemathesis() -> Result<()> {
    pip(SCHEMATHESIS, || {
        Command::new("schemathesis")
            .arg("--version")
            .output()
            .is_ok_and(|output| {
                String::from_utf8_lossy(&output.stdout).contains(version_of(SCHEMATHESIS))
            })
    })
}

/// cdp-py, the data streams' decoder.
pub(crate) fn cdp() -> Result<()> {
    pip(CDP, || {
        succeeds(Command::new("python3").args(["-c", "import cdp"]))
    })
}

/// prometheus-client, the metrics' parser.
pub(crate) fn prometheus_client() -> Result<()> {
    pip(PROMETHEUS_CLIENT, || {
        python_has("prometheus-client", version_of(PROMETHEUS_CLIENT))
    })
}

/// A real MQTT broker and clients for the outputs' tests: mosquitto (with
/// mosquitto_sub and mosquitto_pub) and paho-mqtt.
pub(crate) fn mqtt() -> Result<()> {
    apt("mosquitto", || Path::new(MOSQUITTO).exists())?;
    apt("mosquitto-clients", || {
        succeeds(Command::new("mosquitto_sub").arg("--help"))
            || Path::new("/usr/bin/mosquitto_sub").exists()
    })?;
    pip(PAHO_MQTT, || python_has("paho-mqtt", version_of(PAHO_MQTT)))
}

/// What reads the recordings in their tests: tcpdump and dpkt.
pub(crate) fn pcap() -> Result<()> {
    apt("tcpdump", || Path::new("/usr/bin/tcpdump").exists())?;
    pip(DPKT, || python_has("dpkt", version_of(DPKT)))
}

/// True when python3 has the distribution `name` at `version`.
fn python_has(name: &str, version: &str) -> bool {
    succeeds(Command::new("python3").args([
        "-c",
        "import sys; from importlib.metadata import version; sys.exit(version(sys.argv[1]) != sys.argv[2])",
        name,
        version,
    ]))
}

fn version_of(spec: &str) -> &str {
    spec.split_once("==").map_or(spec, |(_, version)| version)
}

fn succeeds(command: &mut Command) -> bool {
    command.output().is_ok_and(|output| output.status.success())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|output| String::from_utf8_lossy(&output.stdout).trim() == "0")
}

/// Installs Debian's `package` unless `present`; as root only.
fn apt(package: &str, present: impl Fn() -> bool) -> Result<()> {
    if present() {
        return Ok(());
    }
    let command = format!("apt-get install -y {package}");
    if !is_root() {
        bail!("{package} is missing: install it with `sudo {command}`");
    }
    eprintln!("tools: {package} is missing; running `{command}`");
    let apt_get = |args: &[&str]| {
        succeeds(
            Command::new("apt-get")
                .args(args)
                .env("DEBIAN_FRONTEND", "noninteractive"),
        )
    };
    // A fresh machine may have no package lists yet.
    let _installed = apt_get(&["install", "-y", "-q", package])
        || (apt_get(&["update", "-q"]) && apt_get(&["install", "-y", "-q", package]));
    if !present() {
        bail!("`{command}` did not install {package}");
    }
    Ok(())
}

/// Installs `spec` from PyPI unless `present`.
fn pip(spec: &str, present: impl Fn() -> bool) -> Result<()> {
    if present() {
        return Ok(());
    }
    eprintln!("tools: installing {spec} from PyPI");
    let status = Command::new("python3")
        .args(["-m", "pip", "install", "--quiet", spec])
        .status()
        .context("could not run pip")?;
    if !status.success() || !present() {
        bail!("`python3 -m pip install {spec}` did not install it");
    }
    Ok(())
}
