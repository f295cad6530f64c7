//! The outside programs the harnesses run, checked before a run, not
//! installed: `cargo xtask bench|crash` installs them first
//! (xtask/src/tools.rs); run alone, a harness says what to install.

use std::{path::Path, process::Command};

use anyhow::{Result, bail};

/// wrk, the bench's load generator (it prints its version and exits 1).
pub(crate) fn wrk() -> Result<()> {
    require("wrk", runs(Command::new("wrk").arg("--version")), "bench")
}

/// The sqlite3 command line (the crash check's integrity checks).
pub(crate) fn sqlite3() -> Result<()> {
    let found = Command::new("sqlite3")
        .arg("-version")
        .output()
        .is_ok_and(|output| output.status.success());
    require("sqlite3", found, "crash")
}

/// Headless Chromium and its WebDriver (the front end's bench).
pub(crate) fn chromium() -> Result<()> {
    require("chromium", Path::new("/usr/bin/chromium").exists(), "bench")?;
    require(
        "chromium-driver",
        Path::new("/usr/bin/chromedriver").exists(),
        "bench",
    )
}

/// The outputs' bench: the mosquitto broker and its clients (Debian's
/// `mosquitto`, `mosquitto-clients`), and python3 with paho-mqtt and
/// cdp-py (PyPI) for the bridge it compares with.
pub(crate) fn mqtt() -> Result<()> {
    require(
        "mosquitto",
        Path::new("/usr/sbin/mosquitto").exists(),
        "bench",
    )?;
    require(
        "mosquitto-clients",
        runs(Command::new("mosquitto_sub").arg("--help")),
        "bench",
    )?;
    let imports = Command::new("python3")
        .args(["-c", "import cdp, paho.mqtt.client"])
        .output()
        .is_ok_and(|output| output.status.success());
    if !imports {
        bail!(
            "python3 cannot import cdp and paho.mqtt: install them with `pip install cdp-py==1.8.1 paho-mqtt==2.1.0` (`cargo xtask bench` installs them)"
        );
    }
    Ok(())
}

/// Whether the program could be started (whatever it then answered).
fn runs(command: &mut Command) -> bool {
    command.output().is_ok()
}

/// Fails, saying how to install Debian's `package`, unless `found`.
fn require(package: &str, found: bool, task: &str) -> Result<()> {
    if !found {
        bail!(
            "{package} is missing: install it with `sudo apt-get install -y {package}` (`cargo xtask {task}` installs it when run as root)"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_program_is_named_with_its_package() {
        assert!(!runs(&mut Command::new("netcfg-load-no-such-program")));
        assert!(runs(Command::new("cargo").arg("--version")));
        let error = require("wrk", false, "bench").unwrap_err().to_string();
        assert!(
            error.contains("wrk is missing") && error.contains("apt-get install -y wrk"),
            "{error}"
        );
        assert!(require("wrk", true, "bench").is_ok());
    }
}
