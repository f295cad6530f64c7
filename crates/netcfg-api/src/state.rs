//! The application's state: the route tables, their published descriptions
//! and the server's defaults.

use crate::{openapi, table::Table, version::ApiVersion};

/// Everything the handlers share.
#[derive(Debug)]
pub struct AppState {
    pub(crate) default_version: ApiVersion,
    tables: Vec<(Table, serde_json::Value)>,
}

impl AppState {
    /// State serving `tables` (one per version), answering with
    /// `default_version` when a request does not choose.
    ///
    /// # Panics
    /// When a version has no table: a wiring bug caught by the first test.
    pub fn new(default_version: ApiVersion, tables: Vec<Table>) -> Self {
        let tables: Vec<(Table, serde_json::Value)> = tables
            .into_iter()
            .map(|table| {
                let document = openapi::document(&table);
                (table, document)
            })
            .collect();
        for version in ApiVersion::ALL {
            assert!(
                tables.iter().any(|(table, _)| table.version == version),
                "no route table for version {version}"
            );
        }
        Self {
            default_version,
            tables,
        }
    }

    /// The version that answers requests that do not choose one.
    pub fn default_version(&self) -> ApiVersion {
        self.default_version
    }

    /// The table of `version`.
    pub fn table(&self, version: ApiVersion) -> &Table {
        &self.entry(version).0
    }

    /// The OpenAPI document of `version`.
    pub fn document(&self, version: ApiVersion) -> &serde_json::Value {
        &self.entry(version).1
    }

    /// Every table.
    pub fn tables(&self) -> impl Iterator<Item = &Table> {
        self.tables.iter().map(|(table, _)| table)
    }

    fn entry(&self, version: ApiVersion) -> &(Table, serde_json::Value) {
        self.tables
            .iter()
            .find(|(table, _)| table.version == version)
            .unwrap_or(&self.tables[0])
    }
}
