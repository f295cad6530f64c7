#![allow(
    clippy::print_stderr,
    reason = "the survey figures are shown with -- --nocapture"
)]

//! The survey check against simulated ranges between the test site's
//! anchors.

use super::super::testkit::{Rng, SITE, distance};
use super::*;

/// Each pair ranged 10 times with σ = 30 mm, the median kept, from the true
/// positions.
fn survey(rng: &mut Rng, truth: &[Point]) -> Vec<SurveyRange> {
    let mut ranges = Vec::new();
    for a in 0..truth.len() {
        for b in a + 1..truth.len() {
            let mut samples: Vec<f64> = (0..10)
                .map(|_| distance(truth[a], truth[b]) + 30.0 * rng.gaussian())
                .collect();
            samples.sort_by(f64::total_cmp);
            let measured_mm = (samples[4] + samples[5]) / 2.0;
            ranges.push(SurveyRange { a, b, measured_mm });
        }
    }
    ranges
}

fn displaced(anchor: usize, angle: f64) -> Vec<Point> {
    let mut truth = SITE.to_vec();
    truth[anchor][0] += 1_500.0 * angle.cos();
    truth[anchor][1] += 1_500.0 * angle.sin();
    truth
}

#[test]
fn a_correct_survey_is_all_good() {
    let mut worst: f64 = 0.0;
    for seed in 0..50 {
        let mut rng = Rng::new(seed);
        let judgements = judge_survey(&SITE, &survey(&mut rng, &SITE));
        assert_eq!(judgements.len(), SITE.len());
        for judgement in &judgements {
            assert_eq!(
                judgement.verdict,
                Verdict::Good,
                "seed {seed}: {judgements:?}"
            );
            assert_eq!(judgement.suggested, None);
            worst = worst.max(judgement.residual_mm);
        }
    }
    eprintln!("correct survey: worst residual {worst:.0} mm over 50 surveys");
}

#[test]
fn a_displaced_anchor_is_bad_and_found_where_it_is() {
    let (mut worst_suggestion, mut worst_other, mut least_bad): (f64, f64, f64) =
        (0.0, 0.0, f64::INFINITY);
    for seed in 0..60 {
        let mut rng = Rng::new(1_000 + seed);
        let anchor = (seed % 6) as usize;
        let truth = displaced(anchor, rng.uniform() * std::f64::consts::TAU);
        let judgements = judge_survey(&SITE, &survey(&mut rng, &truth));
        for (index, judgement) in judgements.iter().enumerate() {
            if index == anchor {
                assert_eq!(
                    judgement.verdict,
                    Verdict::Bad,
                    "seed {seed}: {judgements:?}"
                );
                let suggested = judgement.suggested.unwrap();
                let off = distance(suggested, truth[anchor]);
                assert!(
                    off < 200.0,
                    "seed {seed}: suggestion {off:.0} mm from the truth"
                );
                worst_suggestion = worst_suggestion.max(off);
                least_bad = least_bad.min(judgement.residual_mm);
            } else {
                assert_ne!(
                    judgement.verdict,
                    Verdict::Bad,
                    "seed {seed}, anchor {index}: {judgements:?}"
                );
                worst_other = worst_other.max(judgement.residual_mm);
            }
        }
    }
    eprintln!(
        "displaced 1.5 m: residual ≥ {least_bad:.0} mm, suggestion ≤ {worst_suggestion:.0} mm from the truth; \
         others ≤ {worst_other:.0} mm"
    );
}

#[test]
fn one_bad_range_is_dropped() {
    let mut rng = Rng::new(7);
    let mut ranges = survey(&mut rng, &SITE);
    // A reflection lengthens the range between anchors 0 and 3 by 2 m.
    let pair = ranges.iter().position(|r| (r.a, r.b) == (0, 3)).unwrap();
    ranges[pair].measured_mm += 2_000.0;
    for judgement in judge_survey(&SITE, &ranges) {
        assert_eq!(judgement.verdict, Verdict::Good, "{judgement:?}");
    }
}

#[test]
fn an_anchor_with_too_few_ranges_is_check_without_a_position() {
    let mut rng = Rng::new(3);
    let ranges: Vec<SurveyRange> = survey(&mut rng, &SITE)
        .into_iter()
        .filter(|range| range.a != 0 || range.b <= 2)
        .collect();
    let judgements = judge_survey(&SITE, &ranges);
    assert_eq!(
        judgements[0],
        AnchorJudgement {
            residual_mm: 0.0,
            verdict: Verdict::Check,
            estimated: None,
            suggested: None
        }
    );
    assert!(judgements[1..].iter().all(|j| j.verdict == Verdict::Good));
    assert!(
        judge_survey(&SITE, &[])
            .iter()
            .all(|j| j.verdict == Verdict::Check)
    );
    assert!(judge_survey(&[], &[]).is_empty());
}

#[test]
fn unusable_ranges_are_ignored() {
    let mut rng = Rng::new(4);
    let mut ranges = survey(&mut rng, &SITE);
    ranges.push(SurveyRange {
        a: 0,
        b: 99,
        measured_mm: 5_000.0,
    });
    ranges.push(SurveyRange {
        a: 2,
        b: 2,
        measured_mm: 5_000.0,
    });
    ranges.push(SurveyRange {
        a: 1,
        b: 2,
        measured_mm: f64::NAN,
    });
    ranges.push(SurveyRange {
        a: 1,
        b: 3,
        measured_mm: -1.0,
    });
    assert!(
        judge_survey(&SITE, &ranges)
            .iter()
            .all(|j| j.verdict == Verdict::Good)
    );
}

#[test]
fn flat_anchors_are_placed_in_2d() {
    let flat = SITE.map(|[x, y, _]| [x, y, 3_000.0]);
    let mut rng = Rng::new(5);
    let mut truth = flat.to_vec();
    truth[4][0] -= 1_500.0;
    let judgements = judge_survey(&flat, &survey(&mut rng, &truth));
    assert_eq!(judgements[4].verdict, Verdict::Bad);
    assert_eq!(judgements[4].suggested.unwrap()[2], 3_000.0);
    assert!(distance(judgements[4].suggested.unwrap(), truth[4]) < 200.0);
    assert_eq!(
        judgements
            .iter()
            .filter(|j| j.verdict == Verdict::Bad)
            .count(),
        1
    );
}

#[test]
fn verdicts_follow_the_thresholds() {
    assert_eq!(Verdict::of_residual(249.9), Verdict::Good);
    assert_eq!(Verdict::of_residual(250.0), Verdict::Check);
    assert_eq!(Verdict::of_residual(1_000.0), Verdict::Check);
    assert_eq!(Verdict::of_residual(1_000.1), Verdict::Bad);
    assert_eq!(serde_json::to_value(Verdict::Check).unwrap(), "check");
}
