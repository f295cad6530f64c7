//! `netcfg-http users ...`: the users of the data directory, changed with
//! the server running or not (docs/people.md). This file only reads the
//! command line and the terminal; the service's `people_offline` does the
//! work.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::{Context, Result, bail};
use netcfg_model::people::{AccessRole, Password};
use netcfg_service::people_offline;
use nix::sys::termios;

use crate::settings::{Settings, UsersCommand};

/// Runs one `users` command on the settings' data directory.
pub(crate) fn run(settings: &Settings, command: &UsersCommand) -> Result<()> {
    std::fs::create_dir_all(settings.data_dir()).with_context(|| {
        format!(
            "could not create the data directory {}",
            settings.data_dir().display()
        )
    })?;
    let file = people_offline::open(settings.data_dir()).context("could not open the users")?;
    let mut out = std::io::stdout().lock();
    match command {
        UsersCommand::Add { name, role } => {
            let name = name.parse().map_err(|error| anyhow::anyhow!("{error}"))?;
            let role: AccessRole = role.parse()?;
            let password = read_password()?;
            let user = people_offline::add_user(&file, name, role, &password)?;
            writeln!(out, "user {} added ({})", user.name, user.role)?;
        }
        UsersCommand::List => {
            for user in people_offline::list_users(&file)? {
                let state = if user.disabled { " (disabled)" } else { "" };
                let nets = user
                    .nets
                    .map(|nets| {
                        let names: Vec<String> = nets.iter().map(ToString::to_string).collect();
                        format!(" nets: {}", names.join(", "))
                    })
                    .unwrap_or_default();
                writeln!(out, "{}\t{}{state}{nets}", user.name, user.role)?;
            }
        }
        UsersCommand::Passwd { name } => {
            let name = name.parse().map_err(|error| anyhow::anyhow!("{error}"))?;
            let password = read_password()?;
            people_offline::set_password(&file, &name, &password)?;
            writeln!(out, "password of {name} set; its sessions end")?;
        }
        UsersCommand::Delete { name } => {
            let name = name.parse().map_err(|error| anyhow::anyhow!("{error}"))?;
            people_offline::delete_user(&file, &name)?;
            writeln!(out, "user {name} deleted")?;
        }
    }
    Ok(())
}

/// A password from the terminal (asked twice, not echoed), or one line of
/// standard input.
fn read_password() -> Result<Password> {
    let stdin = std::io::stdin();
    let text = if stdin.is_terminal() {
        let first = prompt("password (at least 12 characters): ")?;
        let again = prompt("the same password again: ")?;
        if first != again {
            bail!("the two passwords differ; nothing was changed");
        }
        first
    } else {
        let mut line = String::new();
        stdin
            .lock()
            .read_line(&mut line)
            .context("could not read the password from standard input")?;
        line.trim_end_matches(['\n', '\r']).to_owned()
    };
    Password::try_from(text).map_err(|reason| anyhow::anyhow!("{reason}"))
}

/// Reads a line from the terminal with its echo off.
fn prompt(question: &str) -> Result<String> {
    let mut terminal = std::io::stderr().lock();
    write!(terminal, "{question}")?;
    terminal.flush()?;
    let echo = Echo::off();
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("could not read the password")?;
    drop(echo);
    writeln!(terminal)?;
    Ok(line.trim_end_matches(['\n', '\r']).to_owned())
}

/// The terminal's echo, off while this lives.
struct Echo(Option<termios::Termios>);

impl Echo {
    fn off() -> Self {
        let stdin = std::io::stdin();
        let Ok(saved) = termios::tcgetattr(&stdin) else {
            return Self(None);
        };
        let mut quiet = saved.clone();
        quiet.local_flags.remove(termios::LocalFlags::ECHO);
        match termios::tcsetattr(&stdin, termios::SetArg::TCSANOW, &quiet) {
            Ok(()) => Self(Some(saved)),
            Err(_) => Self(None),
        }
    }
}

impl Drop for Echo {
    fn drop(&mut self) {
        if let Some(saved) = &self.0 {
            let _ = termios::tcsetattr(std::io::stdin(), termios::SetArg::TCSANOW, saved);
        }
    }
}
