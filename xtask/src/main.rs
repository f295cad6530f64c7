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
mod tools;

use std::{env, path::PathBuf, process::Command};

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};

/// Project automation that needs nothing but cargo: `cargo xtask <task>`.
#[derive(Debug, Parser)]
#[command(name = "xtask", bin_name = "cargo xtask", disable_version_flag = true)]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Run every check CI runs: fmt, layers, clippy, doc, tests, browser,
    /// schemathesis, soak, crash, dist --check
    #[command(long_about = CI_ABOUT)]
    Ci,
    /// Check that no crate depends on what its layer must not know
    Layers,
    /// Render /api in headless Chromium and check it (installs Chromium if
    /// missing, as root)
    Browser,
    /// Property-based tests of both tables from /api.json (installs
    /// schemathesis if missing)
    Schemathesis,
    /// Load benchmarks of the release server: reads, durable writes against
    /// the disk's fdatasync, growth, footprint (installs wrk if missing)
    Bench(bench::Options),
    /// Release artefacts in target/dist: tarball, Debian package, SHA256SUMS
    Dist {
        /// Build them twice and check them (what CI runs)
        #[arg(long)]
        check: bool,
    },
    /// Write the generated docs: OpenAPI of both tables, the configuration
    /// reference
    Codegen {
        /// Only check that they are current
        #[arg(long)]
        check: bool,
    },
    /// Mixed reads and writes against the server; errors, memory growth,
    /// state against a model
    Soak(soak::Options),
    /// Writes under load, SIGKILLs, restarts: every acknowledged write
    /// present, files intact
    Crash(crash::Options),
}

/// What `cargo xtask ci --help` says: every step, in order.
const CI_ABOUT: &str = "Run every check CI runs, in this order, stopping at the first failure:

  1. cargo fmt --all -- --check
  2. layers: the layer rules, from cargo's dependency graph
  3. cargo clippy --workspace --all-targets -- -D warnings
  4. cargo doc --workspace --no-deps, with RUSTDOCFLAGS=-D warnings
  5. cargo test --workspace (includes the generated documents' staleness
     tests that `codegen --check` runs)
  6. browser: /api in headless Chromium (installs Chromium if missing)
  7. schemathesis: both tables (installs schemathesis if missing)
  8. soak --minutes 1
  9. crash --kills 20 (installs sqlite3 if missing)
 10. dist --check: the release artefacts built twice and checked

`bench` is not part of it: its figures are reported, never checked.";

fn main() -> Result<()> {
    match Cli::parse().task {
        Task::Ci => ci(),
        Task::Layers => layers(),
        Task::Browser => browser::browser_check(),
        Task::Schemathesis => schemathesis::schemathesis(),
        Task::Bench(options) => bench::bench(&options),
        Task::Dist { check } => dist::dist(check),
        Task::Codegen { check } => codegen::codegen(check),
        Task::Soak(options) => soak::soak(&options),
        Task::Crash(options) => crash::crash(&options),
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
    tools::install_for_ci()?;
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
    soak::soak(&soak::Options {
        minutes: 1.0,
        threads: soak::THREADS,
    })?;
    crash::crash(&crash::Options {
        kills: 20,
        threads: crash::THREADS,
    })?;
    dist::check()?;
    eprintln!("ci: every check passed");
    Ok(())
}
