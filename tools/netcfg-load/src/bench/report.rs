//! The bench's figures, each beside its goal (issues 8 and 12, and the
//! live events'), printed, and written as a Markdown table and as JSON.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::wrk::Load;

mod events;
mod writes;
pub(crate) use events::{EventFigures, EventRun};
pub(crate) use writes::{WritePath, WritePoint};

/// Reads of the devices route and of the baseline, at one connection count.
pub(crate) struct ReadPoint {
    pub(crate) devices: Load,
    pub(crate) baseline: Load,
}

impl ReadPoint {
    /// Devices rate over baseline rate.
    pub(crate) fn ratio(&self) -> f64 {
        self.devices.rate() / self.baseline.rate()
    }

    /// Devices p99 latency over baseline p99 latency.
    pub(crate) fn p99_ratio(&self) -> f64 {
        self.devices.p99_ms / self.baseline.p99_ms
    }
}

/// Per-request times of single adds around two sizes of a configuration.
pub(crate) struct Growth {
    pub(crate) early_at: usize,
    pub(crate) late_at: usize,
    pub(crate) early_ms: Vec<f64>,
    pub(crate) late_ms: Vec<f64>,
}

impl Growth {
    pub(crate) fn ratio(&self) -> f64 {
        median(&self.late_ms) / median(&self.early_ms)
    }
}

/// Start-up and memory.
pub(crate) struct Footprint {
    pub(crate) configurations: usize,
    pub(crate) devices_each: usize,
    pub(crate) startup_empty_ms: Vec<f64>,
    pub(crate) startup_full_ms: Vec<f64>,
    /// The server with the 100 configurations, a second after its first
    /// answer.
    pub(crate) rss_idle_full_kb: u64,
    /// The server with an empty data directory, likewise.
    pub(crate) rss_idle_empty_kb: u64,
    /// The bench server with the site loaded, before and after the load.
    pub(crate) rss_idle_before_kb: u64,
    pub(crate) rss_idle_after_kb: u64,
    /// The highest resident memory seen during the read and write runs.
    pub(crate) rss_load_peak_kb: u64,
}

/// What the site's steps measured.
pub(crate) struct Figures {
    pub(crate) devices: usize,
    pub(crate) response_bytes: usize,
    pub(crate) reads: Vec<ReadPoint>,
    /// The disk's sync and the durable writes beside it.
    pub(crate) writes: WritePath,
    pub(crate) growth: Growth,
    pub(crate) footprint: Footprint,
}

/// Cores used over an interval, by the server, by this process (the
/// events' subscribers), and by everything else (wrk and other work on the
/// machine).
#[derive(Debug, Clone, Copy)]
pub(crate) struct CpuSplit {
    pub(crate) server: f64,
    pub(crate) client: f64,
    pub(crate) rest: f64,
}

impl CpuSplit {
    pub(crate) fn text(&self) -> String {
        format!(
            "server {:.2}, subscribers {:.2}, rest {:.2} cores",
            self.server, self.client, self.rest
        )
    }

    fn json(&self) -> Value {
        json!({"server": self.server, "subscribers": self.client, "rest": self.rest})
    }
}

/// Everything one run measured: the site's figures and the live events',
/// either of which `--only` may leave out.
pub(crate) struct Report {
    pub(crate) seconds_per_point: u32,
    /// `/proc/loadavg` before and after: other work on the machine.
    pub(crate) load_average: [String; 2],
    pub(crate) site: Option<Figures>,
    pub(crate) events: Option<EventFigures>,
}

/// The median of some samples (0 when there are none).
pub(crate) fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// The `percent` percentile of some samples, nearest rank (0 when there
/// are none).
pub(crate) fn percentile(samples: &[f64], percent: usize) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = (sorted.len() * percent).div_ceil(100).max(1);
    sorted.get(rank - 1).copied().unwrap_or(0.0)
}

/// One figure of the summary, with its target.
pub(crate) struct Line {
    pub(crate) key: &'static str,
    pub(crate) what: String,
    pub(crate) value: String,
    pub(crate) target: &'static str,
    pub(crate) met: Option<bool>,
}

const IDLE_TARGET_KB: u64 = 20 * 1024;

impl Figures {
    fn read_at(&self, connections: u32) -> Option<&ReadPoint> {
        self.reads
            .iter()
            .find(|point| point.devices.connections == connections)
    }

    /// The headline figures, each with its target.
    fn lines(&self) -> Vec<Line> {
        let mut lines = self.read_lines();
        lines.extend(self.writes.lines());
        lines.extend(self.growth_and_footprint_lines());
        lines
    }

    /// The reads' ratios to the baseline at 64 connections.
    fn read_lines(&self) -> Vec<Line> {
        let mut lines = Vec::new();
        if let Some(point) = self.read_at(64) {
            lines.push(Line {
                key: "reads_ratio_64",
                what: format!(
                    "reads: GET devices / baseline, 64 connections ({:.0} / {:.0} req/s)",
                    point.devices.rate(),
                    point.baseline.rate()
                ),
                value: format!("{:.3}", point.ratio()),
                target: ">= 0.9",
                met: Some(point.ratio() >= 0.9),
            });
            lines.push(Line {
                key: "reads_p99_ratio_64",
                what: format!(
                    "reads: p99 GET devices / baseline, 64 connections ({:.2} / {:.2} ms; devices p50 {:.2} ms)",
                    point.devices.p99_ms, point.baseline.p99_ms, point.devices.p50_ms
                ),
                value: format!("{:.2}", point.p99_ratio()),
                target: "<= 1.5",
                met: Some(point.p99_ratio() <= 1.5),
            });
        }
        lines
    }

    /// Growth, start-up and memory.
    fn growth_and_footprint_lines(&self) -> Vec<Line> {
        let mut lines = Vec::new();
        lines.push(Line {
            key: "growth_ratio",
            what: format!(
                "growth: add at device {} / at device {} ({:.2} / {:.2} ms median)",
                self.growth.late_at,
                self.growth.early_at,
                median(&self.growth.late_ms),
                median(&self.growth.early_ms)
            ),
            value: format!("{:.2}", self.growth.ratio()),
            target: "<= 1.5",
            met: Some(self.growth.ratio() <= 1.5),
        });
        let footprint = &self.footprint;
        let (full, empty) = (
            median(&footprint.startup_full_ms),
            median(&footprint.startup_empty_ms),
        );
        lines.push(Line {
            key: "startup",
            what: format!(
                "start-up to first answer: {} configurations of {} devices / empty (median of {})",
                footprint.configurations,
                footprint.devices_each,
                footprint.startup_full_ms.len()
            ),
            value: format!("{full:.0} / {empty:.0} ms = {:.2}", full / empty),
            target: "",
            met: None,
        });
        lines.push(Line {
            key: "rss_idle",
            what: format!(
                "memory idle: RSS with {} configurations (empty data directory: {})",
                footprint.configurations,
                mb(footprint.rss_idle_empty_kb)
            ),
            value: mb(footprint.rss_idle_full_kb),
            target: "< 20 MB",
            met: Some(footprint.rss_idle_full_kb < IDLE_TARGET_KB),
        });
        lines.push(Line {
            key: "rss_load",
            what: "memory under load: peak RSS / idle before / idle after".to_owned(),
            value: format!(
                "{} / {} / {}",
                mb(footprint.rss_load_peak_kb),
                mb(footprint.rss_idle_before_kb),
                mb(footprint.rss_idle_after_kb)
            ),
            target: "",
            met: None,
        });
        lines
    }

    /// report.md's tables of every load point.
    fn markdown(&self, md: &mut String) {
        md.push_str("\n## Reads by connection count\n\n| connections | devices req/s | baseline req/s | ratio | devices p50 / p99 ms | baseline p50 / p99 ms | errors |\n|---|---|---|---|---|---|---|\n");
        for point in &self.reads {
            let _ = writeln!(
                md,
                "| {} | {:.0} | {:.0} | {:.3} | {:.2} / {:.2} | {:.2} / {:.2} | {} |",
                point.devices.connections,
                point.devices.rate(),
                point.baseline.rate(),
                point.ratio(),
                point.devices.p50_ms,
                point.devices.p99_ms,
                point.baseline.p50_ms,
                point.baseline.p99_ms,
                point.devices.errors + point.baseline.errors
            );
        }
        self.writes.markdown(md);
    }

    /// report.json's fields of the site's steps.
    fn json(&self) -> Value {
        let load = load_json;
        let reads: Vec<Value> = self
            .reads
            .iter()
            .map(|point| {
                json!({
                    "connections": point.devices.connections,
                    "ratio": point.ratio(),
                    "p99_ratio": point.p99_ratio(),
                    "devices": load(&point.devices),
                    "baseline": load(&point.baseline),
                })
            })
            .collect();
        let (footprint, growth) = (&self.footprint, &self.growth);
        let mut figures = json!({
            "site_devices": self.devices,
            "devices_response_bytes": self.response_bytes,
            "reads": reads,
            "growth": {
                "ratio": growth.ratio(),
                "early_at": growth.early_at,
                "late_at": growth.late_at,
                "early_median_ms": median(&growth.early_ms),
                "late_median_ms": median(&growth.late_ms),
                "early_ms": growth.early_ms,
                "late_ms": growth.late_ms,
            },
            "footprint": {
                "configurations": footprint.configurations,
                "devices_each": footprint.devices_each,
                "startup_full_ms": footprint.startup_full_ms,
                "startup_empty_ms": footprint.startup_empty_ms,
                "startup_full_median_ms": median(&footprint.startup_full_ms),
                "startup_empty_median_ms": median(&footprint.startup_empty_ms),
                "rss_idle_full_kb": footprint.rss_idle_full_kb,
                "rss_idle_empty_kb": footprint.rss_idle_empty_kb,
                "rss_idle_before_load_kb": footprint.rss_idle_before_kb,
                "rss_idle_after_load_kb": footprint.rss_idle_after_kb,
                "rss_load_peak_kb": footprint.rss_load_peak_kb,
            },
        });
        if let (Some(figures), Value::Object(writes)) =
            (figures.as_object_mut(), self.writes.json())
        {
            figures.extend(writes);
        }
        figures
    }
}

impl Report {
    fn lines(&self) -> Vec<Line> {
        let mut lines = self.site.as_ref().map(Figures::lines).unwrap_or_default();
        lines.extend(self.events.iter().flat_map(EventFigures::lines));
        lines
    }

    /// The console summary.
    pub(crate) fn text(&self) -> String {
        let mut text = String::new();
        for line in self.lines() {
            let verdict = match line.met {
                Some(true) => format!("target {}: met", line.target),
                Some(false) => format!("target {}: NOT met", line.target),
                None => String::new(),
            };
            let _ = writeln!(text, "  {:<86} {:>28}  {verdict}", line.what, line.value);
        }
        let _ = writeln!(
            text,
            "  load average before / after: {} / {}",
            self.load_average[0], self.load_average[1]
        );
        text
    }

    /// `report.md`.
    pub(crate) fn markdown(&self) -> String {
        let mut md = String::from("# Benchmark report (`cargo xtask bench`)\n\n");
        let _ = write!(
            md,
            "Release build on loopback, wrk, {} s per point. Load average before / after: {} / {} (other work on the machine makes the figures noisy). What each figure means: docs/benchmarks.md.",
            self.seconds_per_point, self.load_average[0], self.load_average[1]
        );
        if let Some(site) = &self.site {
            let _ = write!(
                md,
                " The site: {} devices (50 anchors, 1,000 tags), `GET /nets/bench/devices` is {} bytes.",
                site.devices, site.response_bytes
            );
        }
        md.push_str("\n\n| figure | measured | target | met |\n|---|---|---|---|\n");
        for line in self.lines() {
            let met = match line.met {
                Some(true) => "yes",
                Some(false) => "**no**",
                None => "",
            };
            let _ = writeln!(
                md,
                "| {} | {} | {} | {met} |",
                line.what, line.value, line.target
            );
        }
        if let Some(site) = &self.site {
            site.markdown(&mut md);
        }
        if let Some(events) = &self.events {
            events.markdown(&mut md);
        }
        md
    }

    /// `report.json`: the site's fields at the top, the live events' under
    /// `events`.
    pub(crate) fn json(&self) -> String {
        let summary: Vec<Value> = self
            .lines()
            .iter()
            .map(|line| {
                json!({
                    "key": line.key,
                    "figure": line.what,
                    "value": line.value,
                    "target": line.target,
                    "met": line.met,
                })
            })
            .collect();
        let mut report = json!({
            "seconds_per_point": self.seconds_per_point,
            "load_average": self.load_average,
            "summary": summary,
        });
        if let (Some(object), Some(Value::Object(site))) = (
            report.as_object_mut(),
            self.site.as_ref().map(Figures::json),
        ) {
            object.extend(site);
        }
        if let (Some(object), Some(events)) = (report.as_object_mut(), self.events.as_ref()) {
            object.insert("events".to_owned(), events.json());
        }
        let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
        text.push('\n');
        text
    }
}

fn load_json(load: &Load) -> Value {
    json!({
        "connections": load.connections,
        "requests": load.requests,
        "seconds": load.seconds,
        "requests_per_second": load.rate(),
        "errors": load.errors,
        "latency_ms": {
            "p50": load.p50_ms,
            "p90": load.p90_ms,
            "p99": load.p99_ms,
            "max": load.max_ms,
        },
    })
}

fn mb(kb: u64) -> String {
    format!("{:.1} MB", kb as f64 / 1024.0)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::events::tests::events;
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let samples: Vec<f64> = (1..=200).map(f64::from).collect();
        assert_eq!(percentile(&samples, 50), 100.0);
        assert_eq!(percentile(&samples, 99), 198.0);
        assert_eq!(percentile(&samples, 100), 200.0);
        assert_eq!(percentile(&[], 99), 0.0);
    }

    pub(crate) fn load(connections: u32, requests: u64, p50_ms: f64, p99_ms: f64) -> Load {
        Load {
            connections,
            requests,
            seconds: 2.0,
            errors: 0,
            p50_ms,
            p90_ms: p50_ms,
            p99_ms,
            max_ms: p99_ms,
        }
    }

    /// A run that meets every goal, each on its boundary where it has one.
    fn site() -> Figures {
        Figures {
            devices: 1_050,
            response_bytes: 250_000,
            reads: vec![
                ReadPoint {
                    devices: load(1, 1_000, 0.5, 1.0),
                    baseline: load(1, 2_000, 0.4, 0.8),
                },
                ReadPoint {
                    devices: load(64, 18_000, 5.0, 15.0),
                    baseline: load(64, 20_000, 4.0, 10.0),
                },
            ],
            writes: WritePath {
                fdatasync_ms: vec![0.4, 0.5, 0.5, 0.6, 9.0],
                one: WritePoint {
                    get: load(1, 3_000, 0.5, 1.0),
                    patch: load(1, 1_000, 1.25, 3.0),
                    commits: 1_000,
                    changes: 1_000,
                },
                many: WritePoint {
                    get: load(32, 20_000, 3.0, 9.0),
                    patch: load(32, 10_000, 8.0, 20.0),
                    commits: 1_250,
                    changes: 10_000,
                },
            },
            growth: Growth {
                early_at: 10,
                late_at: 10_000,
                early_ms: vec![1.0, 1.0, 7.0],
                late_ms: vec![1.5, 1.5, 0.1],
            },
            footprint: Footprint {
                configurations: 100,
                devices_each: 1_050,
                startup_empty_ms: vec![10.0, 30.0, 20.0],
                startup_full_ms: vec![50.0, 40.0, 60.0],
                rss_idle_full_kb: 20 * 1024 - 1,
                rss_idle_empty_kb: 8 * 1024,
                rss_idle_before_kb: 15_000,
                rss_idle_after_kb: 16_000,
                rss_load_peak_kb: 30_000,
            },
        }
    }

    fn report(site: Option<Figures>, events: Option<EventFigures>) -> Report {
        Report {
            seconds_per_point: 2,
            load_average: ["0.10 0.20 0.30".to_owned(), "1.00 0.50 0.40".to_owned()],
            site,
            events,
        }
    }

    fn verdicts(lines: &[Line]) -> Vec<(&'static str, Option<bool>)> {
        lines.iter().map(|line| (line.key, line.met)).collect()
    }

    #[test]
    fn the_ratios_divide_what_the_goals_say() {
        let site = site();
        assert_eq!(site.reads[1].ratio(), 0.9);
        assert_eq!(site.reads[1].p99_ratio(), 1.5);
        // Medians, so one slow sample does not move the figure.
        assert_eq!(site.growth.ratio(), 1.5);
    }

    #[test]
    fn a_goal_on_its_boundary_is_met_and_past_it_is_not() {
        assert_eq!(
            verdicts(&site().lines()),
            [
                ("reads_ratio_64", Some(true)),
                ("reads_p99_ratio_64", Some(true)),
                ("fdatasync", None),
                ("write_own_cost", Some(true)),
                ("write_concurrent_share", Some(true)),
                ("write_changes_per_commit", Some(true)),
                ("patch_to_fdatasync", None),
                ("writes_ratio", None),
                ("growth_ratio", Some(true)),
                ("startup", None),
                ("rss_idle", Some(true)),
                ("rss_load", None),
            ]
        );
        let mut worse = site();
        worse.reads[1].devices.requests = 17_999;
        worse.reads[1].devices.p99_ms = 15.1;
        worse.writes.one.patch.p50_ms = 1.26;
        worse.writes.many.patch.requests = 9_999;
        worse.writes.many.commits = 1_251;
        worse.growth.late_ms = vec![1.6, 1.6, 1.6];
        worse.footprint.rss_idle_full_kb = 20 * 1024;
        let unmet: Vec<_> = worse
            .lines()
            .iter()
            .filter(|line| line.met == Some(false))
            .map(|line| line.key)
            .collect();
        assert_eq!(
            unmet,
            [
                "reads_ratio_64",
                "reads_p99_ratio_64",
                "write_own_cost",
                "write_concurrent_share",
                "write_changes_per_commit",
                "growth_ratio",
                "rss_idle"
            ]
        );
        // Without a run at 64 connections, no read figure to judge.
        worse.reads.truncate(1);
        assert!(
            !worse
                .lines()
                .iter()
                .any(|line| line.key.starts_with("reads"))
        );
    }

    #[test]
    fn the_console_summary_says_which_targets_are_met() {
        let mut site = site();
        site.writes.many.patch.requests = 1_000;
        let text = report(Some(site), Some(events(vec![0.5], 0))).text();
        assert!(text.contains("target >= 0.9: met"), "{text}");
        assert!(text.contains("target >= 0.5: NOT met"), "{text}");
        assert!(text.contains("target >= 99% each: NOT met"), "{text}");
        assert!(text.contains("50.0% / 50.0% / 50.0%"), "{text}");
        assert!(
            text.ends_with("  load average before / after: 0.10 0.20 0.30 / 1.00 0.50 0.40\n"),
            "{text}"
        );
        // One line per figure, and the load average.
        assert_eq!(text.lines().count(), 12 + 6 + 1);
    }

    #[test]
    fn the_markdown_report_has_the_summary_and_each_parts_tables() {
        let mut unmet = site();
        unmet.growth.late_ms = vec![2.0];
        let md = report(Some(unmet), None).markdown();
        assert!(md.starts_with("# Benchmark report (`cargo xtask bench`)\n"));
        assert!(md.contains("| figure | measured | target | met |"));
        assert!(md.contains("| 2.00 | <= 1.5 | **no** |"), "{md}");
        assert!(md.contains("## Reads by connection count"));
        assert!(md.contains("| 64 | 9000 | 10000 | 0.900 |"), "{md}");
        assert!(md.contains("## Durable writes"));
        assert!(!md.contains("## Live events"));
        let md = report(None, Some(events(vec![1.0], 0))).markdown();
        assert!(md.contains("## Live events"));
        assert!(!md.contains("## Reads by connection count"));
        assert!(!md.contains("The site:"));
    }

    #[test]
    fn the_json_report_holds_the_summary_the_site_at_the_top_and_the_events_below() {
        let json: Value =
            serde_json::from_str(&report(Some(site()), Some(events(vec![1.0, 0.99], 0))).json())
                .unwrap();
        assert_eq!(json["seconds_per_point"], 2);
        let summary = json["summary"].as_array().unwrap();
        assert_eq!(summary.len(), 12 + 6);
        assert_eq!(summary[0]["key"], "reads_ratio_64");
        assert_eq!(summary[0]["met"], true);
        assert_eq!(summary[2]["met"], Value::Null);
        assert_eq!(json["site_devices"], 1_050);
        assert_eq!(json["reads"][1]["ratio"], 0.9);
        assert_eq!(json["writes"]["ratio_32_to_1"], 10.0);
        assert_eq!(json["writes"]["own_cost_ratio"], 1.5);
        assert_eq!(json["writes"]["changes_per_commit_32"], 8.0);
        assert_eq!(json["footprint"]["startup_full_median_ms"], 50.0);
        assert_eq!(
            json["events"]["runs"][0]["memory"]["per_subscriber_kib"],
            32.0
        );
        assert_eq!(
            json["events"]["runs"][0]["batches"]["shares"],
            serde_json::json!([1.0, 0.99])
        );
        let events_only: Value =
            serde_json::from_str(&report(None, Some(events(vec![1.0], 0))).json()).unwrap();
        assert!(events_only.get("footprint").is_none());
        assert_eq!(events_only["summary"].as_array().unwrap().len(), 6);
    }
}
