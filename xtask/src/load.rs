//! `cargo xtask bench|soak|crash`: the load harnesses of the crate
//! netcfg-load (tools/netcfg-load). xtask installs the outside tools a run
//! needs (tools.rs), builds the harness's binary in release (so that its own
//! clients, such as the bench's 1,000 event subscribers, are optimised:
//! issue 31) and runs it with the task's options spelt out.

use std::process::{Command, ExitStatus};

use anyhow::{Context, Result, bail};
use netcfg_load::Task;

use crate::{cargo, tools, workspace_root};

/// Runs `task` as the task of `cargo xtask` it is: the harness's exit code
/// is xtask's (it has said why it failed).
pub(crate) fn task(task: Task) -> Result<()> {
    let status = start(&task)?;
    if !status.success() {
        std::process::exit(status.code().unwrap_or(1));
    }
    Ok(())
}

/// Builds the harness (release) ahead of [`run_built`].
pub(crate) fn build() -> Result<()> {
    cargo(&["build", "--release", "--package", "netcfg-load"], &[])
}

/// Runs `task` as a step of a longer run (`ci`), an error when it fails,
/// with the harness [`build`] made before: no cargo, so no wait for
/// cargo's lock on `target/release` while a release build runs beside
/// (`ci`'s background build of the server).
pub(crate) fn run_built(task: &Task) -> Result<()> {
    install_tools(task)?;
    let status = launch(task)?;
    if !status.success() {
        bail!(
            "`netcfg-load {}` failed with {status} (see above)",
            task.to_args().join(" ")
        );
    }
    Ok(())
}

fn start(task: &Task) -> Result<ExitStatus> {
    install_tools(task)?;
    build()?;
    launch(task)
}

fn launch(task: &Task) -> Result<ExitStatus> {
    let binary = netcfg_load::workspace::target_dir()?
        .join("release")
        .join("netcfg-load");
    let args = task.to_args();
    eprintln!("$ {} {}", binary.display(), args.join(" "));
    Command::new(&binary)
        .args(&args)
        .current_dir(workspace_root())
        .status()
        .with_context(|| format!("could not run {}", binary.display()))
}

/// What the harness runs and checks for, but does not install.
fn install_tools(task: &Task) -> Result<()> {
    match task {
        Task::Bench(options) => {
            if options.uses_wrk() {
                tools::wrk()?;
            }
            if options.uses_chromium() {
                tools::chromium()?;
                tools::browser_tests()?;
            }
            if options.uses_mqtt() {
                tools::mqtt()?;
                tools::cdp()?;
            }
        }
        // Optional: without sqlite3 the crash check skips its integrity
        // checks, and says so.
        Task::Crash(_) => {
            let _ = tools::sqlite3();
        }
        Task::Soak(_) => {}
    }
    Ok(())
}
