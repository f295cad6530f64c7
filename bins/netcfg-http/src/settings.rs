//! The server's settings: defaults, then a TOML file, then `NETCFG_*`
//! environment variables, then the command line, each over the one before.

use std::{
    net::IpAddr,
    path::{Path, PathBuf},
};

use anyhow::{Context, Result};
use clap::Parser;
use netcfg_api::ApiVersion;

/// The command line. Every option is also a key of the configuration file
/// and a `NETCFG_<KEY>` environment variable.
#[derive(Debug, Parser)]
#[command(
    name = "netcfg-http",
    version,
    about = "The netcfg network configuration manager: the HTTP API server",
    after_help = keys_help()
)]
pub(crate) struct Cli {
    /// A TOML configuration file (keys as below).
    #[arg(long, global = true, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// The address to listen on [default: 0.0.0.0].
    #[arg(long, value_name = "ADDR")]
    pub(crate) bind: Option<IpAddr>,
    /// The port to listen on [default: 5000].
    #[arg(long, value_name = "N")]
    pub(crate) port: Option<u16>,
    /// Where the configurations' saved-state files live (created) [default: ./netcfg-data].
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) data_dir: Option<PathBuf>,
    /// The API version answering requests without an Api-Version header [default: 5.1].
    #[arg(long, value_name = "5.1|5.0")]
    pub(crate) api_version: Option<String>,
    /// The server's certificate chain (PEM): with --tls-key, HTTPS only.
    #[arg(long, value_name = "FILE")]
    pub(crate) tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM): with --tls-cert, HTTPS only.
    #[arg(long, value_name = "FILE")]
    pub(crate) tls_key: Option<PathBuf>,
    /// What to do instead of serving.
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

/// What the server's binary does besides serving.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Command {
    /// The users of the data directory (docs/people.md), with the server
    /// running or not: `users add NAME --role admin` makes the first admin.
    #[command(subcommand)]
    Users(UsersCommand),
}

/// `netcfg-http users ...`: a password is read from the terminal (twice,
/// not shown), or as one line of standard input when that is not a
/// terminal.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum UsersCommand {
    /// Adds a user.
    Add {
        /// Its name: 1 to 64 of a-z 0-9 . _ -, starting with a letter or digit.
        name: String,
        /// viewer, operator, editor or admin.
        #[arg(long)]
        role: String,
    },
    /// Lists the users.
    List,
    /// Sets a user's password (its sessions end).
    Passwd {
        /// The user.
        name: String,
    },
    /// Deletes a user and its keys (never the last enabled admin).
    Delete {
        /// The user.
        name: String,
    },
}

/// One key of the settings: its name, default and meaning. The table of
/// docs/configuration.md is written from this list.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Key {
    pub(crate) name: &'static str,
    pub(crate) default: &'static str,
    pub(crate) meaning: &'static str,
}

/// Every key, with its default.
pub(crate) const KEYS: &[Key] = &[
    Key {
        name: "bind",
        default: "0.0.0.0",
        meaning: "The address the HTTP server listens on (every interface by default).",
    },
    Key {
        name: "port",
        default: "5000",
        meaning: "The TCP port the HTTP server listens on.",
    },
    Key {
        name: "data_dir",
        default: "./netcfg-data",
        meaning: "The directory of the configurations' saved-state files and logs; created if missing.",
    },
    Key {
        name: "api_version",
        default: "5.1",
        meaning: "The API version that answers requests without an `Api-Version` header: `5.1` or `5.0`.",
    },
    Key {
        name: "auth.tokens",
        default: "[]",
        meaning: "Access control, off when empty. A list of `{ token = \"<secret, 16+ characters>\", access = \"read-only\" | \"admin\", name = \"<who, for the change history>\" }`, or `sha256 = \"<hex digest of the secret>\"` instead of `token`; `name` is optional (`token-<n>` by its place in the list). A read-only token acts as the role viewer, an admin token as admin; any token (or any user) turns access control on (docs/api/people.md).",
    },
    Key {
        name: "auth.oidc",
        default: "",
        meaning: "Single sign-on through an OpenID Connect provider (authorization code with PKCE; docs/api/people.md): a table `{ issuer = \"<URL>\", client_id = \"…\", client_secret = \"…\", role_claim = \"groups\", roles = { \"<claim value>\" = \"viewer\" | \"operator\" | \"editor\" | \"admin\" }, default_role = \"viewer\" }`; optional: `scopes` (default `[\"profile\"]`), `redirect_url` (the front end's page as the provider knows it; default: the address the browser used), `ca_file` (the provider's CA, PEM). The first sign-in creates the user named by `preferred_username`; later ones update its role. Setting it turns access control on.",
    },
    Key {
        name: "tls_cert",
        default: "",
        meaning: "The server's certificate chain, a PEM file. With `tls_key` the server speaks HTTPS only (TLS 1.2 and 1.3, rustls), on the same port; without both, plain HTTP. One without the other stops the server at start.",
    },
    Key {
        name: "tls_key",
        default: "",
        meaning: "The private key of `tls_cert`, a PEM file (PKCS #8, PKCS #1 or SEC1). Readable by the server only.",
    },
    Key {
        name: "default_instance",
        default: "sim",
        meaning: "The engine instance for configurations whose `instance` is empty: a serial port path, or `sim` for the built-in simulator.",
    },
    Key {
        name: "max_connections",
        default: "10000",
        meaning: "The most connections the server holds at once, event streams included; past it, new connections wait in the listen backlog until one closes.",
    },
    Key {
        name: "request_timeout",
        default: "5",
        meaning: "Seconds a client has to send a request's head (from connecting, or from the end of its previous request): a slower one gets 408 and is disconnected, so idle and trickling connections cannot pile up.",
    },
    Key {
        name: "keep_alive",
        default: "5",
        meaning: "Seconds an idle kept-alive connection stays open between requests.",
    },
    Key {
        name: "recording_limit",
        default: "1GiB",
        meaning: "The largest one recording grows (bytes, or with `KiB`, `MiB`, `GiB`): it stops there, whole (`ended: recording_limit`).",
    },
    Key {
        name: "recordings_limit",
        default: "10GiB",
        meaning: "The most all recordings of all configurations hold together: a recording stops there (`total_limit`), and none starts past it.",
    },
    Key {
        name: "recording_keep_free",
        default: "256MiB",
        meaning: "A recording stops (`disk`) before the data directory's disk has less than this free, and none starts below it.",
    },
    Key {
        name: "session_idle",
        default: "8h",
        meaning: "A signed-in session unused this long ends (a number and `s`, `m`, `h` or `d`).",
    },
    Key {
        name: "session_max",
        default: "7d",
        meaning: "A signed-in session ends this long after its sign-in in any case.",
    },
    Key {
        name: "audit_keep",
        default: "100000",
        meaning: "The most entries the audit trail keeps (`GET /audit`); the oldest are dropped first and counted.",
    },
    Key {
        name: "history_keep",
        default: "100000",
        meaning: "The most change-history entries each configuration keeps (decisions §20): past it the oldest are pruned in the background, down to 1% below, and the history says so; a restore to a pruned change is 409 `history_pruned`.",
    },
    Key {
        name: "history_keep_days",
        default: "365",
        meaning: "Change-history entries older than this many days are pruned (as `history_keep`).",
    },
    Key {
        name: "notifications_keep",
        default: "50000",
        meaning: "The most notifications each configuration keeps: past it the oldest read ones are pruned first, then the oldest unread ones, down to 1% below.",
    },
    Key {
        name: "notifications_keep_days",
        default: "90",
        meaning: "Notifications older than this many days are pruned, read or not.",
    },
];

/// A size setting: a whole number of bytes, or with `KiB`, `MiB`, `GiB`
/// or `TiB` after it (`1GiB`, `512 MiB`).
fn bytes_setting(key: &str, text: &str) -> Result<u64> {
    let trimmed = text.trim();
    let digits = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(digits);
    let shift = match unit.trim() {
        "" | "B" => 0,
        "KiB" => 10,
        "MiB" => 20,
        "GiB" => 30,
        "TiB" => 40,
        other => anyhow::bail!(
            "{key} = `{text}`: `{other}` is not a unit (give bytes, or KiB, MiB, GiB, TiB)"
        ),
    };
    let value: u64 = number
        .parse()
        .with_context(|| format!("{key} = `{text}`: not a whole number"))?;
    value
        .checked_mul(1 << shift)
        .with_context(|| format!("{key} = `{text}` is too large"))
}

/// A duration setting (`30s`, `15m`, `8h`, `7d`), in milliseconds.
fn duration_ms(key: &str, text: &str) -> Result<i64> {
    let trimmed = text.trim();
    let digits = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(digits);
    let unit_ms: i64 = match unit.trim() {
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        other => anyhow::bail!("{key} = `{text}`: `{other}` is not a unit (give s, m, h or d)"),
    };
    let value: i64 = number
        .parse()
        .with_context(|| format!("{key} = `{text}`: not a whole number"))?;
    value
        .checked_mul(unit_ms)
        .filter(|ms| *ms > 0)
        .with_context(|| format!("{key} = `{text}`: give a positive duration, at most years"))
}

/// The keys, for `--help`.
fn keys_help() -> String {
    let mut help = String::from(
        "Settings, lowest priority first: defaults, the --config file, NETCFG_<KEY> environment variables, the command line.\nKeys:\n",
    );
    for key in KEYS {
        help.push_str(&format!(
            "  {:<17} {:<14} {}\n",
            key.name, key.default, key.meaning
        ));
    }
    help
}

/// The reference table of docs/configuration.md, written from [`KEYS`]
/// (checked by a test; `cargo xtask codegen` will write it).
#[cfg(test)]
pub(crate) fn reference_table() -> String {
    let mut table = String::from(
        "| key | environment variable | command line | default | meaning |\n|---|---|---|---|---|\n",
    );
    // The command line's own flags, so that the table never names one the
    // binary refuses.
    let command = <Cli as clap::CommandFactory>::command();
    let has_flag = |long: &str| {
        command
            .get_arguments()
            .any(|argument| argument.get_long() == Some(long))
    };
    for key in KEYS {
        let long = key.name.replace('_', "-");
        let flag = if key.name.contains('.') {
            "(file only)".to_owned()
        } else if has_flag(&long) {
            format!("`--{long}`")
        } else {
            "(file or environment only)".to_owned()
        };
        let default = if key.default.is_empty() {
            "(none)".to_owned()
        } else {
            format!("`{}`", key.default)
        };
        table.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            key.name,
            if key.name.contains('.') {
                "(file only)".to_owned()
            } else {
                format!("`NETCFG_{}`", key.name.to_uppercase())
            },
            flag,
            default,
            key.meaning
        ));
    }
    table
}

/// The settings the server runs with.
/// The `[auth]` table of the configuration file.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AuthSettings {
    #[serde(default)]
    pub(crate) tokens: Vec<TokenSetting>,
    #[serde(default)]
    pub(crate) oidc: Option<OidcSetting>,
}

/// `auth.oidc`: single sign-on (see its key).
#[derive(Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OidcSetting {
    issuer: String,
    client_id: String,
    client_secret: Option<String>,
    role_claim: Option<String>,
    #[serde(default)]
    roles: std::collections::BTreeMap<String, String>,
    default_role: Option<String>,
    scopes: Option<Vec<String>>,
    redirect_url: Option<String>,
    ca_file: Option<String>,
}

// The client secret must never reach a log line.
impl std::fmt::Debug for OidcSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OidcSetting")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl OidcSetting {
    /// The service's settings; every bad value named by its key.
    fn resolve(&self) -> Result<netcfg_model::people::OidcSettings> {
        use netcfg_model::people::AccessRole;
        let role = |key: &str, text: &str| -> Result<AccessRole> {
            text.parse::<AccessRole>()
                .map_err(|error| anyhow::anyhow!("auth.oidc.{key}: {error}"))
        };
        let mut roles = std::collections::BTreeMap::new();
        for (value, text) in &self.roles {
            roles.insert(value.clone(), role(&format!("roles.{value}"), text)?);
        }
        let default_role = self
            .default_role
            .as_deref()
            .map(|text| role("default_role", text))
            .transpose()?;
        if self.role_claim.is_none() && default_role.is_none() {
            anyhow::bail!(
                "auth.oidc: give role_claim (with roles) or default_role: otherwise nobody could sign in"
            );
        }
        for (key, url) in [
            ("issuer", Some(&self.issuer)),
            ("redirect_url", self.redirect_url.as_ref()),
        ] {
            if let Some(url) = url
                && !(url.starts_with("https://") || url.starts_with("http://"))
            {
                anyhow::bail!("auth.oidc.{key}: {url:?} is not an http:// or https:// URL");
            }
        }
        Ok(netcfg_model::people::OidcSettings {
            issuer: self.issuer.clone(),
            client_id: self.client_id.clone(),
            client_secret: self.client_secret.clone(),
            role_claim: self.role_claim.clone(),
            roles,
            default_role,
            scopes: self
                .scopes
                .clone()
                .unwrap_or_else(|| vec!["profile".to_owned()]),
            redirect_url: self.redirect_url.clone(),
            ca_file: self.ca_file.clone(),
        })
    }
}

/// One token of `auth.tokens`: the secret or its SHA-256 digest, its
/// access, and the name the change history records (optional).
#[derive(Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TokenSetting {
    token: Option<String>,
    sha256: Option<String>,
    access: String,
    name: Option<String>,
}

// A secret must never reach a log line, even through `{:?}`.
impl std::fmt::Debug for TokenSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenSetting")
            .field("access", &self.access)
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Settings {
    pub(crate) bind: IpAddr,
    pub(crate) port: u16,
    pub(crate) data_dir: PathBuf,
    pub(crate) api_version: String,
    pub(crate) default_instance: String,
    pub(crate) tls_cert: PathBuf,
    pub(crate) tls_key: PathBuf,
    pub(crate) max_connections: usize,
    pub(crate) request_timeout: u64,
    pub(crate) keep_alive: u64,
    pub(crate) recording_limit: String,
    pub(crate) recordings_limit: String,
    pub(crate) recording_keep_free: String,
    pub(crate) session_idle: String,
    pub(crate) session_max: String,
    pub(crate) audit_keep: u64,
    pub(crate) history_keep: u64,
    pub(crate) history_keep_days: u32,
    pub(crate) notifications_keep: u64,
    pub(crate) notifications_keep_days: u32,
    #[serde(default)]
    pub(crate) auth: AuthSettings,
}

impl Settings {
    /// Reads the settings from the defaults, `cli.config`, the environment
    /// variables in `environment` (normally the process's), and `cli`.
    pub(crate) fn load(
        cli: &Cli,
        environment: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Self> {
        let mut builder = config::Config::builder();
        // Tables default through serde; the others through their default text.
        for key in KEYS.iter().filter(|key| !key.name.contains('.')) {
            builder = builder.set_default(key.name, key.default)?;
        }
        if let Some(path) = &cli.config {
            builder = builder.add_source(
                config::File::from(path.as_path())
                    .format(config::FileFormat::Toml)
                    .required(true),
            );
        }
        let environment: config::Map<String, String> = environment
            .into_iter()
            .filter(|(name, _)| name.starts_with("NETCFG_"))
            .collect();
        builder = builder.add_source(
            config::Environment::with_prefix("NETCFG")
                .prefix_separator("_")
                .source(Some(environment)),
        );
        let path_text =
            |path: &Option<PathBuf>| path.as_deref().map(|path| path.display().to_string());
        let overrides: [(&str, Option<String>); 6] = [
            ("bind", cli.bind.map(|bind| bind.to_string())),
            ("port", cli.port.map(|port| port.to_string())),
            (
                "data_dir",
                cli.data_dir.as_deref().map(|dir| dir.display().to_string()),
            ),
            ("api_version", cli.api_version.clone()),
            ("tls_cert", path_text(&cli.tls_cert)),
            ("tls_key", path_text(&cli.tls_key)),
        ];
        for (key, value) in overrides {
            if let Some(value) = value {
                builder = builder.set_override(key, value)?;
            }
        }
        let settings: Self = builder
            .build()
            .context("could not read the settings")?
            .try_deserialize()
            .context("the settings are not valid")?;
        settings.version()?;
        settings.recording_limits()?;
        settings.people()?;
        settings.retention()?;
        settings.auth()?;
        settings.tls()?;
        if settings.max_connections == 0 {
            anyhow::bail!("max_connections must be at least 1");
        }
        if !(1..=3600).contains(&settings.request_timeout) {
            anyhow::bail!("request_timeout is 1 to 3600 seconds");
        }
        Ok(settings)
    }

    /// The certificate and key files when HTTPS is on; an error when only
    /// one is given.
    pub(crate) fn tls(&self) -> Result<Option<(&Path, &Path)>> {
        let given = |path: &Path| !path.as_os_str().is_empty();
        match (given(&self.tls_cert), given(&self.tls_key)) {
            (true, true) => Ok(Some((&self.tls_cert, &self.tls_key))),
            (false, false) => Ok(None),
            (true, false) => anyhow::bail!("tls_cert is set but tls_key is not: HTTPS needs both"),
            (false, true) => anyhow::bail!("tls_key is set but tls_cert is not: HTTPS needs both"),
        }
    }

    /// The default API version.
    /// How large recordings may grow.
    pub(crate) fn recording_limits(&self) -> Result<netcfg_api::RecordingLimits> {
        Ok(netcfg_api::RecordingLimits {
            per_recording: bytes_setting("recording_limit", &self.recording_limit)?,
            total: bytes_setting("recordings_limit", &self.recordings_limit)?,
            keep_free: bytes_setting("recording_keep_free", &self.recording_keep_free)?,
        })
    }

    /// How long sessions last and how much audit is kept (decisions §17).
    pub(crate) fn people(&self) -> Result<netcfg_service::PeopleSettings> {
        let idle_ms = duration_ms("session_idle", &self.session_idle)?;
        let max_ms = duration_ms("session_max", &self.session_max)?;
        if self.audit_keep == 0 {
            anyhow::bail!("audit_keep must be at least 1");
        }
        Ok(netcfg_service::PeopleSettings {
            sessions: netcfg_model::people::SessionLimits { idle_ms, max_ms },
            audit_keep: self.audit_keep,
        })
    }

    /// How much history and how many notifications each configuration
    /// keeps (decisions §20).
    pub(crate) fn retention(&self) -> Result<netcfg_store::Retention> {
        let at_least_one = [
            ("history_keep", self.history_keep),
            ("history_keep_days", u64::from(self.history_keep_days)),
            ("notifications_keep", self.notifications_keep),
            (
                "notifications_keep_days",
                u64::from(self.notifications_keep_days),
            ),
        ];
        if let Some((key, _)) = at_least_one.iter().find(|(_, value)| *value == 0) {
            anyhow::bail!("{key} must be at least 1");
        }
        Ok(netcfg_store::Retention {
            history_keep: self.history_keep,
            history_keep_days: self.history_keep_days,
            notifications_keep: self.notifications_keep,
            notifications_keep_days: self.notifications_keep_days,
        })
    }

    pub(crate) fn version(&self) -> Result<ApiVersion> {
        self.api_version
            .parse()
            .with_context(|| format!("api_version `{}`", self.api_version))
    }

    /// The access control the tokens describe (off when there are none).
    pub(crate) fn auth(&self) -> Result<netcfg_api::Auth> {
        let mut auth = netcfg_api::Auth::off();
        for (position, token) in self.auth.tokens.iter().enumerate() {
            let context = || format!("auth.tokens[{position}]");
            let access: netcfg_api::Access = token.access.parse().with_context(context)?;
            auth = match (&token.token, &token.sha256) {
                (Some(secret), None) => auth.with_token(secret, access),
                (None, Some(digest)) => auth.with_digest(digest, access),
                _ => Err(netcfg_api::AuthError::TokenOrDigest),
            }
            .and_then(|auth| match &token.name {
                Some(name) => auth.named(name),
                None => Ok(auth),
            })
            .with_context(context)?;
        }
        Ok(auth)
    }

    /// Single sign-on (`auth.oidc`), when set.
    pub(crate) fn oidc(&self) -> Result<Option<netcfg_model::people::OidcSettings>> {
        self.auth
            .oidc
            .as_ref()
            .map(OidcSetting::resolve)
            .transpose()
    }

    /// The data directory.
    pub(crate) fn data_dir(&self) -> &Path {
        &self.data_dir
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;

    fn cli(arguments: &[&str]) -> Cli {
        Cli::try_parse_from(std::iter::once("netcfg-http").chain(arguments.iter().copied()))
            .expect("valid arguments")
    }

    fn environment(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn the_defaults_are_the_documented_ones() {
        let settings = Settings::load(&cli(&[]), Vec::new()).unwrap();
        assert_eq!(settings.bind.to_string(), "0.0.0.0");
        assert_eq!(settings.port, 5000);
        assert_eq!(settings.data_dir, PathBuf::from("./netcfg-data"));
        assert_eq!(settings.version().unwrap(), ApiVersion::V5_1);
        assert_eq!(settings.default_instance, "sim");
    }

    #[test]
    fn command_line_beats_environment_beats_file_beats_defaults() {
        let mut file = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
        writeln!(
            file,
            "port = 6000\nbind = \"127.0.0.1\"\ndata_dir = \"/from/file\"\napi_version = \"5.0\""
        )
        .unwrap();
        let path = file.path().to_str().unwrap().to_owned();

        let from_file = Settings::load(&cli(&["--config", &path]), Vec::new()).unwrap();
        assert_eq!(
            (from_file.port, from_file.bind.to_string()),
            (6000, "127.0.0.1".to_owned())
        );
        assert_eq!(from_file.version().unwrap(), ApiVersion::V5_0);

        let env = environment(&[
            ("NETCFG_PORT", "7000"),
            ("NETCFG_DATA_DIR", "/from/env"),
            ("OTHER_PORT", "1"),
        ]);
        let from_env = Settings::load(&cli(&["--config", &path]), env.clone()).unwrap();
        assert_eq!(from_env.port, 7000);
        assert_eq!(from_env.data_dir, PathBuf::from("/from/env"));
        assert_eq!(from_env.bind.to_string(), "127.0.0.1");

        let from_cli = Settings::load(
            &cli(&["--config", &path, "--port", "8000", "--api-version", "5.1"]),
            env,
        )
        .unwrap();
        assert_eq!(from_cli.port, 8000);
        assert_eq!(from_cli.data_dir, PathBuf::from("/from/env"));
        assert_eq!(from_cli.version().unwrap(), ApiVersion::V5_1);
    }

    /// docs/configuration.md holds the table that [`reference_table`] writes.
    #[test]
    fn the_configuration_reference_is_current() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/configuration.md");
        let mut expected = netcfg_expect::Expected::new();
        expected.section(
            &path,
            "<!-- keys:start -->\n",
            "<!-- keys:end -->",
            &reference_table(),
        );
        expected.assert();
    }

    #[test]
    fn tokens_come_from_the_file_and_bad_ones_stop_the_server() {
        let mut file = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
        writeln!(
            file,
            "[auth]\ntokens = [\n  {{ token = \"a-long-admin-secret\", access = \"admin\", name = \"site engineer\" }},\n  {{ sha256 = \"{}\", access = \"read-only\" }},\n]",
            "ab".repeat(32)
        )
        .unwrap();
        let settings = Settings::load(
            &cli(&["--config", file.path().to_str().unwrap()]),
            Vec::new(),
        )
        .unwrap();
        assert!(settings.auth().unwrap().is_on());
        assert!(
            !format!("{settings:?}").contains("a-long-admin-secret"),
            "a secret reached Debug"
        );
        assert!(
            !Settings::load(&cli(&[]), Vec::new())
                .unwrap()
                .auth()
                .unwrap()
                .is_on()
        );

        let mut bad = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
        writeln!(
            bad,
            "[auth]\ntokens = [{{ token = \"short\", access = \"admin\" }}]"
        )
        .unwrap();
        let error = Settings::load(
            &cli(&["--config", bad.path().to_str().unwrap()]),
            Vec::new(),
        )
        .unwrap_err();
        assert!(format!("{error:#}").contains("auth.tokens[0]"), "{error:#}");
    }

    #[test]
    fn bad_settings_are_refused_with_the_key_named() {
        let error = Settings::load(&cli(&["--api-version", "4.0"]), Vec::new()).unwrap_err();
        assert!(format!("{error:#}").contains("api_version"), "{error:#}");
        let error =
            Settings::load(&cli(&[]), environment(&[("NETCFG_PORT", "seventy")])).unwrap_err();
        assert!(format!("{error:#}").contains("port"), "{error:#}");
        let mut file = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
        writeln!(file, "prot = 1").unwrap();
        let error = Settings::load(
            &cli(&["--config", file.path().to_str().unwrap()]),
            Vec::new(),
        )
        .unwrap_err();
        assert!(format!("{error:#}").contains("prot"), "{error:#}");
        assert!(Settings::load(&cli(&["--config", "/no/such/file.toml"]), Vec::new()).is_err());
        let error = Settings::load(
            &cli(&[]),
            environment(&[("NETCFG_RECORDING_LIMIT", "12 parsecs")]),
        )
        .unwrap_err();
        assert!(
            format!("{error:#}").contains("recording_limit"),
            "{error:#}"
        );
    }

    #[test]
    fn sizes_read_with_their_units() {
        let settings = Settings::load(
            &cli(&[]),
            environment(&[
                ("NETCFG_RECORDING_LIMIT", "64KiB"),
                ("NETCFG_RECORDINGS_LIMIT", "2 GiB"),
                ("NETCFG_RECORDING_KEEP_FREE", "1000"),
            ]),
        )
        .unwrap();
        let limits = settings.recording_limits().unwrap();
        assert_eq!(
            (limits.per_recording, limits.total, limits.keep_free),
            (64 << 10, 2 << 30, 1000)
        );
    }
}
