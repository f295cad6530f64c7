//! The load harnesses of netcfg, against the real server over HTTP, as its
//! users reach it: `bench` (load benchmarks of the release server,
//! docs/benchmarks.md), `soak` and `crash` (reliability runs,
//! docs/reliability.md).
//!
//! `cargo xtask bench|soak|crash` installs the outside tools a run needs
//! (wrk, sqlite3, Chromium), builds this crate's binary `netcfg-load` in
//! release (the harnesses' own clients, such as the 1,000 event
//! subscribers, measure better optimised) and runs it with the same
//! options; [`Cli`] is its command line. Run alone, the binary says what
//! is missing instead of installing it.
//!
//! The harnesses start the server with one launcher and talk to it with one
//! HTTP client ([`server`]), which xtask's own server tasks (browser,
//! schemathesis, dist) share.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line tool talks to its user"
)]

pub mod bench;
pub mod crash;
pub mod server;
pub mod soak;
pub mod sync;
mod tools;
pub mod workspace;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// `netcfg-load <task>`: the load harnesses of the real server.
#[derive(Debug, Parser)]
#[command(name = "netcfg-load", disable_version_flag = true)]
pub struct Cli {
    /// The harness to run.
    #[command(subcommand)]
    pub task: Task,
}

/// The harnesses; `cargo xtask` names its tasks after them and takes the
/// same options.
#[derive(Debug, Clone, Subcommand)]
pub enum Task {
    /// Load benchmarks of the release server: reads, durable writes against
    /// the disk's fdatasync, growth, footprint, 1,000 live-event subscribers
    /// (needs wrk: `cargo xtask bench` installs it)
    Bench(bench::Options),
    /// Mixed reads and writes against the server; errors, memory growth,
    /// state against a model
    Soak(soak::Options),
    /// Writes under load, SIGKILLs, restarts: every acknowledged write
    /// present, files intact
    Crash(crash::Options),
}

impl Task {
    /// Runs the harness; an error when it could not run or found a problem.
    pub fn run(&self) -> Result<()> {
        match self {
            Task::Bench(options) => bench::bench(options),
            Task::Soak(options) => soak::soak(options),
            Task::Crash(options) => crash::crash(options),
        }
    }

    /// The command line that runs this task with these options: the
    /// subcommand's name, then every option spelt out (what xtask passes to
    /// the binary; [`Cli`] reads it back to the same task).
    pub fn to_args(&self) -> Vec<String> {
        let (name, options) = match self {
            Task::Bench(options) => ("bench", options.to_args()),
            Task::Soak(options) => ("soak", options.to_args()),
            Task::Crash(options) => ("crash", options.to_args()),
        };
        std::iter::once(name.to_owned()).chain(options).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Task, clap::Error> {
        Cli::try_parse_from(std::iter::once("netcfg-load").chain(args.iter().copied()))
            .map(|cli| cli.task)
    }

    /// A task's arguments, parsed again, give the same arguments.
    fn round_trip(args: &[&str]) -> Vec<String> {
        let task = parse(args).unwrap();
        let spelt = task.to_args();
        let again: Vec<&str> = spelt.iter().map(String::as_str).collect();
        assert_eq!(parse(&again).unwrap().to_args(), spelt, "{args:?}");
        spelt
    }

    #[test]
    fn every_task_reads_back_what_it_writes() {
        assert_eq!(
            round_trip(&["soak", "--minutes", "0.5"]),
            ["soak", "--minutes", "0.5", "--threads", "6"]
        );
        assert_eq!(
            round_trip(&["crash", "--kills", "5", "--threads", "2"]),
            ["crash", "--kills", "5", "--threads", "2"]
        );
        assert_eq!(round_trip(&["bench"]), ["bench", "--seconds", "5"]);
        assert_eq!(
            round_trip(&["bench", "--seconds", "2", "--only", "front-end"]),
            ["bench", "--seconds", "2", "--only", "front-end"]
        );
        assert_eq!(
            round_trip(&["bench", "--write-fixture"]),
            ["bench", "--seconds", "5", "--write-fixture"]
        );
    }

    #[test]
    fn defaults_are_those_of_ci_and_the_docs() {
        let Task::Soak(soak) = parse(&["soak"]).unwrap() else {
            panic!("not the soak")
        };
        assert_eq!((soak.minutes, soak.threads), (1.0, soak::THREADS));
        let Task::Crash(crash) = parse(&["crash"]).unwrap() else {
            panic!("not the crash")
        };
        assert_eq!((crash.kills, crash.threads), (20, crash::THREADS));
    }

    #[test]
    fn refuses_options_out_of_range() {
        for args in [
            &["soak", "--minutes", "0"][..],
            &["soak", "--minutes", "-1"],
            &["soak", "--minutes", "soon"],
            &["soak", "--threads", "0"],
            &["soak", "--threads", "16"],
            &["crash", "--threads", "16"],
            &["crash", "--kills", "-1"],
            &["bench", "--seconds", "0"],
            &["bench", "--only", "everything"],
            &["load"],
        ] {
            assert!(parse(args).is_err(), "{args:?} was accepted");
        }
    }
}
