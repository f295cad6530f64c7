//! `cargo xtask <task>`: project automation that needs nothing but cargo.
//! `cargo xtask --help` lists the tasks, `cargo xtask <task> --help` their
//! options.
//!
//! - `ci`: every check CI runs, in this order, stopping at the first
//!   failure ([`CI_ABOUT`] is its `--help`):
//!   1. installs the outside tools when missing (tools.rs): Chromium,
//!      schemathesis 4.32.5, sqlite3, cdp-py 1.8.1;
//!   2. `cargo fmt --all -- --check`;
//!   3. `ui`;
//!   4. `cargo clippy --workspace --all-targets -- -D warnings`;
//!   5. `cargo doc --workspace --no-deps` with `RUSTDOCFLAGS=-D warnings`;
//!   6. `cargo test --workspace` (the layer rules and the generated
//!      documents' staleness tests among them: what `layers` and
//!      `codegen --check` run);
//!   7. `browser`; 8. `schemathesis`; 9. `soak --minutes 1`;
//!   10. `crash --kills 20`; 11. `dist --check`.
//! - `layers`: no crate depends on what its layer must not know
//!   (docs/architecture.md): runs the test that holds the rules,
//!   `cargo test -p netcfg-http --test it layers::` (the module `layers`
//!   of netcfg-http's one test binary), on `cargo metadata`'s graph.
//! - `ui`: the web front end's JavaScript (crates/netcfg-ui): type-checked
//!   by `tsc --noEmit -p crates/netcfg-ui/jsconfig.json` (TypeScript 5.9.3
//!   from npm, installed into target/npm when missing), then its unit tests
//!   under `node --test` (ui.rs).
//! - `browser`: serves the API and loads the API browser (`/api`) in headless
//!   Chromium: both documents must render, and the screenshot must not be
//!   blank; then runs the web front end's end-to-end tests (pytest and
//!   Selenium driving Chromium), which leave a screenshot of every view in
//!   docs/ui/.
//! - `schemathesis`: property-based tests of both tables from their own
//!   description, with schemathesis from PyPI.
//! - `soak` and `crash`: reliability runs against the real server
//!   (docs/reliability.md).
//! - `bench`: load benchmarks of the release server, figures beside their
//!   goals, never enforced (docs/benchmarks.md).
//! - `dist`: the release artefacts (tarball, Debian package, checksums);
//!   `--check` builds them twice and checks them.
//! - `codegen`: writes the generated documents (docs/openapi, the
//!   configuration reference, the front end's JSDoc types ui/lib/types.js)
//!   by running their tests with `UPDATE_EXPECT=1`; `--check` runs them as
//!   CI does.
//!
//! `bench`, `soak` and `crash` live in the crate netcfg-load
//! (tools/netcfg-load): xtask installs the tools a run needs, builds its
//! binary in release and runs it with the same options (load.rs). The
//! tasks that run the server start it with that crate's one launcher and
//! talk to it with its one HTTP client (`netcfg_load::server`).

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line tool talks to its user"
)]

mod access_table;
mod browser;
mod codegen;
mod dist;
mod jsdoc;
mod load;
mod schemathesis;
mod schemathesis_viewer;
mod tools;
mod ui;

use std::{
    env,
    path::PathBuf,
    process::{Command, ExitCode},
};

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use netcfg_load::{bench, crash, soak};

/// Project automation that needs nothing but cargo: `cargo xtask <task>`.
#[derive(Debug, Parser)]
#[command(name = "xtask", bin_name = "cargo xtask", disable_version_flag = true)]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Run every check CI runs: tools, fmt, ui, clippy, doc, tests (the layer
    /// rules among them),
    /// browser, schemathesis, soak, crash, dist --check
    #[command(long_about = CI_ABOUT)]
    Ci,
    /// Check that no crate depends on what its layer must not know (the
    /// `layers` tests of netcfg-http's test binary `it`)
    Layers,
    /// Type-check the web front end's JavaScript (tsc with checkJs; installs
    /// TypeScript 5.9.3 into target/npm if missing) and run its unit tests
    /// (node --test)
    Ui,
    /// Render /api in headless Chromium and check it, then run the web front
    /// end's end-to-end tests (installs Chromium, chromedriver, Selenium and
    /// pytest if missing; apt needs root)
    Browser,
    /// Property-based tests of both tables from /api.json (installs
    /// schemathesis if missing)
    Schemathesis,
    /// Load benchmarks of the release server: reads, durable writes against
    /// the disk's fdatasync, growth, footprint, 1,000 live-event subscribers
    /// (installs wrk if missing)
    Bench(bench::Options),
    /// Release artefacts in target/dist: tarball, Debian package, SHA256SUMS
    Dist {
        /// Build them twice and check them (what CI runs)
        #[arg(long)]
        check: bool,
    },
    /// Write the generated docs: OpenAPI of both tables, the configuration
    /// reference, the front end's JSDoc types
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

  1. tools: installs what the later steps run when missing: Chromium and
     sqlite3 with apt-get (as root; sqlite3 is optional), schemathesis
     4.32.5 and cdp-py 1.8.1 with pip (tests decode the data streams with
     cdp-py)
  2. cargo fmt --all -- --check
  3. ui: the web front end's JavaScript type-checked
     (tsc --noEmit -p crates/netcfg-ui/jsconfig.json; TypeScript 5.9.3 is
     installed into target/npm with npm when missing) and its unit tests
     (node --test crates/netcfg-ui/tests/js/)
  4. cargo clippy --workspace --all-targets -- -D warnings
  5. cargo doc --workspace --no-deps, with RUSTDOCFLAGS=-D warnings
  6. cargo test --workspace (includes the layer rules on cargo metadata's
     graph, as `layers` runs them, and the generated documents' staleness
     tests that `codegen --check` runs)
  7. browser: /api and the web front end in headless Chromium
  8. schemathesis: both tables, 20 examples per operation, seed 1, and
     every change with a viewer's key
  9. soak --minutes 1
 10. crash --kills 20
 11. dist --check: the release artefacts built twice and checked (their
     release build starts in the background after step 6)

`bench` is not part of it: its figures are reported, never checked.";

/// Runs the task; a failure is said in one line, without the backtrace that
/// `RUST_BACKTRACE` would add: CI's log keeps only its last lines, and they
/// must say what failed.
fn main() -> ExitCode {
    match run(Cli::parse().task) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(task: Task) -> Result<()> {
    match task {
        Task::Ci => ci(),
        Task::Layers => layers(),
        Task::Ui => ui::ui(),
        Task::Browser => browser::browser_check(),
        Task::Schemathesis => schemathesis::schemathesis(),
        Task::Bench(options) => load::task(netcfg_load::Task::Bench(options)),
        Task::Dist { check } => dist::dist(check),
        Task::Codegen { check } => codegen::codegen(check),
        Task::Soak(options) => load::task(netcfg_load::Task::Soak(options)),
        Task::Crash(options) => load::task(netcfg_load::Task::Crash(options)),
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

/// The layer rules live in a test (so plain `cargo test` keeps them):
/// bins/netcfg-http/tests/it/layers.rs, on `cargo metadata`'s graph. They
/// are the module `layers` of the binary `it`: the filter `layers::` picks
/// them out of it.
fn layers() -> Result<()> {
    cargo(
        &[
            "test",
            "--package",
            "netcfg-http",
            "--test",
            "it",
            "layers::",
        ],
        &[],
    )?;
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
    // Each step says how long it took: CI must end within 45 minutes on a
    // fresh machine, and its log is where a step that grew is seen.
    let started = std::time::Instant::now();
    let timed = |step: &str, run: &mut dyn FnMut() -> Result<()>| -> Result<()> {
        let begun = std::time::Instant::now();
        let outcome = run();
        eprintln!(
            "ci: {step} took {:.0} s ({:.1} min in all)",
            begun.elapsed().as_secs_f64(),
            started.elapsed().as_secs_f64() / 60.0
        );
        outcome
    };
    timed("installing the tools", &mut tools::install_for_ci)?;
    timed("fmt", &mut || {
        cargo(&["fmt", "--all", "--", "--check"], &[])
    })?;
    // The layer rules are a test of netcfg-http's: the test step runs them.
    // Run alone first they cost a build of that test binary with its own
    // features, most of which the workspace's test build could not reuse
    // (8.5 of 31 minutes on 2026-11-29).
    timed("ui", &mut ui::ui)?;
    timed("clippy", &mut || {
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
        )
    })?;
    timed("doc", &mut || {
        cargo(
            &["doc", "--workspace", "--no-deps"],
            &[("RUSTDOCFLAGS", "-D warnings")],
        )
    })?;
    timed("test", &mut || cargo(&["test", "--workspace"], &[]))?;
    // The load harness (release) first: the soak and the crash run it
    // without cargo, which would wait for cargo's lock on target/release
    // until the background build below ends.
    timed("build netcfg-load", &mut load::build)?;
    // The release build of `dist --check` (the longest compile of the run,
    // its optimiser on one codegen unit) runs beside the steps that mostly
    // wait on browsers, Python and servers; `dist --check` waits for it.
    let mut release = Some(dist::ReleaseBuild::start()?);
    timed("browser", &mut browser::browser_check)?;
    timed("schemathesis", &mut schemathesis::schemathesis)?;
    timed("soak", &mut || {
        load::run_built(&netcfg_load::Task::Soak(soak::Options {
            minutes: 1.0,
            threads: soak::THREADS,
            everything: true,
        }))
    })?;
    timed("crash", &mut || {
        load::run_built(&netcfg_load::Task::Crash(crash::Options {
            kills: 20,
            threads: crash::THREADS,
        }))
    })?;
    timed("dist --check", &mut || {
        if let Some(release) = release.take() {
            release.wait()?;
        }
        dist::check()
    })?;
    eprintln!("ci: every check passed");
    Ok(())
}
