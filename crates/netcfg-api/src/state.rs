//! The application's state: the services the handlers use, the route
//! tables, their published descriptions and the server's defaults.

use std::{
    sync::{Arc, OnceLock},
    time::Duration,
};

use actix_web::web::Bytes;
use netcfg_engine::Engine;
use netcfg_store::Store;

use crate::{
    auth::Auth,
    events::{self, EventHub},
    openapi,
    operations::Metrics,
    render_cache::RenderCache,
    table::Table,
    version::ApiVersion,
};

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
    events: Arc<EventHub>,
    metrics: Metrics,
    tables: Vec<Published>,
}

/// A route table and its OpenAPI document, rendered on the first request
/// for it: the document is large (hundreds of kilobytes as JSON, many times
/// that as a tree), and a server nobody asks for it need not hold it.
#[derive(Debug)]
struct Published {
    table: Table,
    rendered: OnceLock<Bytes>,
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
        let tables: Vec<Published> = tables
            .into_iter()
            .map(|table| Published {
                table,
                rendered: OnceLock::new(),
            })
            .collect();
        for version in ApiVersion::ALL {
            assert!(
                tables
                    .iter()
                    .any(|published| published.table.version == version),
                "no route table for version {version}"
            );
        }
        Self {
            default_version,
            services,
            auth: Auth::off(),
            renders: RenderCache::default(),
            events: Arc::new(EventHub::new()),
            metrics: Metrics::new(),
            tables,
        }
    }

    /// The same state with access control: `auth`'s tokens are required
    /// (see [`Auth`]), and the published documents say so.
    pub fn with_auth(mut self, auth: Auth) -> Self {
        for published in &mut self.tables {
            published.rendered = OnceLock::new();
        }
        self.auth = auth;
        self
    }

    /// Rendered lists kept between requests.
    pub(crate) fn renders(&self) -> &RenderCache {
        &self.renders
    }

    /// The metrics `GET /metrics` publishes.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// The live events' hub.
    pub fn events(&self) -> &Arc<EventHub> {
        &self.events
    }

    /// Starts, on `runtime`, the tasks that feed the event hub from the
    /// engine: the notification pump (which stores each notification, then
    /// publishes it) and the live relay (positions, devices, networks).
    pub fn start_events(&self, runtime: &tokio::runtime::Handle) {
        runtime.spawn(events::pump_notifications(
            self.services.store.clone(),
            self.events.clone(),
            self.services.engine.subscribe(),
        ));
        runtime.spawn(events::relay_live(
            self.events.clone(),
            self.services.engine.live(),
        ));
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
        &self.entry(version).table
    }

    /// The OpenAPI document of `version`, built anew.
    pub fn document(&self, version: ApiVersion) -> openapi::Document {
        openapi::document_for(self.table(version), self.auth.is_on())
    }

    /// The OpenAPI document of `version` as served (pretty JSON), rendered
    /// once.
    pub(crate) fn document_bytes(&self, version: ApiVersion) -> Bytes {
        let published = self.entry(version);
        published
            .rendered
            .get_or_init(|| {
                let document = self.document(version);
                Bytes::from(
                    serde_json::to_vec_pretty(&document)
                        .expect("a document of strings, maps and schemas always renders"),
                )
            })
            .clone()
    }

    /// Every table.
    pub fn tables(&self) -> impl Iterator<Item = &Table> {
        self.tables.iter().map(|published| &published.table)
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

    fn entry(&self, version: ApiVersion) -> &Published {
        self.tables
            .iter()
            .find(|published| published.table.version == version)
            .unwrap_or(&self.tables[0])
    }
}
