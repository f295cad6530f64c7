//! The bench's figures, each beside its target from issue 8, written as
//! JSON, as a Markdown table, and as an SVG chart of latency by connection
//! count.

use std::fmt::Write as _;

use super::wrk::Load;

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

/// Everything one run measured.
pub(crate) struct Figures {
    pub(crate) seconds_per_point: u32,
    pub(crate) devices: usize,
    pub(crate) response_bytes: usize,
    pub(crate) reads: Vec<ReadPoint>,
    pub(crate) writes_1: Load,
    pub(crate) writes_32: Load,
    pub(crate) growth: Growth,
    pub(crate) footprint: Footprint,
    /// `/proc/loadavg` before and after: other work on the machine.
    pub(crate) load_average: [String; 2],
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
    pub(crate) fn lines(&self) -> Vec<Line> {
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
                target: ">= 0.5",
                met: Some(point.ratio() >= 0.5),
            });
            lines.push(Line {
                key: "reads_latency_64",
                what: "reads: GET devices latency p50 / p99, 64 connections".to_owned(),
                value: format!(
                    "{:.2} / {:.2} ms",
                    point.devices.p50_ms, point.devices.p99_ms
                ),
                target: "",
                met: None,
            });
        }
        let writes = self.writes_32.rate() / self.writes_1.rate();
        lines.push(Line {
            key: "writes_ratio",
            what: format!(
                "durable writes: PATCH 32 / 1 connections ({:.0} / {:.0} req/s)",
                self.writes_32.rate(),
                self.writes_1.rate()
            ),
            value: format!("{writes:.2}"),
            target: ">= 5",
            met: Some(writes >= 5.0),
        });
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
        text
    }

    /// `report.md`.
    pub(crate) fn markdown(&self) -> String {
        let mut md = String::from("# Benchmark report (`cargo xtask bench`)\n\n");
        let _ = writeln!(
            md,
            "Release build on loopback, wrk, {} s per point; the site: {} devices (50 anchors, 1,000 tags), `GET /nets/bench/devices` is {} bytes. Load average before / after: {} / {} (other work on the machine makes the figures noisy). What each figure means: docs/benchmarks.md.\n",
            self.seconds_per_point,
            self.devices,
            self.response_bytes,
            self.load_average[0],
            self.load_average[1]
        );
        md.push_str("| figure | measured | target | met |\n|---|---|---|---|\n");
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
        md.push_str("\n## Durable writes\n\n| connections | PATCH req/s | p50 / p99 ms | errors |\n|---|---|---|---|\n");
        for load in [&self.writes_1, &self.writes_32] {
            let _ = writeln!(
                md,
                "| {} | {:.0} | {:.2} / {:.2} | {} |",
                load.connections,
                load.rate(),
                load.p50_ms,
                load.p99_ms,
                load.errors
            );
        }
        md.push_str("\n![latency by connection count](latency.svg)\n");
        md
    }

    /// `report.json`.
    pub(crate) fn json(&self) -> String {
        let load = |load: &Load| {
            format!(
                r#"{{"connections": {}, "requests": {}, "seconds": {:.3}, "requests_per_second": {:.1}, "errors": {}, "latency_ms": {{"p50": {:.3}, "p90": {:.3}, "p99": {:.3}, "max": {:.3}}}}}"#,
                load.connections,
                load.requests,
                load.seconds,
                load.rate(),
                load.errors,
                load.p50_ms,
                load.p90_ms,
                load.p99_ms,
                load.max_ms
            )
        };
        let numbers = |samples: &[f64]| {
            let items: Vec<String> = samples.iter().map(|ms| format!("{ms:.3}")).collect();
            format!("[{}]", items.join(", "))
        };
        let reads: Vec<String> = self
            .reads
            .iter()
            .map(|point| {
                format!(
                    "    {{\"connections\": {}, \"ratio\": {:.4}, \"devices\": {}, \"baseline\": {}}}",
                    point.devices.connections,
                    point.ratio(),
                    load(&point.devices),
                    load(&point.baseline)
                )
            })
            .collect();
        let summary: Vec<String> = self
            .lines()
            .iter()
            .map(|line| {
                format!(
                    "    {{\"key\": {}, \"figure\": {}, \"value\": {}, \"target\": {}, \"met\": {}}}",
                    json_string(line.key),
                    json_string(&line.what),
                    json_string(&line.value),
                    json_string(line.target),
                    line.met.map_or("null".to_owned(), |met| met.to_string())
                )
            })
            .collect();
        let footprint = &self.footprint;
        let growth = &self.growth;
        format!(
            r#"{{
  "seconds_per_point": {seconds},
  "site_devices": {devices},
  "devices_response_bytes": {bytes},
  "load_average": [{load_before}, {load_after}],
  "summary": [
{summary}
  ],
  "reads": [
{reads}
  ],
  "writes": {{"ratio_32_to_1": {write_ratio:.3}, "connections_1": {w1}, "connections_32": {w32}}},
  "growth": {{"ratio": {growth_ratio:.3}, "early_at": {early_at}, "late_at": {late_at}, "early_median_ms": {early_median:.3}, "late_median_ms": {late_median:.3}, "early_ms": {early}, "late_ms": {late}}},
  "footprint": {{"configurations": {configurations}, "devices_each": {devices_each}, "startup_full_ms": {startup_full}, "startup_empty_ms": {startup_empty}, "startup_full_median_ms": {full_median:.3}, "startup_empty_median_ms": {empty_median:.3}, "rss_idle_full_kb": {idle_full}, "rss_idle_empty_kb": {idle_empty}, "rss_idle_before_load_kb": {idle_before}, "rss_idle_after_load_kb": {idle_after}, "rss_load_peak_kb": {peak}}}
}}
"#,
            seconds = self.seconds_per_point,
            devices = self.devices,
            bytes = self.response_bytes,
            load_before = json_string(&self.load_average[0]),
            load_after = json_string(&self.load_average[1]),
            summary = summary.join(",\n"),
            reads = reads.join(",\n"),
            write_ratio = self.writes_32.rate() / self.writes_1.rate(),
            w1 = load(&self.writes_1),
            w32 = load(&self.writes_32),
            growth_ratio = growth.ratio(),
            early_at = growth.early_at,
            late_at = growth.late_at,
            early_median = median(&growth.early_ms),
            late_median = median(&growth.late_ms),
            early = numbers(&growth.early_ms),
            late = numbers(&growth.late_ms),
            configurations = footprint.configurations,
            devices_each = footprint.devices_each,
            startup_full = numbers(&footprint.startup_full_ms),
            startup_empty = numbers(&footprint.startup_empty_ms),
            full_median = median(&footprint.startup_full_ms),
            empty_median = median(&footprint.startup_empty_ms),
            idle_full = footprint.rss_idle_full_kb,
            idle_empty = footprint.rss_idle_empty_kb,
            idle_before = footprint.rss_idle_before_kb,
            idle_after = footprint.rss_idle_after_kb,
            peak = footprint.rss_load_peak_kb,
        )
    }
}

fn mb(kb: u64) -> String {
    format!("{:.1} MB", kb as f64 / 1024.0)
}

/// A JSON string literal.
pub(crate) fn json_string(text: &str) -> String {
    let mut quoted = String::from("\"");
    for character in text.chars() {
        match character {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(quoted, "\\u{:04x}", c as u32);
            }
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_string("a \"b\"\\\n"), r#""a \"b\"\\\n""#);
        assert_eq!(json_string("\u{1}"), r#""\u0001""#);
    }
}
