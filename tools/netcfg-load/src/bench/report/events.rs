//! The live events' figures (bench/events.rs), each beside its goal.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::{CpuSplit, Line, load_json, mb, median, percentile};
use crate::bench::wrk::Load;

/// The goal of the live events' read ratio.
const READ_GOAL: f64 = 0.8;
/// The goal of the live events' memory per subscriber, in KiB.
const RSS_GOAL_KIB: f64 = 32.0;
/// The goal of the share of batches each subscriber receives.
const SHARE_GOAL: f64 = 0.99;
/// The goal of the memory after the last round of subscribers over after
/// the first.
const ROUNDS_GOAL: f64 = 1.10;

/// What the live-events step measured.
pub(crate) struct EventFigures {
    pub(crate) subscribers: usize,
    pub(crate) tags: usize,
    pub(crate) max_rate: u32,
    pub(crate) read_connections: u32,
    /// What one stream carried before the measurement.
    pub(crate) positions_per_second: f64,
    pub(crate) batches_per_second: f64,
    /// The subscribers of each form of position batch.
    pub(crate) runs: Vec<EventRun>,
    /// The server's resident memory after each round of subscribers
    /// connecting, reading and leaving.
    pub(crate) rounds_rss_kb: Vec<u64>,
}

/// The subscribers of one form (`positions=`).
pub(crate) struct EventRun {
    pub(crate) form: &'static str,
    /// REST reads without them and with them reading, round by round, with
    /// the CPU over each.
    pub(crate) without: Vec<(Load, CpuSplit)>,
    pub(crate) with: Vec<(Load, CpuSplit)>,
    /// The server's resident memory before they first connected, with them
    /// connected and warmed up, and a second after they left.
    pub(crate) rss_before_kb: u64,
    pub(crate) rss_with_kb: u64,
    pub(crate) rss_after_kb: u64,
    /// The windows over which batches were counted (whole tenths of a
    /// second), in all; the frames they held by the clock (ten a second);
    /// and each subscriber's share of each round's batches.
    pub(crate) window_seconds: f64,
    pub(crate) frames_by_clock: u32,
    pub(crate) shares: Vec<f64>,
    /// Bytes all subscribers received over the windows.
    pub(crate) received_bytes: u64,
    /// Subscribers whose stream ended or failed before they were stopped.
    pub(crate) ended_early: usize,
    /// Catch-up batches the server sent over the windows (each stands for
    /// several frames a subscriber fell behind on), from `/metrics`.
    pub(crate) catch_ups: u64,
}

impl EventRun {
    /// The median rate with the subscribers over the median without.
    pub(crate) fn read_ratio(&self) -> f64 {
        median_rate(&self.with) / median_rate(&self.without)
    }

    pub(crate) fn rss_per_subscriber_kib(&self, subscribers: usize) -> f64 {
        self.rss_with_kb.saturating_sub(self.rss_before_kb) as f64 / subscribers as f64
    }

    pub(crate) fn share_min(&self) -> f64 {
        percentile(&self.shares, 0)
    }

    pub(crate) fn share_median(&self) -> f64 {
        median(&self.shares)
    }

    pub(crate) fn share_mean(&self) -> f64 {
        self.shares.iter().sum::<f64>() / self.shares.len().max(1) as f64
    }

    fn below_goal(&self) -> usize {
        self.shares
            .iter()
            .filter(|share| **share < SHARE_GOAL)
            .count()
    }

    /// The summary's keys of this form's figures: ratio, memory, batches, CPU.
    fn keys(&self) -> [&'static str; 4] {
        match self.form {
            "compact" => [
                "events_reads_ratio",
                "events_rss_per_subscriber",
                "events_batch_share",
                "events_cpu",
            ],
            _ => [
                "events_objects_reads_ratio",
                "events_objects_rss_per_subscriber",
                "events_objects_batch_share",
                "events_objects_cpu",
            ],
        }
    }
}

/// The median request rate of some runs.
fn median_rate(runs: &[(Load, CpuSplit)]) -> f64 {
    let rates: Vec<f64> = runs.iter().map(|(load, _)| load.rate()).collect();
    median(&rates)
}

/// The mean CPU split of some runs.
fn mean_cpu(runs: &[(Load, CpuSplit)]) -> CpuSplit {
    let count = runs.len().max(1) as f64;
    let sum =
        |part: fn(&CpuSplit) -> f64| runs.iter().map(|(_, cpu)| part(cpu)).sum::<f64>() / count;
    CpuSplit {
        server: sum(|cpu| cpu.server),
        client: sum(|cpu| cpu.client),
        rest: sum(|cpu| cpu.rest),
    }
}

/// Rates of some runs, for a table.
fn rates_text(runs: &[(Load, CpuSplit)]) -> String {
    let rates: Vec<String> = runs
        .iter()
        .map(|(load, _)| format!("{:.0}", load.rate()))
        .collect();
    rates.join(", ")
}

impl EventFigures {
    /// Memory after the last round over after the first.
    pub(crate) fn rounds_ratio(&self) -> Option<f64> {
        match (self.rounds_rss_kb.first(), self.rounds_rss_kb.last()) {
            (Some(&first), Some(&last)) if first > 0 => Some(last as f64 / first as f64),
            _ => None,
        }
    }

    pub(crate) fn lines(&self) -> Vec<Line> {
        let mut lines = vec![Line {
            key: "events_positions",
            what: format!(
                "events: one stream before measuring, {} tags at 10 Hz (batches a second)",
                self.tags
            ),
            value: format!(
                "{:.0} positions/s ({:.1})",
                self.positions_per_second, self.batches_per_second
            ),
            target: "",
            met: None,
        }];
        for run in &self.runs {
            lines.extend(self.run_lines(run));
        }
        if let Some(ratio) = self.rounds_ratio() {
            lines.push(Line {
                key: "events_memory_rounds",
                what: format!(
                    "events: server RSS after round {} of {} subscribers connecting and leaving / after round 1 ({} / {})",
                    self.rounds_rss_kb.len(),
                    self.subscribers,
                    mb(*self.rounds_rss_kb.last().unwrap_or(&0)),
                    mb(*self.rounds_rss_kb.first().unwrap_or(&0)),
                ),
                value: format!("{ratio:.3}"),
                target: "<= 1.10",
                met: Some(ratio <= ROUNDS_GOAL),
            });
        }
        lines
    }

    fn run_lines(&self, run: &EventRun) -> Vec<Line> {
        let [ratio_key, rss_key, share_key, cpu_key] = run.keys();
        let ratio = run.read_ratio();
        let (cpu_with, cpu_without) = (mean_cpu(&run.with), mean_cpu(&run.without));
        let per_subscriber = run.rss_per_subscriber_kib(self.subscribers);
        let minimum = run.share_min();
        vec![
            Line {
                key: ratio_key,
                what: format!(
                    "events ({}): GET devices with {} subscribers / without, {} connections, medians of {} rounds ({:.0} / {:.0} req/s)",
                    run.form,
                    self.subscribers,
                    self.read_connections,
                    run.with.len(),
                    median_rate(&run.with),
                    median_rate(&run.without)
                ),
                value: format!("{ratio:.3}"),
                target: ">= 0.8",
                met: Some(ratio >= READ_GOAL),
            },
            Line {
                key: rss_key,
                what: format!(
                    "events ({}): server RSS per subscriber ({} with them - {} before, / {})",
                    run.form,
                    mb(run.rss_with_kb),
                    mb(run.rss_before_kb),
                    self.subscribers
                ),
                value: format!("{per_subscriber:.1} KiB"),
                target: "<= 32 KiB",
                met: Some(per_subscriber <= RSS_GOAL_KIB),
            },
            Line {
                key: share_key,
                what: format!(
                    "events ({}): position batches received / those of the window (by their keys) over {:.1} s, max_rate {}: min / median / mean",
                    run.form, run.window_seconds, self.max_rate
                ),
                value: format!(
                    "{:.1}% / {:.1}% / {:.1}%",
                    100.0 * minimum,
                    100.0 * run.share_median(),
                    100.0 * run.share_mean()
                ),
                target: ">= 99% each",
                met: Some(minimum >= SHARE_GOAL && run.ended_early == 0),
            },
            Line {
                key: cpu_key,
                what: format!(
                    "events ({}): CPU during the reads with subscribers (without them), means of the rounds",
                    run.form
                ),
                value: format!(
                    "server {:.2} ({:.2}), subscribers {:.2} ({:.2}), rest {:.2} ({:.2}) cores",
                    cpu_with.server,
                    cpu_without.server,
                    cpu_with.client,
                    cpu_without.client,
                    cpu_with.rest,
                    cpu_without.rest
                ),
                target: "",
                met: None,
            },
        ]
    }

    pub(crate) fn markdown(&self, md: &mut String) {
        let _ = writeln!(
            md,
            "\n## Live events\n\n{} subscribers to `GET /nets/live/events?types=position&max_rate={}&positions=FORM`, one configuration of {} tags at 10 Hz on the simulator; REST reads `GET /nets/live/devices` at {} connections.\n",
            self.subscribers, self.max_rate, self.tags, self.read_connections
        );
        md.push_str(
            "| form | req/s without, by round | req/s with, by round | ratio of the medians | p99 ms with (median) | CPU with (mean) |\n|---|---|---|---|---|---|\n",
        );
        for run in &self.runs {
            let p99: Vec<f64> = run.with.iter().map(|(load, _)| load.p99_ms).collect();
            let errors: u64 = run
                .with
                .iter()
                .chain(&run.without)
                .map(|(load, _)| load.errors)
                .sum();
            let _ = writeln!(
                md,
                "| {} | {} | {} | {:.3} | {:.2} | {}{} |",
                run.form,
                rates_text(&run.without),
                rates_text(&run.with),
                run.read_ratio(),
                median(&p99),
                mean_cpu(&run.with).text(),
                if errors > 0 {
                    format!("; {errors} errors")
                } else {
                    String::new()
                }
            );
        }
        for run in &self.runs {
            let _ = writeln!(
                md,
                "\npositions={}: server RSS {} before the subscribers first connected, {} with them, {} a second after they left. Position batches over {:.1} s of windows ({} frames by the clock; each subscriber's share of the most any counted in its round): min {:.2}%, 1st percentile {:.2}%, median {:.2}%, mean {:.2}%, max {:.2}%; {} subscribers below 99%, {} ended early; {:.1} MB/s received in all.",
                run.form,
                mb(run.rss_before_kb),
                mb(run.rss_with_kb),
                mb(run.rss_after_kb),
                run.window_seconds,
                run.frames_by_clock,
                100.0 * run.share_min(),
                100.0 * percentile(&run.shares, 1),
                100.0 * run.share_median(),
                100.0 * run.share_mean(),
                100.0 * percentile(&run.shares, 100),
                run.below_goal(),
                run.ended_early,
                run.received_bytes as f64 / 1e6 / run.window_seconds.max(1e-3)
            );
        }
        if !self.rounds_rss_kb.is_empty() {
            let rounds: Vec<String> = self.rounds_rss_kb.iter().map(|kb| mb(*kb)).collect();
            let _ = writeln!(
                md,
                "\nServer RSS after each round of the subscribers connecting and leaving: {}.",
                rounds.join(", ")
            );
        }
    }

    pub(crate) fn json(&self) -> Value {
        let runs: Vec<Value> = self
            .runs
            .iter()
            .map(|run| {
                json!({
                    "form": run.form,
                    "reads": {
                        "ratio": run.read_ratio(),
                        "without": run.without.iter().map(|(load, cpu)| json!({"load": load_json(load), "cpu_cores": cpu.json()})).collect::<Vec<_>>(),
                        "with": run.with.iter().map(|(load, cpu)| json!({"load": load_json(load), "cpu_cores": cpu.json()})).collect::<Vec<_>>(),
                    },
                    "memory": {
                        "rss_before_kb": run.rss_before_kb,
                        "rss_with_kb": run.rss_with_kb,
                        "rss_after_kb": run.rss_after_kb,
                        "per_subscriber_kib": run.rss_per_subscriber_kib(self.subscribers),
                    },
                    "batches": {
                        "window_seconds": run.window_seconds,
                "frames_by_clock": run.frames_by_clock,
                        "share_min": run.share_min(),
                        "share_median": run.share_median(),
                        "share_mean": run.share_mean(),
                        "below_goal": run.below_goal(),
                        "ended_early": run.ended_early,
                        "received_bytes": run.received_bytes,
                        "shares": run.shares,
                    },
                })
            })
            .collect();
        json!({
            "subscribers": self.subscribers,
            "tags": self.tags,
            "max_rate": self.max_rate,
            "probe": {
                "positions_per_second": self.positions_per_second,
                "batches_per_second": self.batches_per_second,
            },
            "reads_route": "GET /nets/live/devices",
            "runs": runs,
            "rounds": {
                "rss_after_kb": self.rounds_rss_kb,
                "last_over_first": self.rounds_ratio(),
            },
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::bench::report::tests::load;

    pub(crate) fn events(shares: Vec<f64>, ended_early: usize) -> EventFigures {
        let cpu = CpuSplit {
            server: 1.0,
            client: 0.25,
            rest: 0.5,
        };
        EventFigures {
            subscribers: 4,
            tags: 330,
            max_rate: 10,
            read_connections: 8,
            positions_per_second: 3_300.0,
            batches_per_second: 10.0,
            runs: vec![EventRun {
                form: "compact",
                without: vec![
                    (load(8, 10_000, 1.0, 2.0), cpu),
                    (load(8, 12_000, 1.0, 2.0), cpu),
                    (load(8, 1_000, 1.0, 2.0), cpu),
                ],
                with: vec![
                    (load(8, 8_000, 1.2, 2.5), cpu),
                    (load(8, 9_000, 1.2, 2.5), cpu),
                    (load(8, 2_000, 1.2, 2.5), cpu),
                ],
                rss_before_kb: 1_000,
                rss_with_kb: 1_128,
                rss_after_kb: 1_010,
                window_seconds: 5.0,
                frames_by_clock: 50,
                shares,
                received_bytes: 5_000_000,
                ended_early,
                catch_ups: 0,
            }],
            rounds_rss_kb: vec![1_000, 1_050, 1_100],
        }
    }

    #[test]
    fn the_ratios_divide_what_the_goals_say() {
        let figures = events(vec![1.0, 0.99, 1.0, 0.995], 0);
        let run = &figures.runs[0];
        // Medians: one slow round moves neither.
        assert_eq!(run.read_ratio(), 0.8);
        assert_eq!(run.rss_per_subscriber_kib(4), 32.0);
        assert_eq!(run.share_min(), 0.99);
        assert!((run.share_median() - 0.9975).abs() < 1e-12);
        assert!((run.share_mean() - 0.99625).abs() < 1e-12);
        assert_eq!(figures.rounds_ratio(), Some(1.1));
        let shrunk = EventRun {
            rss_with_kb: 500,
            ..events(vec![1.0], 0).runs.remove(0)
        };
        assert_eq!(shrunk.rss_per_subscriber_kib(4), 0.0);
    }

    #[test]
    fn every_subscriber_must_get_its_share_and_none_may_end_early() {
        let met = |figures: EventFigures| {
            figures
                .lines()
                .into_iter()
                .find(|line| line.key == "events_batch_share")
                .and_then(|line| line.met)
        };
        assert_eq!(met(events(vec![1.0, 0.99], 0)), Some(true));
        assert_eq!(met(events(vec![1.0, 0.989], 0)), Some(false));
        assert_eq!(met(events(vec![1.0, 1.0], 1)), Some(false));
        let verdicts: Vec<(&str, Option<bool>)> = events(vec![1.0], 0)
            .lines()
            .iter()
            .map(|line| (line.key, line.met))
            .collect();
        assert_eq!(
            verdicts,
            [
                ("events_positions", None),
                ("events_reads_ratio", Some(true)),
                ("events_rss_per_subscriber", Some(true)),
                ("events_batch_share", Some(true)),
                ("events_cpu", None),
                ("events_memory_rounds", Some(true)),
            ]
        );
    }

    #[test]
    fn memory_that_climbs_over_the_rounds_misses_its_goal() {
        let mut figures = events(vec![1.0], 0);
        figures.rounds_rss_kb = vec![1_000, 1_200];
        let line = figures
            .lines()
            .into_iter()
            .find(|line| line.key == "events_memory_rounds")
            .unwrap();
        assert_eq!((line.value.as_str(), line.met), ("1.200", Some(false)));
    }
}
