//! What a running site reports of its own accuracy (decisions §12): the
//! reference tags' errors and the anchors' survey.

use schemars::JsonSchema;
use serde::Serialize;

use crate::{SerialNumber, locate::Verdict};

/// One reference tag's fixes since the start, against its configured
/// position (`GET /nets/{net}/accuracy`).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct TagAccuracy {
    /// The reference tag.
    pub serial_number: SerialNumber,
    /// Positions solved.
    pub fixes: u64,
    /// Mean horizontal error, mm.
    pub mean_error_mm: f64,
    /// Root mean square of the horizontal error, mm.
    pub rms_mm: f64,
    /// 95th percentile of the horizontal error, mm (within 1%).
    pub r95_mm: f64,
    /// Share of fixes (0 to 1) whose horizontal error was within their
    /// own `error_mm`.
    pub within_estimate: f64,
}

/// A position in mm.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
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
