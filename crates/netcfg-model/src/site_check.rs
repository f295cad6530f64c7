//! What a running site reports of its own accuracy (decisions §12): the
//! reference tags' errors and the anchors' survey.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{SerialNumber, locate::Verdict};

/// One tag's positions since the start against where it truly is
/// (`GET /nets/{net}/accuracy`, decisions §12 and §18): a reference tag
/// against its configured position; on a simulator instance, every other
/// tag against the simulator's true position at each beacon.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct TagAccuracy {
    /// The tag.
    pub serial_number: SerialNumber,
    /// True for a reference tag (configured coordinates); false for a tag
    /// measured against the simulator's truth.
    pub reference: bool,
    /// Positions delivered (tracked, or per beacon when `tracking` is off).
    pub fixes: u64,
    /// Mean horizontal error of the delivered positions, mm.
    pub mean_error_mm: f64,
    /// Root mean square of their horizontal error, mm.
    pub rms_mm: f64,
    /// 95th percentile of their horizontal error, mm (within 1%).
    pub r95_mm: f64,
    /// Their largest horizontal error, mm.
    pub max_error_mm: f64,
    /// Share of delivered positions (0 to 1) whose horizontal error was
    /// within their own `error_mm`.
    pub within_estimate: f64,
    /// Root mean square of the per-beacon fixes' horizontal error, mm
    /// (before tracking).
    pub fix_rms_mm: f64,
    /// 95th percentile of the fixes' horizontal error, mm.
    pub fix_r95_mm: f64,
    /// The largest fix error, mm.
    pub fix_max_mm: f64,
}

/// A located tag's last position (`GET /nets/{net}/positions`, decisions
/// §18): what a dashboard shows without a stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct TagPosition {
    /// The tag.
    pub serial_number: SerialNumber,
    /// Its name in the configuration, if it has one.
    pub name: Option<crate::ItemName>,
    /// East, mm.
    pub x: i32,
    /// North, mm.
    pub y: i32,
    /// Height, mm.
    pub z: i32,
    /// The 95% horizontal error estimate, mm.
    pub error_mm: u32,
    /// East velocity, mm/s; null when the tag's role does not track it.
    pub vx: Option<i32>,
    /// North velocity, mm/s; null when untracked.
    pub vy: Option<i32>,
    /// When the network solved it, in units of 1/975,000 s.
    pub network_time: u64,
    /// When the server received it, ms since the Unix epoch.
    pub time_ms: u64,
    /// How long ago that was, ms.
    pub age_ms: u64,
}

/// A position in mm.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PointMm {
    /// East, mm.
    pub x: i32,
    /// North, mm.
    pub y: i32,
    /// Height, mm.
    pub z: i32,
}

impl PointMm {
    /// Rounds a point in mm.
    pub fn from_point(point: [f64; 3]) -> Self {
        let round = |value: f64| {
            value
                .round()
                .clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
        };
        Self {
            x: round(point[0]),
            y: round(point[1]),
            z: round(point[2]),
        }
    }
}

/// Two anchors' measured range against their configured distance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SurveyPair {
    /// One anchor.
    pub a: SerialNumber,
    /// The other.
    pub b: SerialNumber,
    /// The range they measured (the mean of both directions' medians), mm.
    pub measured_mm: f64,
    /// Their configured distance, mm.
    pub configured_mm: f64,
}

/// One anchor's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AnchorSurvey {
    /// The anchor or seeder.
    pub serial_number: SerialNumber,
    /// Distance from its configured position to where the ranges to the
    /// other anchors put it, mm.
    pub residual_mm: f64,
    /// `good` under 250 mm, `check` to 1,000 mm, `bad` above.
    pub verdict: Verdict,
    /// Where the ranges put a `bad` anchor; null otherwise.
    pub suggested: Option<PointMm>,
}

/// A survey's result (`POST /nets/{net}/survey`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SurveyReport {
    /// When it was made, ms since the Unix epoch.
    pub time_ms: u64,
    /// Every pair of anchors that heard each other.
    pub pairs: Vec<SurveyPair>,
    /// Every positioned anchor and seeder.
    pub anchors: Vec<AnchorSurvey>,
}

/// One anchor's median range to a peer, as the network reported it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeasuredRange {
    /// The anchor that ranged.
    pub from: SerialNumber,
    /// The peer.
    pub to: SerialNumber,
    /// The median range, mm.
    pub range_mm: f64,
}

impl SurveyReport {
    /// Judges the anchors (`anchors`: each with its configured position)
    /// from what they measured of each other: both directions of a pair
    /// are averaged; ranges naming an anchor not listed are left out.
    pub fn judge(
        time_ms: u64,
        anchors: &[(SerialNumber, [f64; 3])],
        ranges: &[MeasuredRange],
    ) -> Self {
        let index = |serial: SerialNumber| anchors.iter().position(|(s, _)| *s == serial);
        // (low index, high index) -> sum and count of the directions heard.
        let mut heard: std::collections::BTreeMap<(usize, usize), (f64, u32)> =
            std::collections::BTreeMap::new();
        for range in ranges {
            let (Some(a), Some(b)) = (index(range.from), index(range.to)) else {
                continue;
            };
            if a == b || !range.range_mm.is_finite() {
                continue;
            }
            let entry = heard.entry((a.min(b), a.max(b))).or_insert((0.0, 0));
            entry.0 += range.range_mm;
            entry.1 += 1;
        }
        let mut pairs = Vec::with_capacity(heard.len());
        let mut survey_ranges = Vec::with_capacity(heard.len());
        for (&(a, b), &(sum, count)) in &heard {
            let measured_mm = sum / f64::from(count);
            let (pa, pb) = (anchors[a].1, anchors[b].1);
            let configured_mm =
                ((pa[0] - pb[0]).powi(2) + (pa[1] - pb[1]).powi(2) + (pa[2] - pb[2]).powi(2))
                    .sqrt();
            pairs.push(SurveyPair {
                a: anchors[a].0,
                b: anchors[b].0,
                measured_mm: round_tenth(measured_mm),
                configured_mm: round_tenth(configured_mm),
            });
            survey_ranges.push(crate::locate::SurveyRange { a, b, measured_mm });
        }
        let positions: Vec<[f64; 3]> = anchors.iter().map(|(_, position)| *position).collect();
        let judgements = crate::locate::judge_survey(&positions, &survey_ranges);
        let anchors = anchors
            .iter()
            .zip(judgements)
            .map(|((serial_number, _), judgement)| AnchorSurvey {
                serial_number: *serial_number,
                residual_mm: round_tenth(judgement.residual_mm),
                verdict: judgement.verdict,
                suggested: judgement.suggested.map(PointMm::from_point),
            })
            .collect();
        Self {
            time_ms,
            pairs,
            anchors,
        }
    }

    /// The anchors judged `bad`.
    pub fn bad_anchors(&self) -> impl Iterator<Item = SerialNumber> + '_ {
        self.anchors
            .iter()
            .filter(|anchor| anchor.verdict == Verdict::Bad)
            .map(|anchor| anchor.serial_number)
    }
}

fn round_tenth(value: f64) -> f64 {
    if value.is_finite() {
        (value * 10.0).round() / 10.0
    } else {
        0.0
    }
}
