//! The survey check (decisions.md §12, `POST /nets/{net_name}/survey`):
//! which anchors' configured positions the ranges between anchors
//! contradict.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::lsq::{Model, Solution};
use super::{Link, MIN_HEIGHT_SPAN_MM, Point};

/// A residual below this (mm) is [`Verdict::Good`].
pub const GOOD_BELOW_MM: f64 = 250.0;
/// A residual above this (mm) is [`Verdict::Bad`].
pub const BAD_ABOVE_MM: f64 = 1_000.0;
/// Above this standard deviation of z per unit range noise, the references
/// cannot place the anchor's height usefully (they are at much its height):
/// its height is held at the configured one, so that z's noise alone cannot
/// make a good anchor look displaced.
const MAX_VERTICAL_DILUTION: f64 = 5.0;
/// A range residual this many times the median one, and above
/// [`MIN_OUTLIER_MM`], is an outlier.
const OUTLIER_RATIO: f64 = 5.0;
const MIN_OUTLIER_MM: f64 = 100.0;
/// Ranges dropped per anchor at most.
const MAX_RANGE_REJECTIONS: usize = 2;
/// Ranges needed to place an anchor.
const MIN_RANGES: usize = 3;
/// The noise (mm) a surveyed range is assumed to have (a median of several
/// two-way ranges), for the solver's convergence test only.
const SURVEY_NOISE_MM: f64 = 10.0;

/// One measured range between two anchors.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SurveyRange {
    /// Index of one anchor in the anchors' slice.
    pub a: usize,
    /// Index of the other.
    pub b: usize,
    /// The range (mm), say the median of several two-way ranges.
    pub measured_mm: f64,
}

/// What the ranges say of an anchor's configured position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Residual below 250 mm.
    Good,
    /// Residual from 250 to 1 000 mm, or too few ranges to judge.
    Check,
    /// Residual above 1 000 mm: the configured position is wrong.
    Bad,
}

impl Verdict {
    /// The verdict on a residual (mm).
    pub fn of_residual(residual_mm: f64) -> Self {
        if residual_mm < GOOD_BELOW_MM {
            Self::Good
        } else if residual_mm <= BAD_ABOVE_MM {
            Self::Check
        } else {
            Self::Bad
        }
    }
}

/// The survey's judgement of one anchor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnchorJudgement {
    /// Distance (mm) from the configured position to where the ranges to
    /// the other anchors put it; 0 when it could not be placed.
    pub residual_mm: f64,
    /// Good, check or bad by the residual; check when it could not be
    /// placed.
    pub verdict: Verdict,
    /// Where the ranges put it; `None` with fewer than 3 usable ranges (or
    /// a geometry that cannot place it).
    pub estimated: Option<Point>,
    /// The position to configure instead: `estimated`, for a bad anchor
    /// only.
    pub suggested: Option<Point>,
}

impl AnchorJudgement {
    /// An anchor the ranges cannot place: 0 mm (a number JSON can carry),
    /// [`Verdict::Check`], no position.
    fn unplaced() -> Self {
        Self {
            residual_mm: 0.0,
            verdict: Verdict::Check,
            estimated: None,
            suggested: None,
        }
    }
}

/// Judges every anchor's configured position against the measured ranges:
/// one judgement per anchor, in the same order.
///
/// Each anchor is placed by multilateration (Gauss–Newton) from its ranges
/// to the other anchors at their configured positions, starting at its own
/// configured position: first in 2-D at its configured height, dropping up
/// to two ranges the others contradict (missed by more than 100 mm and by
/// more than 5 times the median residual of the rest); then, with the ranges
/// kept, in 3-D, unless those anchors' heights span less than 1 000 mm or
/// cannot resolve its height (z's standard deviation above 5 × the ranges'),
/// when its configured height stands.
///
/// One displaced anchor would spoil its neighbours' placements, so the
/// judgement iterates: judge all; while the worst anchor still used as a
/// reference is bad, stop using it as a reference and judge again. Anchors
/// dropped as references are judged against the final references.
///
/// Ranges naming an index past the anchors, the same anchor twice, or a
/// non-finite or negative range are ignored. An anchor with fewer than 3
/// usable ranges is [`AnchorJudgement::residual_mm`] 0, [`Verdict::Check`],
/// without a position.
pub fn judge_survey(anchors: &[Point], ranges: &[SurveyRange]) -> Vec<AnchorJudgement> {
    let mut references = vec![true; anchors.len()];
    loop {
        let judgements: Vec<AnchorJudgement> = (0..anchors.len())
            .map(|anchor| judge_one(anchors, ranges, anchor, &references))
            .collect();
        let remaining = references.iter().filter(|&&used| used).count();
        let worst = (0..anchors.len())
            .filter(|&anchor| references[anchor] && judgements[anchor].verdict == Verdict::Bad)
            .max_by(|&a, &b| {
                judgements[a]
                    .residual_mm
                    .total_cmp(&judgements[b].residual_mm)
            });
        // Dropping a reference leaves at least MIN_RANGES: an anchor left
        // with fewer is unplaced (check), not judged bad from too few ranges.
        match worst {
            Some(anchor) if remaining > MIN_RANGES => references[anchor] = false,
            _ => return judgements,
        }
    }
}

/// Places `anchor` from its ranges to the anchors still used as references.
fn judge_one(
    anchors: &[Point],
    ranges: &[SurveyRange],
    anchor: usize,
    references: &[bool],
) -> AnchorJudgement {
    let links: Vec<Link> = ranges
        .iter()
        .filter_map(|range| {
            let other = match (range.a == anchor, range.b == anchor) {
                (true, false) => range.b,
                (false, true) => range.a,
                _ => return None,
            };
            let usable = references.get(other).copied().unwrap_or(false)
                && range.measured_mm.is_finite()
                && range.measured_mm >= 0.0
                && anchors[other].iter().all(|value| value.is_finite());
            usable.then(|| Link {
                anchor: anchors[other],
                value_mm: range.measured_mm,
            })
        })
        .collect();
    let configured = anchors[anchor];
    if links.len() < MIN_RANGES || !configured.iter().all(|value| value.is_finite()) {
        return AnchorJudgement::unplaced();
    }
    // Placed in 2-D first: with z free, a wrong range is absorbed by a
    // large move of the weakly determined height and goes unnoticed.
    let held = Model {
        solve_z: false,
        held_z: configured[2],
        offset: false,
        prior: None,
    };
    let Some((kept, mut solution)) = place(&held, links, configured) else {
        return AnchorJudgement::unplaced();
    };
    let heights = kept.iter().map(|link| link.anchor[2]);
    let span =
        heights.clone().fold(f64::NEG_INFINITY, f64::max) - heights.fold(f64::INFINITY, f64::min);
    if span >= MIN_HEIGHT_SPAN_MM {
        let free = Model {
            solve_z: true,
            ..held
        };
        if let Ok(full) = free.fit(&kept, solution.position, SURVEY_NOISE_MM)
            && full.vertical_dilution() <= MAX_VERTICAL_DILUTION
        {
            solution = full;
        }
    }
    let estimated = solution.position;
    let residual_mm = (0..3)
        .map(|i| (estimated[i] - configured[i]).powi(2))
        .sum::<f64>()
        .sqrt();
    let verdict = Verdict::of_residual(residual_mm);
    AnchorJudgement {
        residual_mm,
        verdict,
        estimated: Some(estimated),
        suggested: (verdict == Verdict::Bad).then_some(estimated),
    }
}

/// Multilaterates from `start`, dropping a range the others contradict (at
/// most twice, while redundancy remains): the one whose removal leaves the
/// smallest RSS, when the fit without it misses it by more than 100 mm and
/// by more than 5 times the median residual of the rest. Judging the range
/// against a fit it took no part in keeps it from masking itself.
fn place(model: &Model, links: Vec<Link>, start: Point) -> Option<(Vec<Link>, Solution)> {
    let mut links = links;
    let mut solution = model.fit(&links, start, SURVEY_NOISE_MM).ok()?;
    for _ in 0..MAX_RANGE_REJECTIONS {
        if links.len() < model.unknowns() + 2 {
            break;
        }
        let without = |index: usize| {
            let mut subset = links.clone();
            subset.remove(index);
            subset
        };
        let best = (0..links.len())
            .filter_map(|index| {
                Some((
                    index,
                    model
                        .fit(&without(index), solution.position, SURVEY_NOISE_MM)
                        .ok()?,
                ))
            })
            .min_by(|(_, a), (_, b)| a.rss.total_cmp(&b.rss));
        let Some((index, fit)) = best else { break };
        let subset = without(index);
        let missed = fit.residual(model, &links[index]).abs();
        let mut residuals: Vec<f64> = subset
            .iter()
            .map(|link| fit.residual(model, link).abs())
            .collect();
        residuals.sort_by(f64::total_cmp);
        let median = residuals[residuals.len() / 2];
        if missed <= MIN_OUTLIER_MM || missed <= OUTLIER_RATIO * median {
            break;
        }
        (links, solution) = (subset, fit);
    }
    Some((links, solution))
}

#[cfg(test)]
#[path = "survey_tests.rs"]
mod tests;
