//! `netcfg-sim`: serves the device simulator on a pseudo-terminal and
//! prints the terminal's path; give that path as a configuration's
//! `instance` and the server drives the simulator as it would hardware.
//!
//! ```text
//! netcfg-sim [--scenario default|strangers|quiet] [--extra XX:XX:XXXX]... [--status-ms N]
//! ```
//!
//! Faults are typed on standard input, one per line:
//! `silence <serial>`, `revive <serial>`, `lose-sync <serial>`, `drop`.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line tool talks on its terminal"
)]

use std::time::Duration;

use anyhow::{Context, bail};
use netcfg_engine::sim::{SimExit, SimFault, SimOptions, Simulator};
use netcfg_model::SerialNumber;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio_serial::{SerialPort, SerialStream};

fn options_from(args: &[String]) -> anyhow::Result<SimOptions> {
    let mut scenario = None;
    let mut extra = Vec::new();
    let mut status_ms = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--scenario" => scenario = Some(value()?.clone()),
            "--extra" => extra.push(value()?.parse::<SerialNumber>()?),
            "--status-ms" => status_ms = Some(value()?.parse::<u64>()?),
            "-h" | "--help" => {
                println!(
                    "netcfg-sim [--scenario default|strangers|quiet] [--extra XX:XX:XXXX]... [--status-ms N]"
                );
                std::process::exit(0);
            }
            other => bail!("unknown argument {other}; try --help"),
        }
    }
    let mut options = SimOptions::for_scenario(scenario.as_deref())?;
    options.extra_devices.extend(extra);
    if let Some(ms) = status_ms {
        options.status_period = Duration::from_millis(ms.max(10));
    }
    Ok(options)
}

fn fault_from(line: &str) -> anyhow::Result<SimFault> {
    let words: Vec<&str> = line.split_whitespace().collect();
    Ok(match words.as_slice() {
        ["drop"] => SimFault::DropLink,
        ["silence", serial] => SimFault::Silence(serial.parse()?),
        ["revive", serial] => SimFault::Revive(serial.parse()?),
        ["lose-sync", serial] => SimFault::LoseSync(serial.parse()?),
        _ => bail!("say `silence <serial>`, `revive <serial>`, `lose-sync <serial>` or `drop`"),
    })
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = options_from(&args)?;
    loop {
        let (device_end, host_end) =
            SerialStream::pair().context("cannot create a pseudo-terminal")?;
        let path = host_end.name().context("the pseudo-terminal has no path")?;
        println!("{path}");
        let simulator = Simulator::new(options.clone());
        let handle = simulator.handle();
        let faults = tokio::spawn(async move {
            let mut lines = BufReader::new(tokio::io::stdin()).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                match fault_from(&line) {
                    Ok(fault) => {
                        handle.inject(fault);
                    }
                    Err(error) => eprintln!("{error}"),
                }
            }
        });
        // Keeping the host end open lets a server close and reopen the
        // port (stop, start) without the simulator seeing a hang-up.
        let exit = simulator.serve(device_end).await?;
        faults.abort();
        drop(host_end);
        match exit {
            SimExit::LinkDropped => eprintln!("link dropped; serving a new pseudo-terminal"),
            SimExit::HostClosed => return Ok(()),
        }
    }
}
