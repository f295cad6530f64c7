//! The application's state: the service the handlers call, access
//! control, the rendered lists kept between requests, the live events' hub,
//! the metrics and the server's defaults. The route tables are not here:
//! they are data of their own (`tables.rs`).

use std::sync::Arc;

use netcfg_model::{ConfigName, Notification};
use netcfg_service::{Lifecycle, Observer, Service};

use crate::{
    auth::Auth,
    events::{self, EventHub},
    metrics::Metrics,
    render_cache::RenderCache,
    version::ApiVersion,
};

/// Everything the handlers share.
#[derive(Debug)]
pub struct AppState {
    pub(crate) default_version: ApiVersion,
    service: Service,
    auth: Auth,
    renders: Arc<RenderCache>,
    events: Arc<EventHub>,
    metrics: Metrics,
}

impl AppState {
    /// State serving `service`, answering with `default_version` when a
    /// request does not choose. The service's background work is its own
    /// to start ([`Service::start_background_work`]).
    pub fn new(default_version: ApiVersion, service: impl Into<Service>) -> Self {
        let service = service.into();
        let renders = Arc::new(RenderCache::default());
        let events = Arc::new(EventHub::new());
        service.observe(Arc::new(Listeners {
            renders: renders.clone(),
            events: events.clone(),
        }));
        Self {
            default_version,
            service,
            auth: Auth::off(),
            renders,
            events,
            metrics: Metrics::new(),
        }
    }

    /// The same state with access control: `auth`'s tokens are required
    /// (see [`Auth`]), and the published documents say so.
    pub fn with_auth(mut self, auth: Auth) -> Self {
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

    /// Starts, on `runtime`, the relay that feeds the event hub the
    /// service's site events (positions, zones, devices, networks); stored
    /// notifications and lifecycle steps reach it through the service's
    /// observer. The service's own background work (the notification pump,
    /// alerts, schedules, outputs) is started by [`Service::start_background_work`].
    pub fn start_events(&self, runtime: &tokio::runtime::Handle) {
        runtime.spawn(events::relay_live(
            self.events.clone(),
            self.service.site_events(),
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

    /// The operations on configurations.
    pub fn service(&self) -> &Service {
        &self.service
    }
}

/// Keeps the API's memory and live streams in step with what the service
/// does: a deleted or renamed configuration's rendered lists are dropped,
/// its lifecycle and stored notifications go to the event streams.
struct Listeners {
    renders: Arc<RenderCache>,
    events: Arc<EventHub>,
}

impl Observer for Listeners {
    fn lifecycle(&self, name: &ConfigName, step: Lifecycle<'_>) {
        let (state, renamed_to) = step.state_change();
        self.events.state(name, state, renamed_to);
    }

    fn forget(&self, name: &ConfigName) {
        self.renders.forget(name);
    }

    fn notifications(&self, name: &ConfigName, stored: &[Notification]) {
        self.events.notifications(name, stored);
    }
}
