//! The location server of one running configuration: it solves each
//! beacon from what the anchors measured (decisions §12), using only the
//! configuration (the anchors' configured positions) and the measurements,
//! and keeps the reference tags' accuracy and which tags cannot be located.

use std::collections::{HashMap, HashSet};

use netcfg_model::{
    Position, SerialNumber, TagAccuracy,
    locate::{Geometry, Link, Measure, Point, Solver, Unsolved, quality_from_error},
    time::ticks::MM_PER_TICK,
};

use crate::{
    plan::NetworkPlan,
    protocol::{BeaconReport, PositionReport},
};

/// Beacons in a row a tag must go unlocated (or located) before the
/// engine says so, so a tag at the edge of coverage does not flood.
const STREAK: u8 = 20;

/// A tag's location changed in a way a person should hear of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LocationNews {
    /// It cannot be located: heard by `heard` anchors, needs `needs`.
    Unlocated {
        /// The tag.
        tag: SerialNumber,
        /// Anchors that heard its last beacon.
        heard: usize,
        /// Anchors a fix needs.
        needs: usize,
    },
    /// It is located again.
    Located(SerialNumber),
    /// Its beacons are heard but cannot be solved (geometry).
    Unsolvable(SerialNumber),
}

#[derive(Debug, Default)]
struct TagState {
    last: Option<Point>,
    /// Consecutive beacons unlocated (positive) or located (negative).
    streak: i16,
    /// Whether the engine has said it cannot be located.
    told_unlocated: bool,
}

/// The log-scale histogram of a reference tag's errors (1% bins from
/// 0.1 mm), so its 95th percentile is known within 1% in a few KiB.
#[derive(Debug)]
struct Tally {
    fixes: u64,
    sum: f64,
    sum_squares: f64,
    within: u64,
    bins: Vec<u32>,
}

const BIN_FLOOR_MM: f64 = 0.1;
const BIN_RATIO_LN: f64 = 0.00995; // ln(1.01)
const BINS: usize = 1_700; // up to about 2 km

impl Tally {
    fn new() -> Self {
        Self {
            fixes: 0,
            sum: 0.0,
            sum_squares: 0.0,
            within: 0,
            bins: vec![0; BINS],
        }
    }

    fn add(&mut self, error_mm: f64, estimate_mm: f64) {
        self.fixes += 1;
        self.sum += error_mm;
        self.sum_squares += error_mm * error_mm;
        if error_mm <= estimate_mm {
            self.within += 1;
        }
        let bin = ((error_mm.max(BIN_FLOOR_MM) / BIN_FLOOR_MM).ln() / BIN_RATIO_LN) as usize;
        self.bins[bin.min(BINS - 1)] += 1;
    }

    fn percentile(&self, share: f64) -> f64 {
        let wanted = (self.fixes as f64 * share).ceil() as u64;
        let mut seen = 0u64;
        for (bin, count) in self.bins.iter().enumerate() {
            seen += u64::from(*count);
            if seen >= wanted.max(1) {
                // The bin's upper edge.
                return BIN_FLOOR_MM * ((bin + 1) as f64 * BIN_RATIO_LN).exp();
            }
        }
        0.0
    }

    fn report(&self, serial_number: SerialNumber) -> TagAccuracy {
        let fixes = self.fixes.max(1) as f64;
        let round = |value: f64| (value * 10.0).round() / 10.0;
        TagAccuracy {
            serial_number,
            fixes: self.fixes,
            mean_error_mm: round(self.sum / fixes),
            rms_mm: round((self.sum_squares / fixes).sqrt()),
            r95_mm: round(if self.fixes == 0 {
                0.0
            } else {
                self.percentile(0.95)
            }),
            within_estimate: (self.within as f64 / fixes * 10_000.0).round() / 10_000.0,
        }
    }
}

/// One configuration's location server.
#[derive(Debug)]
pub(crate) struct Locator {
    solver: Solver,
    anchors: HashMap<SerialNumber, Point>,
    unsynchronised: HashSet<SerialNumber>,
    references: HashMap<SerialNumber, Point>,
    tags: HashMap<SerialNumber, TagState>,
    tallies: HashMap<SerialNumber, Tally>,
    links: Vec<Link>,
}

impl Locator {
    /// The location server of `plan`: its anchors and reference tags.
    pub(crate) fn new(plan: &NetworkPlan) -> Self {
        let mut anchors = HashMap::new();
        let mut references = HashMap::new();
        for device in &plan.devices {
            if device.disabled {
                continue;
            }
            let Some(interface) = device.interfaces.first() else {
                continue;
            };
            let Some(position) = interface.position() else {
                continue;
            };
            let point = position.map(f64::from);
            if interface.role_id.needs_position() {
                anchors.insert(device.serial_number, point);
            } else if interface.role_id.is_tag_role() {
                references.insert(device.serial_number, point);
            }
        }
        let points: Vec<Point> = anchors.values().copied().collect();
        let geometry = Geometry::of_anchors(Measure::from(plan.network_mode), &points);
        Self {
            solver: Solver::new(geometry),
            anchors,
            unsynchronised: HashSet::new(),
            tallies: references
                .keys()
                .map(|serial| (*serial, Tally::new()))
                .collect(),
            references,
            tags: HashMap::new(),
            links: Vec::new(),
        }
    }

    /// An anchor's synchronisation changed: an unsynchronised anchor's
    /// times are its own clock's, so they are left out.
    pub(crate) fn set_synchronised(&mut self, anchor: SerialNumber, synchronised: bool) {
        if synchronised {
            self.unsynchronised.remove(&anchor);
        } else {
            self.unsynchronised.insert(anchor);
        }
    }

    /// The anchors' configured positions.
    pub(crate) fn anchors(&self) -> &HashMap<SerialNumber, Point> {
        &self.anchors
    }

    /// Solves a batch of beacons: the positions located, and what changed
    /// that a person should hear of.
    pub(crate) fn solve(
        &mut self,
        beacons: &[BeaconReport],
        in_ticks: bool,
        news: &mut Vec<LocationNews>,
    ) -> Vec<PositionReport> {
        let mut located = Vec::with_capacity(beacons.len());
        for beacon in beacons {
            self.links.clear();
            for (anchor, value) in &beacon.links {
                if self.unsynchronised.contains(anchor) {
                    continue;
                }
                if let Some(position) = self.anchors.get(anchor) {
                    let value_mm = if in_ticks {
                        f64::from(*value) * MM_PER_TICK
                    } else {
                        f64::from(*value)
                    };
                    self.links.push(Link {
                        anchor: *position,
                        value_mm,
                    });
                }
            }
            let state = self.tags.entry(beacon.serial_number).or_default();
            match self.solver.solve(&self.links, state.last) {
                Ok(fix) => {
                    state.last = Some(fix.position);
                    state.streak = if state.streak > 0 {
                        -1
                    } else {
                        state.streak.saturating_sub(1)
                    };
                    if state.told_unlocated && state.streak <= -i16::from(STREAK) {
                        state.told_unlocated = false;
                        news.push(LocationNews::Located(beacon.serial_number));
                    }
                    if let (Some(reference), Some(tally)) = (
                        self.references.get(&beacon.serial_number),
                        self.tallies.get_mut(&beacon.serial_number),
                    ) {
                        let error =
                            (fix.position[0] - reference[0]).hypot(fix.position[1] - reference[1]);
                        tally.add(error, fix.error_mm);
                    }
                    let round = |value: f64| {
                        value
                            .round()
                            .clamp(f64::from(i32::MIN), f64::from(i32::MAX))
                            as i32
                    };
                    located.push(PositionReport {
                        serial_number: beacon.serial_number,
                        position: Position {
                            x: round(fix.position[0]),
                            y: round(fix.position[1]),
                            z: round(fix.position[2]),
                            quality: quality_from_error(fix.error_mm),
                            anchors_used: fix.links_used,
                            error_mm: fix.error_mm.round().clamp(0.0, f64::from(u32::MAX)) as u32,
                        },
                    });
                }
                Err(unsolved) => {
                    state.streak = if state.streak < 0 {
                        1
                    } else {
                        state.streak.saturating_add(1)
                    };
                    if !state.told_unlocated && state.streak >= i16::from(STREAK) {
                        state.told_unlocated = true;
                        news.push(match unsolved {
                            Unsolved::TooFewLinks { heard, needs } => LocationNews::Unlocated {
                                tag: beacon.serial_number,
                                heard,
                                needs,
                            },
                            _ => LocationNews::Unsolvable(beacon.serial_number),
                        });
                    }
                }
            }
        }
        located
    }

    /// The reference tags' accuracy since the start, by serial number.
    pub(crate) fn accuracy(&self) -> Vec<TagAccuracy> {
        let mut report: Vec<TagAccuracy> = self
            .tallies
            .iter()
            .map(|(serial, tally)| tally.report(*serial))
            .collect();
        report.sort_by_key(|accuracy| accuracy.serial_number);
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tally_knows_its_percentile_within_a_percent() {
        let mut tally = Tally::new();
        for millimetres in 1..=1_000 {
            tally.add(f64::from(millimetres), 500.0);
        }
        let report = tally.report(SerialNumber::from_u32(1));
        assert_eq!(report.fixes, 1_000);
        assert!((report.r95_mm - 950.0).abs() <= 10.0, "{}", report.r95_mm);
        assert!((report.mean_error_mm - 500.5).abs() < 0.1);
        assert!((report.within_estimate - 0.5).abs() < 1e-9);
    }
}
