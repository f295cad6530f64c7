//! A tag's height, learned over its beacons where the anchors cannot
//! resolve it from one beacon.
//!
//! Anchors near one height (on a ceiling, 2 to 4 m) measure a tag's z
//! several times worse than its x and y, so the solver holds z
//! ([`Height::Held`]). A tag carried at another height than the held one
//! is then placed sideways by the difference, the same way beacon after
//! beacon: a bias no filter over time removes (a vehicle's tag at 1.8 m
//! read 90 mm off at a held 1 m in the test site). Each beacon still says
//! a little about z; a belief carried from beacon to beacon gathers it.
//! Each fix draws z towards the belief (one more observation in the
//! least-squares estimate), and the fix's own z and its variance become
//! the next belief, widened by how far a tag's height may drift meanwhile
//! (a one-dimensional Kalman filter whose update is the solve itself).
//!
//! [`Height::Held`]: super::Height::Held

use super::{DEFAULT_TAG_HEIGHT_MM, Fix};

/// How uncertain a tag's height is before its first beacon (mm, one σ):
/// tags are worn from the belt to the shoulder, 0.5 to 1.5 m within 2 σ;
/// a vehicle's at 1.8 m is learned within seconds all the same. Wider, an
/// NLOS measurement in a track's first beacons could hide in z and pull x
/// and y off (500 mm let one first fix land 1.2 m off in the bench).
pub const HEIGHT_PRIOR_SD_MM: f64 = 250.0;

/// How fast a tag's height may wander (mm² of variance a second): a person
/// sits down, a tag is picked up. With one beacon's z known to about 250
/// mm, at 10 Hz this follows a new height in about 8 s and holds a steady
/// one to about 30 mm. Faster drift lets the learned height wander with the
/// noise, and the tracker, which takes each fix's error as independent of
/// the last, would trust its slowly varying pull on x and y (at 1,000 mm²/s
/// a standing tag near a corner was within its `error_mm` 86% of the time,
/// against 91% to 97% at 100).
pub const HEIGHT_DRIFT_MM2_PER_S: f64 = 100.0;

/// What the solver believes of one tag's height.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeightBelief {
    z_mm: f64,
    variance_mm2: f64,
    /// When the belief was last learned (seconds, the caller's clock).
    at_s: Option<f64>,
    first_variance_mm2: f64,
    drift_mm2_per_s: f64,
}

impl Default for HeightBelief {
    fn default() -> Self {
        Self::tuned(HEIGHT_PRIOR_SD_MM, HEIGHT_DRIFT_MM2_PER_S)
    }
}

impl HeightBelief {
    pub(super) fn tuned(first_sd_mm: f64, drift_mm2_per_s: f64) -> Self {
        Self {
            z_mm: DEFAULT_TAG_HEIGHT_MM,
            variance_mm2: first_sd_mm * first_sd_mm,
            at_s: None,
            first_variance_mm2: first_sd_mm * first_sd_mm,
            drift_mm2_per_s,
        }
    }

    /// The height believed (mm).
    pub fn z_mm(&self) -> f64 {
        self.z_mm
    }

    /// The belief at `seconds`: (height mm, variance mm²), widened by the
    /// drift since it was learned, never beyond the first belief's.
    pub fn prior(&self, seconds: f64) -> (f64, f64) {
        let elapsed = self.at_s.map_or(0.0, |at| (seconds - at).max(0.0));
        let variance =
            (self.variance_mm2 + self.drift_mm2_per_s * elapsed).min(self.first_variance_mm2);
        (self.z_mm, variance)
    }

    /// Takes a fix solved at `seconds` with this belief as the new belief
    /// (its z already weighs the belief and the beacon together). A fix
    /// that did not estimate z changes nothing.
    pub fn learn(&mut self, seconds: f64, fix: &Fix) {
        let Some(sd) = fix.vertical_sd_mm else {
            return;
        };
        if !(fix.position[2].is_finite() && sd.is_finite()) {
            return;
        }
        self.z_mm = fix.position[2];
        self.variance_mm2 = (sd * sd).min(self.first_variance_mm2);
        self.at_s = Some(seconds);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{Errors, Rng, SITE, horizontal_distance, measure, rms};
    use super::super::{Geometry, Height, Measure, Solver};
    use super::*;

    /// Twenty seconds at 10 Hz of a tag standing at `tag` in the test site:
    /// each fix's horizontal error, held at 1 m or drawn to the learned
    /// height, and the belief at the end.
    fn stand(tag: [f64; 3], learn: bool) -> (Vec<f64>, HeightBelief) {
        let mut rng = Rng::new(3);
        let geometry = Geometry::of_anchors(Measure::ArrivalTimes, &SITE);
        assert_eq!(geometry.height, Height::Held(DEFAULT_TAG_HEIGHT_MM));
        let mut solver = Solver::new(geometry);
        let mut belief = HeightBelief::default();
        let mut errors = Vec::new();
        for beacon in 0..200 {
            let seconds = f64::from(beacon) / 10.0;
            let links = measure(
                &mut rng,
                Measure::ArrivalTimes,
                &SITE,
                tag,
                Errors::gaussian(30.0),
            );
            let fix = if learn {
                solver.solve_near(&links, None, &belief, seconds)
            } else {
                solver.solve(&links, None)
            }
            .unwrap();
            belief.learn(seconds, &fix);
            errors.push(horizontal_distance(fix.position, tag));
        }
        (errors, belief)
    }

    #[test]
    fn a_tag_above_the_held_height_is_placed_where_it_is_once_its_height_is_learned() {
        let tag = [3_000.0, 12_000.0, 1_800.0];
        let (held, unlearned) = stand(tag, false);
        assert_eq!(unlearned, HeightBelief::default());
        let (learned, belief) = stand(tag, true);
        assert!((belief.z_mm() - 1_800.0).abs() < 150.0, "{}", belief.z_mm());
        // The last ten seconds: the held height's bias is gone.
        let (held, learned) = (rms(&held[100..]), rms(&learned[100..]));
        assert!(learned < 0.5 * held, "{learned} mm learned, {held} mm held");
    }

    #[test]
    fn a_belief_widens_with_time_up_to_the_first_one() {
        let mut belief = HeightBelief::default();
        let fix = Fix {
            position: [0.0, 0.0, 1_500.0],
            horizontal_covariance: [[100.0, 0.0], [0.0, 100.0]],
            error_mm: 25.0,
            vertical_sd_mm: Some(40.0),
            links_used: 6,
            rejected: 0,
        };
        belief.learn(10.0, &fix);
        assert_eq!(belief.prior(10.0), (1_500.0, 1_600.0));
        assert_eq!(belief.prior(11.0), (1_500.0, 1_700.0));
        assert_eq!(belief.prior(1e6).1, HEIGHT_PRIOR_SD_MM.powi(2));
        // A fix that held z teaches nothing.
        belief.learn(
            12.0,
            &Fix {
                vertical_sd_mm: None,
                ..fix
            },
        );
        assert_eq!(belief.prior(10.0).0, 1_500.0);
    }
}
