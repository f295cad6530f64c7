//! The application's state: the services the handlers use, the route
//! tables, their published descriptions and the server's defaults.

use std::{sync::Arc, time::Duration};

use netcfg_engine::Engine;
use netcfg_store::Store;

use crate::{auth::Auth, openapi, render_cache::RenderCache, table::Table, version::ApiVersion};

/// How long a device command waits for its reply, unless configured.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(5);

/// What the handlers work with: the saved-state files and the engine.
#[derive(Clone)]
pub struct Services {
    /// The saved-state files.
    pub store: Arc<Store>,
    /// The engine that runs configurations.
    pub engine: Arc<dyn Engine>,
    /// How long a device command waits for its reply.
    pub command_timeout: Duration,
}

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Services")
            .field("data_dir", &self.store.data_dir())
            .field("command_timeout", &self.command_timeout)
            .finish_non_exhaustive()
    }
}

/// Everything the handlers share.
#[derive(Debug)]
pub struct AppState {
    pub(crate) default_version: ApiVersion,
    services: Services,
    auth: Auth,
    renders: RenderCache,
    tables: Vec<(Table, serde_json::Value)>,
}

impl AppState {
    /// State serving the API's own tables (5.1 and 5.0) with `services`,
    /// answering with `default_version` when a request does not choose.
    pub fn new(default_version: ApiVersion, services: Services) -> Self {
        Self::with_tables(default_version, services, crate::routes::tables())
    }

    /// State serving `tables` (one per version): for tests of the framework.
    ///
    /// # Panics
    /// When a version has no table: a wiring bug caught by the first test.
    pub fn with_tables(
        default_version: ApiVersion,
        services: Services,
        tables: Vec<Table>,
    ) -> Self {
        let tables: Vec<(Table, serde_json::Value)> = tables
            .into_iter()
            .map(|table| {
                let document = openapi::document_for(&table, false);
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
            services,
            auth: Auth::off(),
            renders: RenderCache::default(),
            tables,
        }
    }

    /// The same state with access control: `auth`'s tokens are required
    /// (see [`Auth`]), and the published documents say so.
    pub fn with_auth(mut self, auth: Auth) -> Self {
        let on = auth.is_on();
        for (table, document) in &mut self.tables {
            *document = openapi::document_for(table, on);
        }
        self.auth = auth;
        self
    }

    /// Rendered lists kept between requests.
    pub(crate) fn renders(&self) -> &RenderCache {
        &self.renders
    }

    /// The access control in force.
    pub fn auth(&self) -> &Auth {
        &self.auth
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

    /// The saved-state files.
    pub fn store(&self) -> &Store {
        &self.services.store
    }

    /// The engine.
    pub fn engine(&self) -> &dyn Engine {
        self.services.engine.as_ref()
    }

    /// A shared handle on the engine, for futures that outlive a borrow.
    pub fn engine_handle(&self) -> Arc<dyn Engine> {
        self.services.engine.clone()
    }

    /// How long a device command waits for its reply.
    pub fn command_timeout(&self) -> Duration {
        self.services.command_timeout
    }

    fn entry(&self, version: ApiVersion) -> &(Table, serde_json::Value) {
        self.tables
            .iter()
            .find(|(table, _)| table.version == version)
            .unwrap_or(&self.tables[0])
    }
}
