//! The simulated radio: what the anchors measure of a tag beacon
//! (decisions §12). It alone knows the true positions and the error
//! sources; the engine's solver sees only what it reports.

use std::collections::HashMap;

use netcfg_model::{SerialNumber, SimParameters};
use rand::{RngExt, SeedableRng, rngs::SmallRng};
use rand_distr::{Distribution, Exp, Normal};

use crate::protocol::{BeaconReport, PeerRange};

pub use netcfg_model::time::ticks::MM_PER_TICK;
/// At most this many anchors report one beacon (the nearest), as a
/// location server uses a handful of the best links.
pub const MAX_LINKS: usize = 12;
/// At most this many anchors range one tag in `multirange`.
const MAX_RANGING_PEERS: usize = 6;

/// The error sources of the simulated radio.
#[derive(Debug, Clone, PartialEq)]
pub struct RadioOptions {
    /// σ of the Gaussian timing noise, mm.
    pub toa_noise_mm: f64,
    /// Probability that one measurement is NLOS.
    pub nlos: f64,
    /// Mean extra delay of an NLOS measurement, mm.
    pub nlos_bias_mm: f64,
    /// Hearing range, mm.
    pub range_mm: f64,
    /// Probability that an anchor in range misses a beacon.
    pub miss: f64,
    /// σ of each anchor's residual synchronisation error, mm.
    pub sync_error_mm: f64,
    /// Displaced devices: true position = configured + offset (mm).
    pub survey_error: HashMap<SerialNumber, [f64; 3]>,
    /// Tags without coordinates that stand still at these true points (mm).
    pub still: HashMap<SerialNumber, [f64; 3]>,
    /// The random numbers' seed.
    pub seed: u64,
}

impl Default for RadioOptions {
    /// Plain `sim`: a believable site (30 mm timing noise, 2% NLOS, 1%
    /// misses, 10 mm of residual synchronisation error per anchor).
    fn default() -> Self {
        Self {
            toa_noise_mm: 30.0,
            nlos: 0.02,
            nlos_bias_mm: 300.0,
            range_mm: 40_000.0,
            miss: 0.01,
            sync_error_mm: 10.0,
            survey_error: HashMap::new(),
            still: HashMap::new(),
            seed: 0x005E_ED0F_CAFE,
        }
    }
}

impl RadioOptions {
    /// The options an instance's parameters give: when any error source is
    /// named, those not named are off (decisions §12).
    pub fn from_parameters(parameters: &SimParameters) -> Self {
        let defaults = Self::default();
        let named = parameters.names_any_error();
        let or_off = |value: Option<f64>, default: f64| match value {
            Some(value) => value,
            None if named => 0.0,
            None => default,
        };
        Self {
            toa_noise_mm: or_off(parameters.toa_noise_mm, defaults.toa_noise_mm),
            nlos: or_off(parameters.nlos, defaults.nlos),
            // A bias alone adds no error, so it keeps its default when unnamed.
            nlos_bias_mm: parameters.nlos_bias_mm.unwrap_or(if named {
                500.0
            } else {
                defaults.nlos_bias_mm
            }),
            range_mm: parameters.range_mm.unwrap_or(defaults.range_mm),
            miss: or_off(parameters.miss, defaults.miss),
            sync_error_mm: if named { 0.0 } else { defaults.sync_error_mm },
            survey_error: parameters
                .survey_error
                .iter()
                .map(|error| {
                    let [dx, dy, dz] = error.offset_mm;
                    (
                        error.serial_number,
                        [f64::from(dx), f64::from(dy), f64::from(dz)],
                    )
                })
                .collect(),
            still: parameters
                .still
                .iter()
                .map(|tag| (tag.serial_number, tag.position_mm.map(f64::from)))
                .collect(),
            seed: parameters.seed.unwrap_or(defaults.seed),
        }
    }
}

/// An anchor as the radio sees it.
#[derive(Debug, Clone, Copy)]
pub struct RadioAnchor {
    /// The anchor.
    pub serial_number: SerialNumber,
    /// Where it truly is, mm.
    pub position: [f64; 3],
    /// Its residual synchronisation error, mm (constant per run).
    pub sync_offset_mm: f64,
    /// Its own clock's offset from network time, mm; synchronisation
    /// removes it, so it shows only while the anchor is unsynchronised.
    pub clock_offset_mm: f64,
    /// Whether network time synchronisation holds.
    pub synchronised: bool,
}

/// The radio: options and random numbers.
#[derive(Debug)]
pub struct Radio {
    options: RadioOptions,
    rng: SmallRng,
    noise: Option<Normal<f64>>,
    nlos_delay: Option<Exp<f64>>,
}

impl Radio {
    /// A radio with `options`, its random numbers seeded with the options'
    /// seed and `salt` (for instance the configuration's name).
    pub fn new(options: RadioOptions, salt: u64) -> Self {
        let noise = Normal::new(0.0, options.toa_noise_mm)
            .ok()
            .filter(|_| options.toa_noise_mm > 0.0);
        let nlos_delay = (options.nlos_bias_mm > 0.0)
            .then(|| Exp::new(1.0 / options.nlos_bias_mm).ok())
            .flatten();
        let rng = SmallRng::seed_from_u64(options.seed ^ salt);
        Self {
            options,
            rng,
            noise,
            nlos_delay,
        }
    }

    /// The options.
    pub fn options(&self) -> &RadioOptions {
        &self.options
    }

    /// Where a tag without coordinates stands still, if `still=` names it.
    pub fn still_position(&self, serial: SerialNumber) -> Option<[f64; 3]> {
        self.options.still.get(&serial).copied()
    }

    /// A device's true position from its configured one.
    pub fn true_position(&self, serial: SerialNumber, configured: [f64; 3]) -> [f64; 3] {
        match self.options.survey_error.get(&serial) {
            Some(offset) => [
                configured[0] + offset[0],
                configured[1] + offset[1],
                configured[2] + offset[2],
            ],
            None => configured,
        }
    }

    /// A new anchor's synchronisation residual and clock offset, mm.
    pub fn anchor_offsets(&mut self) -> (f64, f64) {
        let sync = if self.options.sync_error_mm > 0.0 {
            Normal::new(0.0, self.options.sync_error_mm)
                .map(|normal| normal.sample(&mut self.rng))
                .unwrap_or(0.0)
        } else {
            0.0
        };
        // A free-running clock is microseconds off: kilometres.
        let clock = self.rng.random_range(-3.0e6..3.0e6);
        (sync, clock)
    }

    /// Uniform in `[low, high)`.
    pub fn uniform(&mut self, low: f64, high: f64) -> f64 {
        if high > low {
            self.rng.random_range(low..high)
        } else {
            low
        }
    }

    /// One measurement's error: noise plus, sometimes, an NLOS delay.
    fn measurement_error(&mut self) -> f64 {
        let noise = self
            .noise
            .map_or(0.0, |normal| normal.sample(&mut self.rng));
        let nlos = if self.options.nlos > 0.0 && self.rng.random::<f64>() < self.options.nlos {
            self.nlos_delay.map_or(0.0, |exp| exp.sample(&mut self.rng))
        } else {
            0.0
        };
        noise + nlos
    }

    fn missed(&mut self) -> bool {
        self.options.miss > 0.0 && self.rng.random::<f64>() < self.options.miss
    }

    /// The anchors in range of `at` that heard this beacon, nearest first,
    /// with their distances (at most `limit`).
    fn hearing<'a>(
        &mut self,
        at: [f64; 3],
        anchors: &'a [RadioAnchor],
        limit: usize,
        heard: &mut Vec<(&'a RadioAnchor, f64)>,
    ) {
        heard.clear();
        for anchor in anchors {
            let distance = distance(at, anchor.position);
            if distance <= self.options.range_mm {
                heard.push((anchor, distance));
            }
        }
        heard.sort_by(|a, b| a.1.total_cmp(&b.1));
        heard.truncate(limit);
        let mut index = 0;
        while index < heard.len() {
            if self.missed() {
                heard.remove(index);
            } else {
                index += 1;
            }
        }
    }

    /// What the anchors measure of a beacon a tag at `at` sends at
    /// `emission_ticks` (`multitime`): arrival times in network time.
    pub fn arrival_times(
        &mut self,
        serial_number: SerialNumber,
        at: [f64; 3],
        emission_ticks: u64,
        anchors: &[RadioAnchor],
    ) -> BeaconReport {
        let mut heard = Vec::with_capacity(anchors.len().min(MAX_LINKS));
        self.hearing(at, anchors, MAX_LINKS, &mut heard);
        let links = heard
            .iter()
            .map(|(anchor, distance)| {
                let mut flight = distance + self.measurement_error() + anchor.sync_offset_mm;
                if !anchor.synchronised {
                    flight += anchor.clock_offset_mm;
                }
                let ticks = (flight / MM_PER_TICK).round();
                (
                    anchor.serial_number,
                    ticks.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32,
                )
            })
            .collect();
        BeaconReport {
            serial_number,
            base: emission_ticks,
            links,
        }
    }

    /// The two-way ranges of a tag at `at` to the nearest anchors
    /// (`multirange`), mm.
    pub fn ranges(
        &mut self,
        serial_number: SerialNumber,
        at: [f64; 3],
        anchors: &[RadioAnchor],
    ) -> BeaconReport {
        let mut heard = Vec::with_capacity(MAX_RANGING_PEERS);
        self.hearing(at, anchors, MAX_RANGING_PEERS, &mut heard);
        let links = heard
            .iter()
            .map(|(anchor, distance)| {
                let range = (distance + self.measurement_error()).max(0.0).round();
                (anchor.serial_number, range.min(f64::from(i32::MAX)) as i32)
            })
            .collect();
        BeaconReport {
            serial_number,
            base: 0,
            links,
        }
    }

    /// A survey: `anchor` ranges every peer in range `rounds` times and
    /// reports each peer's median.
    pub fn survey(
        &mut self,
        anchor: &RadioAnchor,
        peers: &[RadioAnchor],
        rounds: u8,
    ) -> Vec<PeerRange> {
        let mut ranges = Vec::with_capacity(usize::from(rounds));
        let mut out = Vec::new();
        for peer in peers {
            if peer.serial_number == anchor.serial_number {
                continue;
            }
            let distance = distance(anchor.position, peer.position);
            if distance > self.options.range_mm {
                continue;
            }
            ranges.clear();
            for _ in 0..rounds {
                if !self.missed() {
                    ranges.push((distance + self.measurement_error()).max(0.0));
                }
            }
            if ranges.is_empty() {
                continue;
            }
            ranges.sort_by(f64::total_cmp);
            let median = ranges[ranges.len() / 2];
            out.push(PeerRange {
                peer: peer.serial_number,
                range_mm: median.round().min(f64::from(u32::MAX)) as u32,
                rounds: u8::try_from(ranges.len()).unwrap_or(u8::MAX),
            });
        }
        out
    }
}

/// Euclidean distance, mm.
pub fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchor(serial: u32, position: [f64; 3]) -> RadioAnchor {
        RadioAnchor {
            serial_number: SerialNumber::from_u32(serial),
            position,
            sync_offset_mm: 0.0,
            clock_offset_mm: 1.0e6,
            synchronised: true,
        }
    }

    #[test]
    fn a_perfect_radio_times_the_flight() {
        let parameters = SimParameters::parse("toa_noise_mm=0").unwrap();
        let mut radio = Radio::new(RadioOptions::from_parameters(&parameters), 1);
        let anchors = [
            anchor(1, [0.0, 0.0, 3_000.0]),
            anchor(2, [30_000.0, 0.0, 3_000.0]),
            anchor(3, [90_000.0, 0.0, 3_000.0]),
        ];
        let beacon = radio.arrival_times(
            SerialNumber::from_u32(9),
            [0.0, 0.0, 1_000.0],
            1 << 40,
            &anchors,
        );
        // The third anchor is beyond the default 40 m range.
        assert_eq!(beacon.links.len(), 2);
        let flight = f64::from(beacon.links[0].1) * MM_PER_TICK;
        assert!((flight - 2_000.0).abs() < MM_PER_TICK, "{flight}");
    }

    #[test]
    fn an_unsynchronised_anchor_reports_its_own_clock() {
        let parameters = SimParameters::parse("toa_noise_mm=0").unwrap();
        let mut radio = Radio::new(RadioOptions::from_parameters(&parameters), 1);
        let mut unsynced = anchor(1, [0.0, 0.0, 3_000.0]);
        unsynced.synchronised = false;
        let beacon = radio.arrival_times(
            SerialNumber::from_u32(9),
            [0.0, 0.0, 1_000.0],
            0,
            &[unsynced],
        );
        let flight = f64::from(beacon.links[0].1) * MM_PER_TICK;
        assert!(flight > 900_000.0, "{flight}");
    }

    #[test]
    fn naming_one_error_source_turns_the_others_off() {
        let options =
            RadioOptions::from_parameters(&SimParameters::parse("toa_noise_mm=30").unwrap());
        assert_eq!(options.nlos, 0.0);
        assert_eq!(options.miss, 0.0);
        assert_eq!(options.sync_error_mm, 0.0);
        let plain = RadioOptions::from_parameters(&SimParameters::default());
        assert_eq!(plain, RadioOptions::default());
    }
}
