//! `cargo xtask <task>`: project automation that needs nothing but cargo.
//!
//! - `ci`: every check CI runs, in the order CI runs them: formatting, the
//!   layer rules, clippy with warnings denied, documentation with warnings
//!   denied, tests.
//! - `layers`: checks that no crate depends on what its layer must not know
//!   (docs/architecture.md), from cargo's own dependency graph.
//! - `schemathesis`: property-based tests of both tables from their own
//!   description, with schemathesis from PyPI.
//! - `dist`: the release artefacts (tarball, Debian package, checksums);
//!   `--check` builds them twice and checks them (CI runs it).
//! - `codegen`: writes the generated documents (docs/openapi, the
//!   configuration reference); tests fail when they are stale.
//! - `soak` and `crash`: reliability runs against the real server
//!   (docs/reliability.md).
//! - `bench`: load benchmarks of the real server (docs/benchmarks.md).
//! - `browser`: serves the API and loads the API browser (`/api`) in headless
//!   Chromium: both documents must render, and the screenshot must not be blank.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line tool talks to its user"
)]

mod bench;
mod browser;
mod codegen;
mod crash;
mod dist;
mod schemathesis;
mod server;
mod soak;

use std::{env, path::PathBuf, process::Command};

use anyhow::{Context, Result, bail};

const USAGE: &str = "usage: cargo xtask <task>\n\ntasks:\n  ci        run every check CI runs (fmt, layers, clippy, doc, tests)\n  layers    check that no crate depends on what its layer must not know\n  browser   render /api in headless Chromium (installs it if missing, as root) and check it\n  schemathesis  property-based tests of both tables from /api.json (installs schemathesis if missing)\n  dist      release artefacts in target/dist: tarball, Debian package, SHA256SUMS (--check: build twice and check them)\n  codegen   write the generated docs: OpenAPI of both tables, the configuration reference (--check: only check)\n  soak      mixed reads and writes for --minutes N against the server; errors, memory growth, state vs a model\n  crash     writes under load, --kills N SIGKILLs, restart: every acknowledged write present, files intact\n  bench     load benchmarks of the release server: reads, durable writes, growth, footprint (installs wrk if missing)";

fn main() -> Result<()> {
    let task = env::args().nth(1);
    let rest: Vec<String> = env::args().skip(2).collect();
    match task.as_deref() {
        Some("ci") => ci(),
        Some("layers") => layers(),
        Some("browser") => browser::browser_check(),
        Some("schemathesis") => schemathesis::schemathesis(),
        Some("bench") => bench::bench(&rest),
        Some("dist") => dist::dist(&rest),
        Some("codegen") => codegen::codegen(&rest),
        Some("soak") => soak::soak(&rest),
        Some("crash") => crash::crash(&rest),
        Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
            Ok(())
        }
        Some(other) => bail!("unknown task `{other}`\n\n{USAGE}"),
        None => bail!("no task given\n\n{USAGE}"),
    }
}

/// The workspace root: xtask lives one level below it.
fn workspace_root() -> PathBuf {
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .map(PathBuf::from)
        .unwrap_or(manifest_dir)
}

/// Crates that touch the outside world (files, sockets, devices, clocks, HTTP).
const IO_CRATES: &[&str] = &[
    "tokio",
    "mio",
    "actix-web",
    "actix-http",
    "actix-server",
    "rusqlite",
    "libsqlite3-sys",
    "tokio-serial",
    "serialport",
    "socket2",
    "env_logger",
    "config",
];

/// For each of our crates, the crates it must never depend on, even
/// indirectly, and why. A crate not yet in the workspace is skipped.
const LAYER_RULES: &[(&str, &[&str], &str)] = &[
    (
        "netcfg-model",
        IO_CRATES,
        "the model is pure: no I/O, no async",
    ),
    (
        "netcfg-model",
        &["netcfg-store", "netcfg-engine", "netcfg-api"],
        "the model is the bottom layer",
    ),
    (
        "netcfg-store",
        &[
            "actix-web",
            "actix-http",
            "tokio-serial",
            "serialport",
            "netcfg-engine",
            "netcfg-api",
        ],
        "the store knows nothing of HTTP or devices",
    ),
    (
        "netcfg-engine",
        &[
            "actix-web",
            "actix-http",
            "rusqlite",
            "libsqlite3-sys",
            "netcfg-store",
            "netcfg-api",
        ],
        "the engine knows nothing of HTTP or saved-state files",
    ),
];

/// The names of every crate `package` depends on at run time (normal
/// dependencies, transitively), or `None` when the package does not exist.
fn runtime_dependencies(package: &str) -> Result<Option<Vec<String>>> {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(&cargo)
        .args([
            "tree",
            "--package",
            package,
            "--edges",
            "normal",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .current_dir(workspace_root())
        .output()
        .with_context(|| format!("could not run {cargo} tree"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        if stderr.contains("did not match any packages") {
            return Ok(None);
        }
        bail!("cargo tree -p {package} failed: {stderr}");
    }
    let names = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
        .collect();
    Ok(Some(names))
}

fn layers() -> Result<()> {
    let mut broken = Vec::new();
    for (package, forbidden, why) in LAYER_RULES {
        let Some(dependencies) = runtime_dependencies(package)? else {
            continue;
        };
        for name in dependencies
            .iter()
            .filter(|name| forbidden.contains(&name.as_str()))
        {
            broken.push(format!("{package} depends on {name}, but {why}"));
        }
    }
    broken.sort();
    broken.dedup();
    if !broken.is_empty() {
        bail!(
            "layer rules broken (see docs/architecture.md):\n  {}",
            broken.join("\n  ")
        );
    }
    eprintln!("layers: every crate keeps to its layer");
    Ok(())
}

/// Runs `cargo` with `args` in the workspace root, failing when it fails.
fn cargo(args: &[&str], extra_env: &[(&str, &str)]) -> Result<()> {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    eprintln!("$ cargo {}", args.join(" "));
    let status = Command::new(&cargo)
        .args(args)
        .envs(extra_env.iter().copied())
        .current_dir(workspace_root())
        .status()
        .with_context(|| format!("could not run {cargo}"))?;
    if !status.success() {
        bail!("`cargo {}` failed with {status}", args.join(" "));
    }
    Ok(())
}

fn ci() -> Result<()> {
    cargo(&["fmt", "--all", "--", "--check"], &[])?;
    layers()?;
    cargo(
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
        &[],
    )?;
    cargo(
        &["doc", "--workspace", "--no-deps"],
        &[("RUSTDOCFLAGS", "-D warnings")],
    )?;
    cargo(&["test", "--workspace"], &[])?;
    browser::browser_check()?;
    schemathesis::schemathesis()?;
    soak::soak(&["--minutes".to_owned(), "1".to_owned()])?;
    crash::crash(&["--kills".to_owned(), "20".to_owned()])?;
    dist::check()?;
    eprintln!("ci: every check passed");
    Ok(())
}
