//! Following a tag over time (decisions §18): a [`Tracker`] turns each
//! beacon's [`Fix`] into a tracked position and velocity, at once (no
//! added wait), refusing fixes its prediction makes improbable.
//!
//! The filter is an interacting multiple model (IMM) of two
//! constant-velocity Kalman filters over the horizontal fixes: one that
//! barely accelerates (standing and walking straight: it smooths most) and
//! one that manoeuvres (starts, stops and turns: it follows fast). Their
//! mixture follows whichever the fixes favour, so a standing tag is
//! averaged over many beacons while a turning one is not left behind.
//! Each fix comes with its own covariance from the solver, so a fix from
//! a poor geometry or a noisy beacon counts for less.
//!
//! Why over fixes and not over each anchor's measurement: the solver
//! already rejects up to two NLOS links per beacon and gives a calibrated
//! covariance, so a fix carries almost all of a beacon's information; a
//! filter over fixes stays independent of the network mode (arrival times
//! or ranges) and of the held height. The figures of both choices are in
//! `docs/tracking.md`.
//!
//! A fix is refused (the beacon delivers no position) when it lies outside
//! the 99.9% ellipse of both models' predictions, or when reaching it from the last
//! tracked position would need more than the role's `max_speed_mm_s`. The
//! track starts again after [`RESTART_AFTER_S`] without a position or on
//! the [`RESTART_AFTER_REFUSALS`]th refusal in a row (the tag really did
//! move, or the track had gone wrong). A track starts from two fixes in a
//! row that agree (the second within reach of the first at the speed limit,
//! give or take both fixes' 99.9% error): the first delivers nothing, so a
//! single fix far off, an NLOS reception the solver could not reject,
//! never starts a track (one in a few hundred first fixes was over 1 m off
//! in the bench's room).
//!
//! ```
//! use netcfg_model::locate::{Fix, Tracker, Tracking, TrackSettings};
//!
//! let mut tracker = Tracker::new(TrackSettings::new(Tracking::Default, 3_000));
//! let fix = |x: f64| Fix {
//!     position: [x, 2_000.0, 1_000.0],
//!     horizontal_covariance: [[900.0, 0.0], [0.0, 900.0]],
//!     error_mm: 75.0,
//!     vertical_sd_mm: None,
//!     links_used: 6,
//!     rejected: 0,
//! };
//! // A tag walking east at 1 m/s, one beacon every 100 ms: the first fix
//! // waits for a second that agrees, then the track starts.
//! assert!(tracker.update(0.0, &fix(0.0)).is_none());
//! for step in 1..50 {
//!     let seconds = f64::from(step) * 0.1;
//!     tracker.update(seconds, &fix(1_000.0 * seconds)).unwrap();
//! }
//! // A fix 2 m away 100 ms later would need 20 m/s: refused.
//! assert!(tracker.update(5.0, &fix(6_900.0)).is_none());
//! let track = tracker.update(5.1, &fix(5_100.0)).unwrap();
//! let [vx, vy] = track.velocity.unwrap();
//! assert!((vx - 1_000.0).abs() < 100.0 && vy.abs() < 100.0);
//! ```

use nalgebra::{Matrix2, Matrix2x4, Matrix4, Vector2, Vector4};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Fix, Point, r95_horizontal};

/// Seconds without a tracked position after which the track starts again.
pub const RESTART_AFTER_S: f64 = 2.0;
/// Refused fixes in a row after which the track starts again.
pub const RESTART_AFTER_REFUSALS: u8 = 5;
/// The slowest `max_speed_mm_s` a role may set.
pub const MIN_MAX_SPEED_MM_S: u32 = 100;
/// The fastest `max_speed_mm_s` a role may set.
pub const MAX_MAX_SPEED_MM_S: u32 = 100_000;
/// A tag role's `max_speed_mm_s` unless it sets one: a brisk walk.
pub const DEFAULT_MAX_SPEED_MM_S: u32 = 3_000;

/// The squared Mahalanobis distance beyond which a fix is refused: the
/// 99.9% point of χ² with 2 degrees of freedom.
const GATE: f64 = 13.8;
/// Mean seconds the mixture stays in one model before it switches.
const MODEL_SOJOURN_S: f64 = 30.0;
/// The longest prediction step (s): a longer gap restarts the track anyway.
const LONGEST_STEP_S: f64 = RESTART_AFTER_S;

/// How strongly a tag role's positions are tracked (decisions §18).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Tracking {
    /// Every beacon's fix as it is, untracked (decisions §12).
    Off,
    /// Follows starts, stops and turns fastest; smooths least.
    Light,
    /// Between the two (the default).
    #[default]
    Default,
    /// Smooths most; slowest to follow a turn.
    Strong,
}

impl Tracking {
    /// Every strength, in order.
    pub const ALL: [Self; 4] = [Self::Off, Self::Light, Self::Default, Self::Strong];

    /// The word the API uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Light => "light",
            Self::Default => "default",
            Self::Strong => "strong",
        }
    }

    /// σ of the acceleration (mm/s²) of the steady and the manoeuvring
    /// model; `None` when off.
    fn accelerations(self) -> Option<[f64; 2]> {
        match self {
            Self::Off => None,
            Self::Light => Some([100.0, 10_000.0]),
            Self::Default => Some([7.0, 6_000.0]),
            Self::Strong => Some([7.0, 3_000.0]),
        }
    }
}

/// What a tag role asks of its tracker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrackSettings {
    /// How strongly.
    pub tracking: Tracking,
    /// The gate's speed limit, mm/s.
    pub max_speed_mm_s: f64,
}

impl TrackSettings {
    /// Settings of `tracking` with a speed limit of `max_speed_mm_s`.
    pub fn new(tracking: Tracking, max_speed_mm_s: u32) -> Self {
        Self {
            tracking,
            max_speed_mm_s: f64::from(max_speed_mm_s),
        }
    }
}

impl Default for TrackSettings {
    fn default() -> Self {
        Self::new(Tracking::Default, DEFAULT_MAX_SPEED_MM_S)
    }
}

/// A tracked position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Track {
    /// Where the tag is (x and y tracked; z the fix's, smoothed).
    pub position: Point,
    /// Its horizontal velocity (mm/s); `None` when tracking is off.
    pub velocity: Option<[f64; 2]>,
    /// The x, y covariance of the position (mm²).
    pub horizontal_covariance: [[f64; 2]; 2],
    /// The 95% horizontal radius of that covariance (mm).
    pub error_mm: f64,
}

/// One constant-velocity Kalman filter: state x, y, vx, vy.
#[derive(Debug, Clone, Copy)]
struct Model {
    state: Vector4<f64>,
    covariance: Matrix4<f64>,
}

/// The running estimate.
#[derive(Debug, Clone, Copy)]
struct Estimate {
    models: [Model; 2],
    /// Each model's probability.
    weights: [f64; 2],
    seconds: f64,
    height_mm: f64,
    /// The last delivered position, for the speed gate.
    position: [f64; 2],
}

/// One tag's tracker.
#[derive(Debug, Clone)]
pub struct Tracker {
    settings: TrackSettings,
    estimate: Option<Estimate>,
    refusals: u8,
    /// Without a track: the last fix, waiting for one that agrees.
    candidate: Option<Candidate>,
    /// With a track: the last fix refused, if the last fix was refused.
    last_refused: Option<Candidate>,
}

/// A fix that may start a track.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    seconds: f64,
    position: Point,
    noise: Matrix2<f64>,
}

impl Candidate {
    fn of(seconds: f64, fix: &Fix, noise: Matrix2<f64>) -> Self {
        Self {
            seconds,
            position: fix.position,
            noise,
        }
    }

    /// Whether `fix`, `seconds` later, could be the same tag: no further
    /// than the speed limit allows plus both fixes' 99.9% error.
    fn agrees(
        &self,
        seconds: f64,
        fix: &Fix,
        noise: Matrix2<f64>,
        settings: &TrackSettings,
    ) -> bool {
        let step = seconds - self.seconds;
        if !(0.0..=LONGEST_STEP_S).contains(&step) {
            return false;
        }
        let spread = self.noise + noise;
        let half_trace = (spread[(0, 0)] + spread[(1, 1)]) / 2.0;
        let half_difference = (spread[(0, 0)] - spread[(1, 1)]) / 2.0;
        let largest = half_trace + half_difference.hypot(spread[(0, 1)]);
        let distance =
            (fix.position[0] - self.position[0]).hypot(fix.position[1] - self.position[1]);
        distance <= settings.max_speed_mm_s * step + (GATE * largest.max(0.0)).sqrt()
    }
}

const OBSERVE: Matrix2x4<f64> = Matrix2x4::new(1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0);

impl Tracker {
    /// A tracker with no track yet.
    pub fn new(settings: TrackSettings) -> Self {
        Self {
            settings,
            estimate: None,
            refusals: 0,
            candidate: None,
            last_refused: None,
        }
    }

    /// The tracker's settings.
    pub fn settings(&self) -> TrackSettings {
        self.settings
    }

    /// Takes new settings at once; the track goes on from where it is.
    pub fn set_settings(&mut self, settings: TrackSettings) {
        self.settings = settings;
    }

    /// Takes the fix of a beacon emitted at `seconds` (any clock that only
    /// moves forward): the tracked position, or `None` when the fix is
    /// refused. With tracking off, the fix as it is.
    pub fn update(&mut self, seconds: f64, fix: &Fix) -> Option<Track> {
        let Some(accelerations) = self.settings.tracking.accelerations() else {
            self.estimate = None;
            return Some(Track {
                position: fix.position,
                velocity: None,
                horizontal_covariance: fix.horizontal_covariance,
                error_mm: fix.error_mm,
            });
        };
        let noise = matrix(fix.horizontal_covariance);
        let measured = Vector2::new(fix.position[0], fix.position[1]);
        // The estimate predicted to this fix's time, once: the gates and
        // the update both start from it.
        let predicted = self.estimate.as_ref().and_then(|estimate| {
            let step = seconds - estimate.seconds;
            (0.0..=LONGEST_STEP_S).contains(&step).then(|| {
                let mut predicted = *estimate;
                predicted.predict(step, accelerations);
                (predicted, step)
            })
        });
        let accepted = predicted
            .as_ref()
            .is_some_and(|(predicted, step)| self.accepts(predicted, *step, measured, noise, fix));
        let restart =
            predicted.is_none() || (self.refusals >= RESTART_AFTER_REFUSALS - 1 && !accepted);
        let mut predicted = predicted.map(|(predicted, _)| predicted);
        if restart {
            // A track starts from two fixes that agree, so that one fix
            // far off (NLOS the solver could not reject) never starts one.
            let candidate = self.candidate.take();
            let Some(first) =
                candidate.filter(|first| first.agrees(seconds, fix, noise, &self.settings))
            else {
                self.estimate = None;
                self.refusals = 0;
                self.candidate = Some(Candidate::of(seconds, fix, noise));
                return None;
            };
            self.start(&first);
            predicted = None;
        } else if !accepted {
            // Two refused fixes in a row that agree are a manoeuvre
            // (a stop, a start, a turn sharper than the models
            // foresee), not an outlier: the track starts again from
            // them at once, instead of refusing until the fifth.
            let agreed = self
                .last_refused
                .take()
                .filter(|refused| refused.agrees(seconds, fix, noise, &self.settings));
            let Some(refused) = agreed else {
                self.refusals += 1;
                self.last_refused = Some(Candidate::of(seconds, fix, noise));
                return None;
            };
            self.start(&refused);
            predicted = None;
        }
        self.absorb(seconds, accelerations, measured, noise, fix, predicted);
        let estimate = self.estimate.as_mut()?;
        let (state, covariance) = estimate.combined();
        let speed = state[2].hypot(state[3]);
        let limit = self.settings.max_speed_mm_s;
        let scale = if speed > limit { limit / speed } else { 1.0 };
        estimate.position = [state[0], state[1]];
        let horizontal_covariance = [
            [covariance[(0, 0)], covariance[(0, 1)]],
            [covariance[(1, 0)], covariance[(1, 1)]],
        ];
        Some(Track {
            position: [state[0], state[1], estimate.height_mm],
            velocity: Some([state[2] * scale, state[3] * scale]),
            horizontal_covariance,
            error_mm: r95_horizontal(horizontal_covariance),
        })
    }

    /// Takes an accepted fix into the estimate, from its prediction to
    /// the fix's time (made here when not given).
    fn absorb(
        &mut self,
        seconds: f64,
        accelerations: [f64; 2],
        measured: Vector2<f64>,
        noise: Matrix2<f64>,
        fix: &Fix,
        predicted: Option<Estimate>,
    ) {
        let Some(estimate) = self.estimate.as_mut() else {
            return;
        };
        match predicted {
            Some(predicted) => *estimate = predicted,
            None => estimate.predict(seconds - estimate.seconds, accelerations),
        }
        estimate.correct(measured, noise);
        estimate.seconds = seconds;
        let smoothing = match self.settings.tracking {
            Tracking::Light => 0.5,
            Tracking::Strong => 0.1,
            _ => 0.25,
        };
        estimate.height_mm += smoothing * (fix.position[2] - estimate.height_mm);
        self.refusals = 0;
        self.last_refused = None;
    }

    /// Starts a track at the first of two agreeing fixes: position as
    /// measured, velocity unknown within the speed limit (the second fix
    /// is then taken as any other).
    fn start(&mut self, first: &Candidate) {
        let speed_variance = (self.settings.max_speed_mm_s / 2.0).powi(2);
        let mut covariance = Matrix4::zeros();
        covariance
            .fixed_view_mut::<2, 2>(0, 0)
            .copy_from(&first.noise);
        covariance[(2, 2)] = speed_variance;
        covariance[(3, 3)] = speed_variance;
        let model = Model {
            state: Vector4::new(first.position[0], first.position[1], 0.0, 0.0),
            covariance,
        };
        self.estimate = Some(Estimate {
            models: [model; 2],
            // A new track is as likely to be moving as standing.
            weights: [0.5, 0.5],
            seconds: first.seconds,
            height_mm: first.position[2],
            position: [first.position[0], first.position[1]],
        });
        self.refusals = 0;
    }

    /// Whether the gates let `measured` in.
    fn accepts(
        &self,
        predicted: &Estimate,
        step: f64,
        measured: Vector2<f64>,
        noise: Matrix2<f64>,
        fix: &Fix,
    ) -> bool {
        let travelled = (measured[0] - predicted.position[0])
            .hypot(measured[1] - predicted.position[1])
            - fix.error_mm;
        if travelled > self.settings.max_speed_mm_s * step.max(1e-3) {
            return false;
        }
        // Improbable under both models: a turn the steady model did not
        // foresee is still probable under the manoeuvring one.
        predicted.models.iter().any(|model| {
            let innovation = measured - OBSERVE * model.state;
            let spread = OBSERVE * model.covariance * OBSERVE.transpose() + noise;
            spread
                .try_inverse()
                .is_some_and(|inverse| (innovation.transpose() * inverse * innovation)[0] <= GATE)
        })
    }
}

impl Estimate {
    /// Mixes the models and predicts each `step` seconds ahead (the IMM's
    /// first two steps); the weights become the predicted ones.
    fn predict(&mut self, step: f64, accelerations: [f64; 2]) {
        let switch = 1.0 - (-step / MODEL_SOJOURN_S).exp();
        let transition = [[1.0 - switch, switch], [switch, 1.0 - switch]];
        let predicted_weights = [0, 1].map(|to| {
            (0..2)
                .map(|from| transition[from][to] * self.weights[from])
                .sum::<f64>()
        });
        let mixed = [0, 1].map(|to| {
            let shares = [0, 1].map(|from| {
                transition[from][to] * self.weights[from] / predicted_weights[to].max(1e-300)
            });
            mix(&self.models, shares)
        });
        let advance = transition_matrix(step);
        self.models = [0, 1].map(|index| Model {
            state: advance * mixed[index].state,
            covariance: advance * mixed[index].covariance * advance.transpose()
                + process_noise(step, accelerations[index]),
        });
        self.weights = predicted_weights;
    }

    /// Takes a measurement into the predicted estimate: each model's Kalman
    /// update, the weights by how well each predicted it.
    fn correct(&mut self, measured: Vector2<f64>, noise: Matrix2<f64>) {
        let mut likelihoods = [0.0; 2];
        for (model, likelihood) in self.models.iter_mut().zip(&mut likelihoods) {
            let innovation = measured - OBSERVE * model.state;
            let spread = OBSERVE * model.covariance * OBSERVE.transpose() + noise;
            let Some(inverse) = spread.try_inverse() else {
                continue;
            };
            let gain = model.covariance * OBSERVE.transpose() * inverse;
            model.state += gain * innovation;
            // Joseph's form keeps the covariance symmetric and positive.
            let keep = Matrix4::identity() - gain * OBSERVE;
            model.covariance =
                keep * model.covariance * keep.transpose() + gain * noise * gain.transpose();
            let distance = (innovation.transpose() * inverse * innovation)[0];
            *likelihood = (-0.5 * distance).exp() / spread.determinant().max(1e-300).sqrt();
        }
        let total: f64 = (0..2).map(|i| self.weights[i] * likelihoods[i]).sum();
        if total > 0.0 && total.is_finite() {
            self.weights = [0, 1].map(|i| self.weights[i] * likelihoods[i] / total);
        }
        // Neither model may vanish: the other must be able to take over.
        let floor = 1e-3;
        self.weights = self.weights.map(|weight| weight.clamp(floor, 1.0 - floor));
    }

    /// The mixture's state and covariance.
    fn combined(&self) -> (Vector4<f64>, Matrix4<f64>) {
        let model = mix(&self.models, self.weights);
        (model.state, model.covariance)
    }
}

/// The weighted mixture of the models, with the spread between them.
fn mix(models: &[Model; 2], shares: [f64; 2]) -> Model {
    let total = shares[0] + shares[1];
    let state = (models[0].state * shares[0] + models[1].state * shares[1]) / total;
    let mut covariance = Matrix4::zeros();
    for (model, share) in models.iter().zip(shares) {
        let apart = model.state - state;
        covariance += (model.covariance + apart * apart.transpose()) * (share / total);
    }
    Model { state, covariance }
}

/// Constant velocity over `step` seconds.
fn transition_matrix(step: f64) -> Matrix4<f64> {
    let mut advance = Matrix4::identity();
    advance[(0, 2)] = step;
    advance[(1, 3)] = step;
    advance
}

/// The covariance an acceleration of σ `acceleration` (mm/s²), constant
/// over the step, adds.
fn process_noise(step: f64, acceleration: f64) -> Matrix4<f64> {
    let variance = acceleration * acceleration;
    let position = step.powi(4) / 4.0 * variance;
    let both = step.powi(3) / 2.0 * variance;
    let velocity = step * step * variance;
    let mut noise = Matrix4::zeros();
    for axis in 0..2 {
        noise[(axis, axis)] = position;
        noise[(axis, axis + 2)] = both;
        noise[(axis + 2, axis)] = both;
        noise[(axis + 2, axis + 2)] = velocity;
    }
    noise
}

fn matrix(values: [[f64; 2]; 2]) -> Matrix2<f64> {
    Matrix2::new(values[0][0], values[0][1], values[1][0], values[1][1])
}
