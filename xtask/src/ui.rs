//! `cargo xtask ui`: the web front end's own checks (crates/netcfg-ui),
//! neither of them a step of the server's build:
//! 1. `tsc --noEmit -p crates/netcfg-ui/jsconfig.json`: the plain JavaScript
//!    under `ui/`, its JSDoc types and the unit tests, type-checked with
//!    `checkJs` (zero errors allowed);
//! 2. `node --test` on `crates/netcfg-ui/tests/js/*.test.mjs`: the unit
//!    tests of the front end's logic, under node's own runner.
//!
//! TypeScript comes from the npm registry at a pinned version, installed
//! when missing into `target/npm` (`npm install --prefix`), never into the
//! source tree or globally. Node (20 or later) and npm must be on the
//! machine, as they are on CI's.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

use anyhow::{Context, Result, bail};

use crate::workspace_root;

/// The TypeScript the front end's types were written against.
const TYPESCRIPT: &str = "typescript@5.9.3";
/// The front end's crate, from the workspace root.
const CRATE: &str = "crates/netcfg-ui";

/// Type-checks the front end and runs its unit tests.
pub(crate) fn ui() -> Result<()> {
    let root = workspace_root();
    let tsc = typescript(&root)?;
    let config = root.join(CRATE).join("jsconfig.json");
    run(
        Command::new("node")
            .arg(&tsc)
            .arg("--noEmit")
            .arg("-p")
            .arg(&config),
        &root,
    )
    .context("tsc found type errors in the front end (crates/netcfg-ui)")?;
    eprintln!("ui: tsc --noEmit -p {CRATE}/jsconfig.json: no errors");

    let tests = unit_tests(&root.join(CRATE).join("tests/js"))?;
    run(Command::new("node").arg("--test").args(&tests), &root)
        .context("the front end's unit tests failed (node --test)")?;
    eprintln!(
        "ui: {} unit test files passed under node --test",
        tests.len()
    );
    Ok(())
}

/// The path of `tsc` (its script, run with node), installing the pinned
/// TypeScript into `target/npm` first when it is missing or another version.
fn typescript(root: &Path) -> Result<PathBuf> {
    let prefix = root.join("target/npm");
    let tsc = prefix.join("node_modules/typescript/bin/tsc");
    let version = TYPESCRIPT
        .rsplit_once('@')
        .map_or("", |(_, version)| version);
    let installed = || {
        Command::new("node")
            .arg(&tsc)
            .arg("--version")
            .output()
            .is_ok_and(|output| {
                output.status.success()
                    && String::from_utf8_lossy(&output.stdout).trim()
                        == format!("Version {version}")
            })
    };
    if installed() {
        return Ok(tsc);
    }
    std::fs::create_dir_all(&prefix)
        .with_context(|| format!("could not create {}", prefix.display()))?;
    eprintln!("ui: installing {TYPESCRIPT} into {}", prefix.display());
    run(
        Command::new("npm")
            .arg("install")
            .arg("--prefix")
            .arg(&prefix)
            .args(["--no-save", "--no-audit", "--no-fund", "--no-package-lock"])
            .arg(TYPESCRIPT),
        root,
    )
    .context("npm could not install TypeScript (node 20+ and npm must be installed)")?;
    if !installed() {
        bail!(
            "{TYPESCRIPT} was installed, but {} does not run",
            tsc.display()
        );
    }
    Ok(tsc)
}

/// The unit test files, sorted (named one by one: what node's runner does
/// with a directory differs between versions).
fn unit_tests(directory: &Path) -> Result<Vec<PathBuf>> {
    let mut tests = Vec::new();
    for entry in std::fs::read_dir(directory)
        .with_context(|| format!("could not read {}", directory.display()))?
    {
        let path = entry?.path();
        let is_test = path
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.ends_with(".test.mjs") || name.ends_with(".test.js"));
        if is_test {
            tests.push(path);
        }
    }
    tests.sort();
    if tests.is_empty() {
        bail!("no *.test.mjs files in {}", directory.display());
    }
    Ok(tests)
}

/// Runs `command` in `directory`, failing when it cannot start or fails.
fn run(command: &mut Command, directory: &Path) -> Result<()> {
    let program = command.get_program().to_string_lossy().into_owned();
    let status = command
        .current_dir(directory)
        .status()
        .with_context(|| format!("could not run {program} (is it installed?)"))?;
    if !status.success() {
        bail!("{program} failed with {status}");
    }
    Ok(())
}
