//! The change history of a configuration (decisions §10): who changed what,
//! and when, one entry per change a request made.

/// One change made to a configuration, as its history keeps it.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct HistoryEntry {
    /// The change's identifier: increasing within the configuration.
    pub id: u64,
    /// When it was made, in milliseconds since the Unix epoch.
    pub timestamp_ms: u64,
    /// Who made it: the name of the access token, `anonymous` when access
    /// control is off, `local` for a change made by a program that embeds
    /// the store rather than through the API.
    pub origin: String,
    /// The client's address, when the change came over the network.
    #[serde(default)]
    pub address: Option<String>,
    /// The request's method (`POST`, `PUT`, `PATCH`, `DELETE`), empty for a
    /// local change.
    pub method: String,
    /// The request's path, empty for a local change.
    pub path: String,
    /// One line: what the request was, and how many items it added,
    /// changed and removed.
    pub summary: String,
}

/// Who makes a change and through which request: what the history records
/// beside what changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeRecord {
    /// The access token's name, or `anonymous`.
    pub origin: String,
    /// The client's address, if known.
    pub address: Option<String>,
    /// The request's method.
    pub method: String,
    /// The request's path.
    pub path: String,
    /// What the request was, in a few words (the operation's summary); the
    /// history adds how many items it added, changed and removed.
    pub summary: String,
}

impl ChangeRecord {
    /// The origin of changes made without a request: by a program that
    /// embeds the store.
    pub const LOCAL: &'static str = "local";
    /// The origin of requests when access control is off.
    pub const ANONYMOUS: &'static str = "anonymous";

    /// A change made by the embedding program itself, not through a request.
    pub fn local() -> Self {
        Self {
            origin: Self::LOCAL.to_owned(),
            address: None,
            method: String::new(),
            path: String::new(),
            summary: String::new(),
        }
    }
}
