//! The durable write path's own cost (issue 51): what a PATCH costs beyond
//! the disk's sync, against a read of one device in the same run, and how
//! well concurrent writers share a sync (group commit, counted by the
//! store). The figures it replaced (a PATCH's p50 over the sync's, and 32
//! connections over one) stay in the report beside them: the first asked
//! the HTTP and SQLite work to shrink with the disk, the second punished a
//! faster single connection.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::super::wrk::Load;
use super::{Line, load_json, median, percentile};

/// (PATCH p50 − fdatasync p50) at most this many times a GET's p50, at one
/// connection.
pub(crate) const OWN_COST_LIMIT: f64 = 1.5;
/// PATCHes a second at 32 connections at least this share of GETs.
pub(crate) const CONCURRENT_SHARE: f64 = 0.5;
/// Changes a commit (one fdatasync) carries at least, at 32 connections.
pub(crate) const CHANGES_PER_COMMIT: f64 = 8.0;

/// One connection count's reads and writes of one device.
pub(crate) struct WritePoint {
    /// `GET /nets/{net}/devices/{serial}`, cycling over the site's tags.
    pub(crate) get: Load,
    /// Full-body `PATCH` of the same devices.
    pub(crate) patch: Load,
    /// Commits and changes the store counted over the PATCH run
    /// (`/metrics`).
    pub(crate) commits: u64,
    pub(crate) changes: u64,
}

impl WritePoint {
    fn changes_per_commit(&self) -> f64 {
        self.changes as f64 / self.commits.max(1) as f64
    }
}

/// The disk's fdatasync and the write path at 1 and 32 connections.
pub(crate) struct WritePath {
    /// Timed fdatasyncs of a 4 KiB block in the data directory (ms),
    /// measured just before the writes.
    pub(crate) fdatasync_ms: Vec<f64>,
    pub(crate) one: WritePoint,
    pub(crate) many: WritePoint,
}

impl WritePath {
    /// PATCH p50 less the sync's p50, over GET p50, at one connection.
    pub(crate) fn own_cost_ratio(&self) -> f64 {
        (self.one.patch.p50_ms - median(&self.fdatasync_ms)) / self.one.get.p50_ms
    }

    /// PATCH/s over GET/s at 32 connections.
    pub(crate) fn concurrent_share(&self) -> f64 {
        self.many.patch.rate() / self.many.get.rate()
    }

    pub(crate) fn lines(&self) -> Vec<Line> {
        let (fsync_p50, fsync_p99) = (
            median(&self.fdatasync_ms),
            percentile(&self.fdatasync_ms, 99),
        );
        let own = self.own_cost_ratio();
        let share = self.concurrent_share();
        let per_commit = self.many.changes_per_commit();
        let old_to_fsync = self.one.patch.p50_ms / fsync_p50;
        let old_ratio = self.many.patch.rate() / self.one.patch.rate();
        vec![
            Line {
                key: "fdatasync",
                what: format!(
                    "disk: fdatasync of a {} KiB block in the data directory, p50 / p99 ({} rounds)",
                    super::super::disk::BLOCK_BYTES / 1024,
                    self.fdatasync_ms.len()
                ),
                value: format!("{fsync_p50:.3} / {fsync_p99:.3} ms"),
                target: "",
                met: None,
            },
            Line {
                key: "write_own_cost",
                what: format!(
                    "durable writes, 1 connection: (PATCH p50 - fdatasync p50) / GET one device p50 (({:.3} - {fsync_p50:.3}) / {:.3} ms)",
                    self.one.patch.p50_ms, self.one.get.p50_ms
                ),
                value: format!("{own:.2}"),
                target: "<= 1.5",
                met: Some(own <= OWN_COST_LIMIT),
            },
            Line {
                key: "write_concurrent_share",
                what: format!(
                    "durable writes, 32 connections: PATCH/s / GET one device/s ({:.0} / {:.0})",
                    self.many.patch.rate(),
                    self.many.get.rate()
                ),
                value: format!("{share:.2}"),
                target: ">= 0.5",
                met: Some(share >= CONCURRENT_SHARE),
            },
            Line {
                key: "write_changes_per_commit",
                what: format!(
                    "durable writes, 32 connections: changes per commit, one fdatasync each ({} / {})",
                    self.many.changes, self.many.commits
                ),
                value: format!("{per_commit:.1}"),
                target: ">= 8",
                met: Some(per_commit >= CHANGES_PER_COMMIT),
            },
            Line {
                key: "patch_to_fdatasync",
                what: format!(
                    "(replaced) PATCH p50 at 1 connection / fdatasync p50 ({:.3} / {fsync_p50:.3} ms; was <= 2.5)",
                    self.one.patch.p50_ms
                ),
                value: format!("{old_to_fsync:.2}"),
                target: "",
                met: None,
            },
            Line {
                key: "writes_ratio",
                what: format!(
                    "(replaced) PATCH 32 / 1 connections ({:.0} / {:.0} req/s; was >= 10)",
                    self.many.patch.rate(),
                    self.one.patch.rate()
                ),
                value: format!("{old_ratio:.2}"),
                target: "",
                met: None,
            },
        ]
    }

    pub(crate) fn markdown(&self, md: &mut String) {
        md.push_str(
            "\n## Durable writes\n\n| connections | GET one device req/s | p50 / p99 ms | PATCH req/s | p50 / p99 ms | changes / commits | errors |\n|---|---|---|---|---|---|---|\n",
        );
        for point in [&self.one, &self.many] {
            let _ = writeln!(
                md,
                "| {} | {:.0} | {:.3} / {:.3} | {:.0} | {:.3} / {:.3} | {} / {} | {} |",
                point.patch.connections,
                point.get.rate(),
                point.get.p50_ms,
                point.get.p99_ms,
                point.patch.rate(),
                point.patch.p50_ms,
                point.patch.p99_ms,
                point.changes,
                point.commits,
                point.get.errors + point.patch.errors
            );
        }
        let _ = writeln!(
            md,
            "\nThe disk, in the same run: fdatasync of a {} KiB block in the data directory, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms ({} rounds).",
            super::super::disk::BLOCK_BYTES / 1024,
            median(&self.fdatasync_ms),
            percentile(&self.fdatasync_ms, 99),
            percentile(&self.fdatasync_ms, 100),
            self.fdatasync_ms.len()
        );
    }

    pub(crate) fn json(&self) -> Value {
        let point = |point: &WritePoint| {
            json!({
                "get": load_json(&point.get),
                "patch": load_json(&point.patch),
                "commits": point.commits,
                "changes": point.changes,
            })
        };
        json!({
            "fdatasync_ms": {
                "block_bytes": super::super::disk::BLOCK_BYTES,
                "p50": median(&self.fdatasync_ms),
                "p99": percentile(&self.fdatasync_ms, 99),
                "samples": self.fdatasync_ms,
            },
            "writes": {
                "own_cost_ratio": self.own_cost_ratio(),
                "concurrent_share": self.concurrent_share(),
                "changes_per_commit_32": self.many.changes_per_commit(),
                "ratio_32_to_1": self.many.patch.rate() / self.one.patch.rate(),
                "p50_1_to_fdatasync_p50": self.one.patch.p50_ms / median(&self.fdatasync_ms),
                "connections_1": point(&self.one),
                "connections_32": point(&self.many),
            },
        })
    }
}
