//! The default configuration file, written from the key table of
//! docs/configuration.md. That table is written from the server's own list
//! of keys (`bins/netcfg-http/src/settings.rs`) and a test fails when it is
//! stale, so reading it here keeps xtask free of the server's dependencies
//! while the file still lists every key the code knows.

use std::fmt::Write as _;

use anyhow::{Result, bail};

/// Where the Debian package and the unit keep the saved-state files.
pub(super) const HOST_DATA_DIR: &str = "/var/lib/netcfg";

/// One row of the key table.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Key {
    pub(super) name: String,
    /// The environment variable, if the key has one.
    pub(super) environment: Option<String>,
    /// The command-line option, if the key has one.
    pub(super) option: Option<String>,
    /// The default, if the key has one (a code span in the table).
    pub(super) default: Option<String>,
    pub(super) meaning: String,
}

/// The rows between `<!-- keys:start -->` and `<!-- keys:end -->`.
pub(super) fn keys(reference: &str) -> Result<Vec<Key>> {
    let (start, end) = ("<!-- keys:start -->", "<!-- keys:end -->");
    let (Some(begin), Some(finish)) = (reference.find(start), reference.find(end)) else {
        bail!("docs/configuration.md has no `{start}` … `{end}` table");
    };
    let mut keys = Vec::new();
    for line in reference[begin + start.len()..finish].lines() {
        let line = line.trim();
        let Some(row) = line.strip_prefix('|').and_then(|row| row.strip_suffix('|')) else {
            continue;
        };
        // The meaning is last, so a `|` inside it stays in it.
        let cells: Vec<&str> = row.splitn(5, '|').map(str::trim).collect();
        let [name, environment, option, default, meaning] = cells[..] else {
            bail!("docs/configuration.md: a key row without five cells: {line}");
        };
        if name == "key" || name.starts_with("---") {
            continue;
        }
        let code = |cell: &str| cell.trim_matches('`').to_owned();
        keys.push(Key {
            name: code(name),
            environment: environment.starts_with('`').then(|| code(environment)),
            option: option.starts_with('`').then(|| code(option)),
            default: default.starts_with('`').then(|| code(default)),
            meaning: meaning.to_owned(),
        });
    }
    if keys.is_empty() {
        bail!("docs/configuration.md's key table is empty");
    }
    Ok(keys)
}

/// A TOML value for a default written as text: whole numbers, booleans,
/// arrays and inline tables as they are (the server reads `port` as a
/// number, `auth.tokens` as a list), everything else a string.
fn toml_value(text: &str) -> String {
    let is_number = !text.is_empty() && text.bytes().all(|byte| byte.is_ascii_digit());
    let is_literal = (text.starts_with('[') && text.ends_with(']'))
        || (text.starts_with('{') && text.ends_with('}'));
    if is_number || is_literal || text == "true" || text == "false" {
        return text.to_owned();
    }
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
    format!("\"{escaped}\"")
}

/// `text` as `# ` comment lines of at most 78 columns.
fn comment(text: &str) -> String {
    let mut lines = String::new();
    let mut line = String::from("#");
    for word in text.split_whitespace() {
        if line.len() + 1 + word.len() > 78 && line.len() > 1 {
            lines.push_str(&line);
            lines.push('\n');
            line = String::from("#");
        }
        line.push(' ');
        line.push_str(word);
    }
    lines.push_str(&line);
    lines.push('\n');
    lines
}

/// The configuration file of a host installation: every key with a comment
/// and its default, except `data_dir`, which is the service's state directory.
pub(super) fn host_config(keys: &[Key]) -> Result<String> {
    if !keys.iter().any(|key| key.name == "data_dir") {
        bail!("docs/configuration.md has no data_dir key");
    }
    let mut file = comment(
        "netcfg-http settings (/etc/netcfg/netcfg.toml): every key, with its default. \
         Each source overrides the one before it: the built-in defaults, this file, \
         NETCFG_<KEY> environment variables, the command line. After a change: \
         systemctl restart netcfg. Reference: docs/configuration.md.",
    );
    for key in keys {
        file.push('\n');
        file.push_str(&comment(&key.meaning));
        let sources = match (&key.environment, &key.option) {
            (Some(variable), Some(option)) => {
                format!("Environment variable {variable}; command line {option}.")
            }
            (Some(variable), None) => {
                format!("Environment variable {variable}; no command-line option.")
            }
            (None, Some(option)) => format!("Command line {option}; no environment variable."),
            (None, None) => "This file only.".to_owned(),
        };
        file.push_str(&comment(&sources));
        match (key.name.as_str(), &key.default) {
            ("data_dir", default) => {
                let default = default.as_deref().map_or("none".to_owned(), toml_value);
                file.push_str(&comment(&format!(
                    "Default {default}; the service keeps its files in {HOST_DATA_DIR}, \
                     the only directory its unit lets it write."
                )));
                let _ = writeln!(file, "data_dir = {}", toml_value(HOST_DATA_DIR));
            }
            (name, Some(default)) => {
                let _ = writeln!(file, "{name} = {}", toml_value(default));
            }
            // A key without a plain default (a table, say) is left unset.
            (name, None) => {
                file.push_str(&comment(&format!("Not set by default: {name} = …")));
            }
        }
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    const REFERENCE: &str = "intro\n<!-- keys:start -->\n\
        | key | environment variable | command line | default | meaning |\n\
        |---|---|---|---|---|\n\
        | `port` | `NETCFG_PORT` | `--port` | `5000` | The port. |\n\
        | `data_dir` | `NETCFG_DATA_DIR` | `--data-dir` | `./data` | Where | files go. |\n\
        | `mode` | `NETCFG_MODE` | (file or environment only) | `a \"b\"` | A mode. |\n\
        | `auth` | (file only) | (file only) | (none) | Tokens. |\n\
        | `auth.tokens` | (file only) | (file only) | `[]` | Tokens, `a` | `b`. |\n\
        <!-- keys:end -->\nafter | `x` | `y` |\n";

    #[test]
    fn the_table_gives_every_key_with_its_cells() {
        let keys = keys(REFERENCE).unwrap();
        let names: Vec<&str> = keys.iter().map(|key| key.name.as_str()).collect();
        assert_eq!(names, ["port", "data_dir", "mode", "auth", "auth.tokens"]);
        assert_eq!(keys[4].meaning, "Tokens, `a` | `b`.");
        assert_eq!(keys[4].environment, None);
        assert_eq!(keys[1].meaning, "Where | files go.");
        assert_eq!(keys[1].option.as_deref(), Some("--data-dir"));
        assert_eq!(keys[2].option, None);
        assert_eq!(keys[2].default.as_deref(), Some("a \"b\""));
        assert_eq!(keys[3].default, None);
    }

    #[test]
    fn the_file_sets_every_key_numbers_bare_and_the_host_data_dir() {
        let file = host_config(&keys(REFERENCE).unwrap()).unwrap();
        let settings: Vec<&str> = file
            .lines()
            .filter(|line| !line.starts_with('#') && !line.is_empty())
            .collect();
        assert_eq!(
            settings,
            [
                "port = 5000",
                "data_dir = \"/var/lib/netcfg\"",
                "mode = \"a \\\"b\\\"\"",
                "auth.tokens = []"
            ]
        );
        assert!(file.contains("# Default \"./data\";"), "{file}");
        assert!(file.contains("# Not set by default: auth = …"), "{file}");
        assert!(
            file.contains("# This file only.\nauth.tokens = []"),
            "{file}"
        );
        assert!(file.contains("# Environment variable NETCFG_MODE; no command-line option."));
        assert!(file.lines().all(|line| line.len() <= 78), "{file}");
    }

    #[test]
    fn a_document_without_the_table_is_refused() {
        assert!(keys("no table here").is_err());
        assert!(keys("<!-- keys:start -->\n<!-- keys:end -->").is_err());
    }
}
