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
    npm_install(root, &prefix, TYPESCRIPT)?;
    if !installed() {
        bail!(
            "{TYPESCRIPT} was installed, but {} does not run",
            tsc.display()
        );
    }
    Ok(tsc)
}

/// The OpenID provider of the single sign-on tests (decisions §17).
const OIDC_PROVIDER: &str = "oidc-provider@9.13.3";

/// The entry module of the pinned oidc-provider, installing it into
/// `target/npm-oidc` first when it is missing or another version (a prefix
/// of its own: an install into one prefix prunes what it did not name).
pub(crate) fn oidc_provider(root: &Path) -> Result<PathBuf> {
    let prefix = root.join("target/npm-oidc");
    let package = prefix.join("node_modules/oidc-provider");
    let version = OIDC_PROVIDER
        .rsplit_once('@')
        .map_or("", |(_, version)| version);
    let installed = || {
        std::fs::read_to_string(package.join("package.json"))
            .is_ok_and(|text| text.contains(&format!("\"version\": \"{version}\"")))
    };
    if !installed() {
        npm_install(root, &prefix, OIDC_PROVIDER)?;
        if !installed() {
            bail!(
                "{OIDC_PROVIDER} was installed, but not found at {}",
                package.display()
            );
        }
    }
    Ok(package.join("lib/index.js"))
}

/// `npm install` of `spec` into `prefix` (never the source tree).
fn npm_install(root: &Path, prefix: &Path, spec: &str) -> Result<()> {
    std::fs::create_dir_all(prefix)
        .with_context(|| format!("could not create {}", prefix.display()))?;
    eprintln!("installing {spec} into {}", prefix.display());
    run(
        Command::new("npm")
            .arg("install")
            .arg("--prefix")
            .arg(prefix)
            .args(["--no-save", "--no-audit", "--no-fund", "--no-package-lock"])
            .arg(spec),
        root,
    )
    .with_context(|| format!("npm could not install {spec} (node 20+ and npm must be installed)"))
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
