//! The web front end's figures (issue 15), measured in headless Chromium by
//! `bins/netcfg-http/tests/browser/bench_front_end.py` against the release
//! server: first render of `/`, the devices view of 10,000 devices (render
//! and search), the floor plan following 1,000 tags at 10 Hz (frame times).
//! The script prints each figure beside its goal and writes every sample to
//! `target/bench/front_end.json`.

use std::{
    path::Path,
    process::{Command, Stdio},
};

use anyhow::{Context, Result, ensure};

use crate::workspace;

/// The script, from the workspace's root.
const SCRIPT: &str = "bins/netcfg-http/tests/browser/bench_front_end.py";

/// Runs the script with `binary`; its figures go to standard output.
pub(crate) fn measure(binary: &Path, dir: &Path, seconds: u32) -> Result<()> {
    super::step("front end: first render, 10,000 devices, 1,000 tags on the floor plan");
    let status = Command::new("python3")
        .arg(workspace::root().join(SCRIPT))
        .arg("--binary")
        .arg(binary)
        .arg("--seconds")
        .arg(seconds.max(10).to_string())
        .arg("--json")
        .arg(dir.join("front_end.json"))
        .env_remove("DEV_UI_DIR")
        .stdin(Stdio::null())
        .status()
        .context("running python3 with the front end's bench")?;
    ensure!(
        status.success(),
        "the front end's bench could not run ({status})"
    );
    Ok(())
}
