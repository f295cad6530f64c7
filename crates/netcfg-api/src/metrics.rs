//! Every metric the server publishes (decisions.md §10), in the
//! Prometheus text format: requests by route template, method and status,
//! their latency, and the counters kept elsewhere (the store's commits, the
//! engine's positions and datagrams, the event hub's subscribers and
//! notifications), read when `/metrics` is scraped.

use std::{sync::Mutex, time::Duration};

use actix_web::http::Method;
use prometheus::{
    Counter, Encoder, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};

use netcfg_service::Service;

use crate::events::EventHub;

/// Every metric the server publishes.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: IntCounterVec,
    latency: HistogramVec,
    commits: IntCounter,
    failed_commits: IntCounter,
    committed_changes: IntCounter,
    commit_seconds: Counter,
    positions_received: IntCounter,
    positions_sent: IntCounter,
    datagrams_sent: IntCounter,
    datagrams_dropped: IntCounter,
    notifications: IntCounterVec,
    position_batches: IntCounterVec,
    subscribers: IntGauge,
    running: IntGauge,
    ready: IntGauge,
    /// Each output's counters (decisions §14), by `net` and `output`.
    outputs: OutputGauges,
    /// Scrapes mirror the counters one at a time (see [`mirror`]).
    scraping: Mutex<()>,
}

/// `collector`, registered in `registry` (once: the names are constants).
fn registered<C: prometheus::core::Collector + Clone + 'static>(
    registry: &Registry,
    collector: C,
) -> C {
    registry
        .register(Box::new(collector.clone()))
        .expect("registered once");
    collector
}

fn counter(registry: &Registry, name: &str, help: &str) -> IntCounter {
    registered(
        registry,
        IntCounter::new(name, help).expect("a valid metric name"),
    )
}

fn gauge(registry: &Registry, name: &str, help: &str) -> IntGauge {
    registered(
        registry,
        IntGauge::new(name, help).expect("a valid metric name"),
    )
}

/// The requests answered and their latency, registered in `registry`.
fn http_metrics(registry: &Registry) -> (IntCounterVec, HistogramVec) {
    let requests = registered(
        registry,
        IntCounterVec::new(
            Opts::new(
                "netcfg_http_requests_total",
                "HTTP requests answered, by route template, method and status",
            ),
            &["route", "method", "status"],
        )
        .expect("valid"),
    );
    let latency = registered(
            registry,
            HistogramVec::new(
                HistogramOpts::new(
                    "netcfg_http_request_duration_seconds",
                    "Time from a request's arrival to its response's head, by route template and method",
                )
                .buckets(vec![
                    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                ]),
                &["route", "method"],
            )
            .expect("valid"),
        );
    (requests, latency)
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// The metrics, every one at zero.
    ///
    /// # Panics
    /// Never: the names are constants, registered once each.
    pub fn new() -> Self {
        let registry = Registry::new();
        let (requests, latency) = http_metrics(&registry);
        let notifications = registered(
            &registry,
            IntCounterVec::new(
                Opts::new(
                    "netcfg_notifications_total",
                    "Notifications stored and published, by level",
                ),
                &["level"],
            )
            .expect("valid"),
        );
        let commit_seconds = registered(
            &registry,
            Counter::new(
                "netcfg_store_commit_seconds_total",
                "Time spent committing changes to saved-state files, the sync to the disk included",
            )
            .expect("valid"),
        );
        let position_batches = registered(
            &registry,
            IntCounterVec::new(
                Opts::new(
                    "netcfg_event_position_batches_total",
                    "Position batches sent to live-event subscribers: frames as cut, and catch-up batches standing for several frames a subscriber fell behind on",
                ),
                &["kind"],
            )
            .expect("valid"),
        );
        let outputs = OutputGauges::new(&registry);
        let subscribers = gauge(
            &registry,
            "netcfg_event_subscribers",
            "Clients listening to the live events",
        );
        let running = gauge(
            &registry,
            "netcfg_configurations_running",
            "Configurations whose network runs",
        );
        let ready = gauge(
            &registry,
            "netcfg_ready",
            "1 when the last readiness check passed (GET /readyz), 0 when it failed",
        );
        Self {
            commits: counter(
                &registry,
                "netcfg_store_commits_total",
                "Transactions committed to saved-state files",
            ),
            failed_commits: counter(
                &registry,
                "netcfg_store_failed_commits_total",
                "Transactions whose commit failed (a full or read-only data directory)",
            ),
            committed_changes: counter(
                &registry,
                "netcfg_store_changes_total",
                "Changes committed (several requests' changes share a commit)",
            ),
            positions_received: counter(
                &registry,
                "netcfg_engine_positions_received_total",
                "Tag positions the running networks reported",
            ),
            positions_sent: counter(
                &registry,
                "netcfg_engine_positions_sent_total",
                "Tag positions sent on the User data streams",
            ),
            datagrams_sent: counter(
                &registry,
                "netcfg_engine_datagrams_sent_total",
                "CDP datagrams sent on the data streams",
            ),
            datagrams_dropped: counter(
                &registry,
                "netcfg_engine_datagrams_dropped_total",
                "CDP datagrams that could not be sent",
            ),
            registry,
            requests,
            latency,
            commit_seconds,
            notifications,
            position_batches,
            subscribers,
            running,
            ready,
            outputs,
            scraping: Mutex::new(()),
        }
    }

    /// Counts one answered request.
    pub(crate) fn observe(&self, route: &str, method: &Method, status: u16, took: Duration) {
        let method = method_label(method);
        self.requests
            .with_label_values(&[route, method, status_label(status)])
            .inc();
        self.latency
            .with_label_values(&[route, method])
            .observe(took.as_secs_f64());
    }

    /// Records the outcome of a readiness check.
    pub(crate) fn set_ready(&self, ready: bool) {
        self.ready.set(i64::from(ready));
    }

    /// The text format of every metric, after reading the counters kept
    /// elsewhere.
    pub(crate) fn render(&self, events: &EventHub, service: &Service) -> String {
        {
            let _one_at_a_time = netcfg_model::sync::lock(&self.scraping);
            let store = netcfg_service::store_counters();
            mirror(&self.commits, store.commits);
            mirror(&self.failed_commits, store.failed_commits);
            mirror(&self.committed_changes, store.changes);
            let seconds = store.commit_time.as_secs_f64();
            let behind = seconds - self.commit_seconds.get();
            if behind > 0.0 {
                self.commit_seconds.inc_by(behind);
            }
            let engine = service.engine_counters();
            mirror(&self.positions_received, engine.positions_received);
            mirror(&self.positions_sent, engine.positions_sent);
            mirror(&self.datagrams_sent, engine.datagrams_sent);
            mirror(&self.datagrams_dropped, engine.datagrams_dropped);
            let published = events.notifications_published();
            for (level, count) in ["1", "2", "3", "4"].into_iter().zip(published) {
                mirror(&self.notifications.with_label_values(&[level]), count);
            }
            let (frames, catch_ups) = events.position_batches_sent();
            mirror(&self.position_batches.with_label_values(&["frame"]), frames);
            mirror(
                &self.position_batches.with_label_values(&["catch_up"]),
                catch_ups,
            );
            self.subscribers
                .set(i64::try_from(events.subscribers()).unwrap_or(i64::MAX));
            self.running
                .set(i64::try_from(service.running_count()).unwrap_or(i64::MAX));
            self.outputs.show(service);
        }
        let mut bytes = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut bytes)
            .expect("the text encoder writes to memory");
        String::from_utf8(bytes).expect("the text format is UTF-8")
    }
}

/// The outputs' counters. They start again from zero when their
/// configuration starts, so they are gauges set at each scrape, and an
/// output that is gone leaves the set.
#[derive(Debug)]
struct OutputGauges {
    connected: IntGaugeVec,
    sent: IntGaugeVec,
    queued: IntGaugeVec,
    dropped: IntGaugeVec,
    dropped_events: IntGaugeVec,
}

impl OutputGauges {
    fn new(registry: &Registry) -> Self {
        let gauge = |name: &str, help: &str| {
            let gauge = IntGaugeVec::new(Opts::new(name, help), &["net", "output"]).expect("valid");
            registry
                .register(Box::new(gauge.clone()))
                .expect("registered once");
            gauge
        };
        Self {
            connected: gauge(
                "netcfg_output_connected",
                "1 while an output is connected to its broker (or its webhook's last delivery succeeded)",
            ),
            sent: gauge(
                "netcfg_output_messages_sent",
                "Messages an output delivered since its configuration started",
            ),
            queued: gauge(
                "netcfg_output_messages_queued",
                "Messages waiting in an output's queue",
            ),
            dropped: gauge(
                "netcfg_output_positions_dropped",
                "Positions an output dropped because its queue was full, since its configuration started",
            ),
            dropped_events: gauge(
                "netcfg_output_events_dropped",
                "Events other than positions an output dropped because its queue was full of them",
            ),
        }
    }

    fn show(&self, service: &Service) {
        let all = [
            &self.connected,
            &self.sent,
            &self.queued,
            &self.dropped,
            &self.dropped_events,
        ];
        for gauge in all {
            gauge.reset();
        }
        let as_gauge = |count: u64| i64::try_from(count).unwrap_or(i64::MAX);
        for (net, output, status) in service.output_statuses() {
            let labels = [net.as_str(), output.as_str()];
            self.connected
                .with_label_values(&labels)
                .set(i64::from(status.connected));
            self.sent
                .with_label_values(&labels)
                .set(as_gauge(status.sent));
            self.queued
                .with_label_values(&labels)
                .set(as_gauge(status.queued));
            self.dropped
                .with_label_values(&labels)
                .set(as_gauge(status.dropped));
            self.dropped_events
                .with_label_values(&labels)
                .set(as_gauge(status.dropped_events));
        }
    }
}

/// Brings a counter up to a total counted elsewhere. Totals only grow, and
/// only scrapes (one at a time) move these counters, so the counter always
/// equals the total it mirrors after a scrape.
fn mirror(counter: &IntCounter, total: u64) {
    let shown = counter.get();
    if total > shown {
        counter.inc_by(total - shown);
    }
}

/// Methods as labels: the known ones by name, anything else as `other`,
/// so a client cannot grow the label set.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

fn status_label(status: u16) -> &'static str {
    // Statuses are a small known set; the label is a static string so the
    // hot path does not allocate.
    const KNOWN: [(u16, &str); 20] = [
        (200, "200"),
        (201, "201"),
        (204, "204"),
        (206, "206"),
        (304, "304"),
        (308, "308"),
        (400, "400"),
        (401, "401"),
        (403, "403"),
        (404, "404"),
        (405, "405"),
        (409, "409"),
        (412, "412"),
        (413, "413"),
        (415, "415"),
        (417, "417"),
        (500, "500"),
        (503, "503"),
        (504, "504"),
        (429, "429"),
    ];
    KNOWN
        .iter()
        .find(|(known, _)| *known == status)
        .map_or("other", |(_, label)| label)
}
