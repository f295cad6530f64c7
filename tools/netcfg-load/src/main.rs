//! `netcfg-load bench|soak|crash`: the load harnesses (see the library's
//! documentation). `cargo xtask bench|soak|crash` builds this binary in
//! release and runs it.

use anyhow::Result;
use clap::Parser;
use netcfg_load::Cli;

fn main() -> Result<()> {
    Cli::parse().task.run()
}
