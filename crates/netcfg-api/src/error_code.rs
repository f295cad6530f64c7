//! The one table of error codes: every error response carries one, so that
//! clients tell errors apart by `code`, never by parsing `message`
//! (decisions.md §2). `docs/api/errors.md` lists this table; a test keeps
//! the two equal.

use actix_web::http::StatusCode;

macro_rules! error_codes {
    ($($(#[$doc:meta])* $variant:ident = ($status:ident, $code:literal, $meaning:literal),)+) => {
        /// The kind of an error, sent as the response's `code`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($(#[$doc])* $variant,)+
        }

        impl ErrorCode {
            /// Every code, in the table's order.
            pub const ALL: &'static [Self] = &[$(Self::$variant,)+];

            /// The code as sent: a stable snake_case word.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $code,)+
                }
            }

            /// The status this kind of error answers (a 5.0 row may send
            /// another: its remaps keep the code).
            pub const fn status(self) -> StatusCode {
                match self {
                    $(Self::$variant => StatusCode::$status,)+
                }
            }

            /// What the code means, for the documentation.
            pub const fn meaning(self) -> &'static str {
                match self {
                    $(Self::$variant => $meaning,)+
                }
            }
        }
    };
}

error_codes! {
    /// The JSON body breaks the rules of its type.
    InvalidBody = (BAD_REQUEST, "invalid_body", "The body breaks the rules of its type; `problems` lists every problem with its field."),
    /// The body is not JSON.
    MalformedJson = (BAD_REQUEST, "malformed_json", "The body is not valid JSON."),
    /// A path or query parameter has the wrong form.
    InvalidParameter = (BAD_REQUEST, "invalid_parameter", "A path or query parameter has the wrong form; `problems` names it."),
    /// The `Api-Version` header names no version this server serves.
    UnsupportedApiVersion = (BAD_REQUEST, "unsupported_api_version", "The `Api-Version` header names a version this server does not serve."),
    /// The upload's multipart form is malformed or incomplete.
    InvalidUpload = (BAD_REQUEST, "invalid_upload", "The upload's multipart form is malformed, or lacks the file or a usable name."),
    /// The uploaded file is not a configuration this server can take.
    UploadRefused = (BAD_REQUEST, "upload_refused", "The uploaded file is not a configuration this server can take (not SQLite, another application's, damaged, newer, or holding unreadable values), or not a recording (not a classic pcap capture, cut short, or holding no CDP datagram); nothing was written."),
    /// A command to a configuration that is not running.
    ConfigurationNotRunning = (BAD_REQUEST, "configuration_not_running", "The command needs a running configuration."),
    /// The device or network refused the command.
    CommandRefused = (BAD_REQUEST, "command_refused", "The device or the network refused the command, or it cannot be sent as given."),
    /// No identity, or one that does not work.
    Unauthorized = (UNAUTHORIZED, "unauthorized", "Access control is on and the request shows no live identity (none, an unknown one, or an ended session, a revoked or expired key, a disabled user), or a sign-in's name or password is wrong."),
    /// A single sign-on is refused.
    SignOnRefused = (UNAUTHORIZED, "sign_on_refused", "A single sign-on through the OpenID provider is refused: the provider refused, its ID token did not verify, the sign-in is unknown, older than 10 minutes or begun in another browser, the person's claims give no role, or its name is a user with a password; the message says which."),
    /// Too little role.
    Forbidden = (FORBIDDEN, "forbidden", "The identity's role is less than the route needs (the message names it), or the change is another user's or an admin's."),
    /// A change by a cookie session without its CSRF token.
    Csrf = (FORBIDDEN, "csrf", "A change authenticated by the session cookie lacks the header `X-CSRF-Token` with the session's token (`GET /session` gives it)."),
    /// No route has this path.
    RouteNotFound = (NOT_FOUND, "route_not_found", "No route of either API version has this path."),
    /// The path exists only in the other version's table.
    RouteInOtherVersion = (NOT_FOUND, "route_in_other_version", "The path exists only in the other API version; the message says which header selects it."),
    /// The configuration does not exist.
    ConfigurationNotFound = (NOT_FOUND, "configuration_not_found", "The configuration named in the path does not exist (or the user may not see it)."),
    /// No such user.
    UserNotFound = (NOT_FOUND, "user_not_found", "The user named in the path does not exist."),
    /// Single sign-on is not set up.
    SignOnNotConfigured = (NOT_FOUND, "sign_on_not_configured", "Single sign-on is not set up on this server (`auth.oidc` in the configuration file)."),
    /// No such API key.
    ApiKeyNotFound = (NOT_FOUND, "api_key_not_found", "The user has no API key of the name in the path."),
    /// The device is not in the configuration.
    DeviceNotFound = (NOT_FOUND, "device_not_found", "A device the request names is not in the configuration."),
    /// The interface does not exist.
    InterfaceNotFound = (NOT_FOUND, "interface_not_found", "The device has no interface with this identifier."),
    /// The role does not exist (or the interface does not have it).
    RoleNotFound = (NOT_FOUND, "role_not_found", "The role does not exist, or the interface does not have it."),
    /// The RF setting does not exist.
    RfSettingNotFound = (NOT_FOUND, "rf_setting_not_found", "The RF setting does not exist."),
    /// The data stream does not exist.
    DataStreamNotFound = (NOT_FOUND, "data_stream_not_found", "The data stream does not exist."),
    /// The position limit does not exist.
    PositionLimitNotFound = (NOT_FOUND, "position_limit_not_found", "The position limit does not exist."),
    /// The alert rule does not exist.
    AlertRuleNotFound = (NOT_FOUND, "alert_rule_not_found", "The configuration has no alert rule with this name."),
    /// The schedule does not exist.
    ScheduleNotFound = (NOT_FOUND, "schedule_not_found", "The configuration has no schedule with this name."),
    /// The zone does not exist.
    ZoneNotFound = (NOT_FOUND, "zone_not_found", "The configuration has no zone with this name."),
    /// The output does not exist.
    OutputNotFound = (NOT_FOUND, "output_not_found", "The configuration has no output with this name."),
    /// The recording does not exist.
    RecordingNotFound = (NOT_FOUND, "recording_not_found", "The configuration has no recording with this name."),
    /// No survey was made of this configuration yet.
    SurveyNotFound = (NOT_FOUND, "survey_not_found", "No survey of this configuration's anchors was made yet: POST one while it runs."),
    /// The setting does not exist.
    SettingNotFound = (NOT_FOUND, "setting_not_found", "The setting does not exist (in the configuration, or in the catalogue of default settings)."),
    /// The notification does not exist.
    NotificationNotFound = (NOT_FOUND, "notification_not_found", "The notification does not exist (or was pruned)."),
    /// The log file does not exist.
    LogFileNotFound = (NOT_FOUND, "log_file_not_found", "The configuration has no log file with this name."),
    /// The two interfaces are not paired.
    DevicePairNotFound = (NOT_FOUND, "device_pair_not_found", "The interfaces are not paired."),
    /// The device has no magnetometer calibration.
    CalibrationNotFound = (NOT_FOUND, "calibration_not_found", "The device has no magnetometer calibration."),
    /// The change history has no such entry.
    HistoryEntryNotFound = (NOT_FOUND, "history_entry_not_found", "The configuration's history never had a change with this id (a change pruned by the retention is 409 `history_pruned`)."),
    /// The method is not served on this path.
    MethodNotAllowed = (METHOD_NOT_ALLOWED, "method_not_allowed", "The path exists but not with this method; the `Allow` header lists the methods it has."),
    /// The change would leave no enabled admin.
    LastAdmin = (CONFLICT, "last_admin", "The change would leave no enabled admin: the last one cannot be deleted, disabled or given a lower role."),
    /// A name, serial number, id or key is taken.
    NameTaken = (CONFLICT, "name_taken", "A name, serial number, id or key the request gives is taken."),
    /// The item is in use.
    InUse = (CONFLICT, "in_use", "The item is in use (a role interfaces have, the active RF setting, a device's last interface)."),
    /// A built-in item.
    BuiltIn = (CONFLICT, "built_in", "A built-in item (roles 0 to 4, the default RF setting, the Config, Anchor and User streams) cannot be deleted or renamed."),
    /// Every identifier has been used.
    IdsExhausted = (CONFLICT, "ids_exhausted", "Every identifier of this kind of item has been used."),
    /// The interfaces are paired already.
    AlreadyPaired = (CONFLICT, "already_paired", "The interfaces are paired already."),
    /// The history does not fit the configuration's content.
    HistoryDiverged = (CONFLICT, "history_diverged", "The configuration's history does not fit its content (the file was changed by another program), so it cannot be restored; nothing was changed."),
    /// A restore to a change the retention pruned.
    HistoryPruned = (CONFLICT, "history_pruned", "The change was pruned from the history (the server's `history_keep` or `history_keep_days`), so the configuration cannot be restored to it; nothing was changed. The history's oldest entry is the furthest a restore reaches."),
    /// The change needs a stopped configuration.
    ConfigurationRunning = (CONFLICT, "configuration_running", "The change cannot be made while the configuration runs; stop it first."),
    /// The report needs a running configuration.
    ConfigurationStopped = (CONFLICT, "configuration_stopped", "The report needs the configuration's network running; start it first."),
    /// Another program holds the configuration's file.
    ConfigurationLocked = (CONFLICT, "configuration_locked", "Another program holds the configuration's file; try again later."),
    /// The saved-state file is newer than this server.
    SchemaTooNew = (CONFLICT, "schema_too_new", "The configuration's file was written by a newer version of this server."),
    /// The configuration's instance cannot run.
    InstanceUnavailable = (CONFLICT, "instance_unavailable", "The configuration's instance cannot run: no such serial port, the port is busy, an unknown simulator scenario, or no default instance."),
    /// No room for a recording.
    NoRoom = (CONFLICT, "no_room", "The recordings' total limit, or the free space the disk must keep, leaves no room for a recording: delete some recordings."),
    /// The running configuration is not a replay.
    NotAReplay = (CONFLICT, "not_a_replay", "The configuration does not replay a recording: its instance is not `replay:<net_name>/<recording>`."),
    /// The calculator's inputs conflict.
    InputsConflict = (CONFLICT, "inputs_conflict", "The maximum-tag calculation's inputs conflict with each other or with the configuration; `problems` names the fields."),
    /// The `If-Match` tag is stale.
    PreconditionFailed = (PRECONDITION_FAILED, "precondition_failed", "The `If-Match` tag is not the current one: the resource (or its configuration) changed since it was read; nothing was changed. Read it again."),
    /// Too many failed sign-ins from the address or for the account.
    TooManySignInFailures = (TOO_MANY_REQUESTS, "too_many_sign_in_failures", "Too many failed sign-ins from this address or for this account lately (10 at once, then one every 6 s); try again after `Retry-After` seconds."),
    /// Too many unknown tokens from this client.
    TooManyTokenFailures = (TOO_MANY_REQUESTS, "too_many_token_failures", "The client sent too many unknown tokens or API keys lately (10 at once, then one every 6 s); its tokens are not checked until `Retry-After` seconds have passed."),
    /// The body is larger than its limit.
    BodyTooLarge = (PAYLOAD_TOO_LARGE, "body_too_large", "The body is larger than its limit (1 MiB for JSON, 64 MiB for an upload)."),
    /// The body has the wrong media type.
    UnsupportedMediaType = (UNSUPPORTED_MEDIA_TYPE, "unsupported_media_type", "The body's `Content-Type` is not the one the route takes."),
    /// No pair could be made or removed.
    PairingFailed = (EXPECTATION_FAILED, "pairing_failed", "None of the pairs could be made or removed; the message says why for each."),
    /// The server failed.
    Internal = (INTERNAL_SERVER_ERROR, "internal_error", "The server failed; `incident` identifies the cause in the server's log."),
    /// The data directory is full.
    DiskFull = (INTERNAL_SERVER_ERROR, "disk_full", "The data directory is full: nothing was changed; free space and try again."),
    /// The data directory cannot be written.
    DataDirectoryReadOnly = (INTERNAL_SERVER_ERROR, "data_directory_read_only", "The data directory cannot be written (read-only or not permitted): nothing was changed."),
    /// The link to the network's interface device is down.
    LinkDown = (INTERNAL_SERVER_ERROR, "link_down", "The link to the network's interface device is down, or it answered what it should not."),
    /// The OpenID provider failed.
    SignOnProviderFailed = (BAD_GATEWAY, "sign_on_provider_failed", "The OpenID provider could not be reached or answered wrongly (its discovery document, keys, token or user info endpoint); the message says which."),
    /// A device did not answer in time.
    DeviceTimeout = (GATEWAY_TIMEOUT, "device_timeout", "A device did not answer in time."),
    /// The network did not answer in time.
    NetworkTimeout = (GATEWAY_TIMEOUT, "network_timeout", "The network's interface device did not answer in time."),
}

impl ErrorCode {
    /// The table as `docs/api.md` shows it: one row per code.
    pub fn markdown_table() -> String {
        let mut table = String::from("| code | status | meaning |\n|---|---|---|\n");
        for code in Self::ALL {
            table.push_str(&format!(
                "| `{}` | {} | {} |\n",
                code.as_str(),
                code.status().as_u16(),
                code.meaning()
            ));
        }
        table
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/api/errors.md` lists exactly this table; `UPDATE_EXPECT=1`
    /// rewrites it.
    #[test]
    fn docs_api_errors_md_lists_every_code() {
        const START: &str =
            "<!-- error codes: written from netcfg_api::ErrorCode; a test keeps them equal -->\n";
        const END: &str = "<!-- end of error codes -->";
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/api/errors.md");
        let mut expected = netcfg_expect::Expected::new();
        expected.section(&path, START, END, &ErrorCode::markdown_table());
        expected.assert();
    }

    #[test]
    fn codes_are_unique_snake_case_words() {
        let mut seen = std::collections::BTreeSet::new();
        for code in ErrorCode::ALL {
            let text = code.as_str();
            assert!(seen.insert(text), "{text} twice");
            assert!(
                text.bytes()
                    .all(|byte| byte.is_ascii_lowercase() || byte == b'_'),
                "{text}"
            );
        }
    }
}
