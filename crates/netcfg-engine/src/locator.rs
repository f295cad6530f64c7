//! The location server of one running configuration: it solves each
//! beacon from what the anchors measured (decisions §12), using only the
//! configuration (the anchors' configured positions) and the measurements,
//! follows each tag with its role's tracker (§18), and keeps the tags'
//! accuracy and which tags cannot be located.

use std::{collections::HashMap, fmt, sync::Arc};

use netcfg_model::{
    Position, RoleId, SerialNumber, TagAccuracy,
    locate::{
        Fix, Geometry, HeightBelief, Link, Measure, Point, Solver, Track, TrackSettings, Tracker,
        Unsolved, quality_from_error,
    },
    time::ticks::{MM_PER_TICK, seconds_from_units, units_from_ticks},
};

use crate::{
    plan::NetworkPlan,
    protocol::{BeaconReport, PositionReport},
};

/// Beacons in a row a tag must go unlocated (or located) before the
/// engine says so, so a tag at the edge of coverage does not flood.
const STREAK: u8 = 20;

/// Where a simulated tag truly was at a beacon (serial, network time):
/// given to the accuracy tally of a simulator instance, never to the
/// solver or the tracker.
#[derive(Clone)]
pub(crate) struct Truth(pub(crate) Arc<dyn Fn(SerialNumber, u64) -> Option<Point> + Send + Sync>);

impl fmt::Debug for Truth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Truth")
    }
}

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

#[derive(Debug)]
struct TagState {
    last: Option<Point>,
    /// Consecutive beacons unlocated (positive) or located (negative).
    streak: i16,
    /// Whether the engine has said it cannot be located.
    told_unlocated: bool,
    /// Its height, learned where the anchors cannot resolve z per beacon.
    height: HeightBelief,
    tracker: Tracker,
}

/// The log-scale histogram of a tag's errors (1% bins from 0.1 mm), so
/// its 95th percentile is known within 1% in a few KiB.
#[derive(Debug)]
struct Tally {
    count: u64,
    sum: f64,
    sum_squares: f64,
    max: f64,
    within: u64,
    bins: Bins,
}

const BIN_FLOOR_MM: f64 = 0.1;
const BIN_RATIO_LN: f64 = 0.00995; // ln(1.01)
const BINS: usize = 1_700; // up to about 2 km

/// Bins in a chunk of [`Bins`].
const CHUNK_BINS: usize = 64;

/// A histogram's [`BINS`] counts, kept in chunks of [`CHUNK_BINS`] made
/// when first counted into: a tag's errors span a few chunks (20 to 200 mm
/// is 4), so its two tallies hold about 1 KiB, not 13.6, and 3,300 tags'
/// tallies stay near the cache (each beacon counts into two of them).
#[derive(Debug, Default)]
struct Bins {
    chunks: Vec<Option<Box<[u32; CHUNK_BINS]>>>,
}

impl Bins {
    fn add(&mut self, bin: usize) {
        let bin = bin.min(BINS - 1);
        let (chunk, at) = (bin / CHUNK_BINS, bin % CHUNK_BINS);
        if self.chunks.len() <= chunk {
            self.chunks.resize_with(chunk + 1, || None);
        }
        self.chunks[chunk].get_or_insert_with(|| Box::new([0; CHUNK_BINS]))[at] += 1;
    }

    /// Each bin's count, in order, up to the last chunk made.
    fn counts(&self) -> impl Iterator<Item = u32> + '_ {
        self.chunks.iter().flat_map(|chunk| {
            let counts: &[u32; CHUNK_BINS] = chunk.as_deref().unwrap_or(&NO_COUNTS);
            counts.iter().copied()
        })
    }
}

/// A chunk never counted into.
static NO_COUNTS: [u32; CHUNK_BINS] = [0; CHUNK_BINS];

fn round_tenth(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

impl Tally {
    fn new() -> Self {
        Self {
            count: 0,
            sum: 0.0,
            sum_squares: 0.0,
            max: 0.0,
            within: 0,
            bins: Bins::default(),
        }
    }

    fn add(&mut self, error_mm: f64, estimate_mm: f64) {
        self.count += 1;
        self.sum += error_mm;
        self.sum_squares += error_mm * error_mm;
        self.max = self.max.max(error_mm);
        if error_mm <= estimate_mm {
            self.within += 1;
        }
        let bin = ((error_mm.max(BIN_FLOOR_MM) / BIN_FLOOR_MM).ln() / BIN_RATIO_LN) as usize;
        self.bins.add(bin);
    }

    fn percentile(&self, share: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let wanted = (self.count as f64 * share).ceil() as u64;
        let mut seen = 0u64;
        for (bin, count) in self.bins.counts().enumerate() {
            seen += u64::from(count);
            if seen >= wanted.max(1) {
                // The bin's upper edge.
                return BIN_FLOOR_MM * ((bin + 1) as f64 * BIN_RATIO_LN).exp();
            }
        }
        0.0
    }

    fn mean(&self) -> f64 {
        self.sum / self.count.max(1) as f64
    }

    fn rms(&self) -> f64 {
        (self.sum_squares / self.count.max(1) as f64).sqrt()
    }
}

/// One tag's tallies: its delivered positions and its per-beacon fixes.
#[derive(Debug)]
struct TagTally {
    reference: bool,
    delivered: Tally,
    fixes: Tally,
}

impl TagTally {
    fn new(reference: bool) -> Self {
        Self {
            reference,
            delivered: Tally::new(),
            fixes: Tally::new(),
        }
    }

    fn report(&self, serial_number: SerialNumber) -> TagAccuracy {
        let delivered = &self.delivered;
        TagAccuracy {
            serial_number,
            reference: self.reference,
            fixes: delivered.count,
            mean_error_mm: round_tenth(delivered.mean()),
            rms_mm: round_tenth(delivered.rms()),
            r95_mm: round_tenth(delivered.percentile(0.95)),
            max_error_mm: round_tenth(delivered.max),
            within_estimate: (delivered.within as f64 / delivered.count.max(1) as f64 * 10_000.0)
                .round()
                / 10_000.0,
            fix_rms_mm: round_tenth(self.fixes.rms()),
            fix_r95_mm: round_tenth(self.fixes.percentile(0.95)),
            fix_max_mm: round_tenth(self.fixes.max),
        }
    }
}

/// Maps and sets keyed by serial numbers, looked up many times a beacon:
/// foldhash, not SipHash (their keys come from the configuration and the
/// network, not from a request).
pub(crate) type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
type FastSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;

/// One configuration's location server.
#[derive(Debug)]
pub(crate) struct Locator {
    solver: Solver,
    anchors: FastMap<SerialNumber, Point>,
    unsynchronised: FastSet<SerialNumber>,
    references: FastMap<SerialNumber, Point>,
    /// Each planned tag's role's tracking; tags the plan does not hold are
    /// tracked as the DEFAULT TAG role says.
    settings: FastMap<SerialNumber, TrackSettings>,
    default_settings: TrackSettings,
    tags: FastMap<SerialNumber, TagState>,
    tallies: FastMap<SerialNumber, TagTally>,
    truth: Option<Truth>,
    links: Vec<Link>,
}

impl Locator {
    /// The location server of `plan`: its anchors, reference tags and
    /// roles' tracking; with `truth` (a simulator instance), every tag's
    /// accuracy is tallied against it too.
    pub(crate) fn new(plan: &NetworkPlan, truth: Option<Truth>) -> Self {
        let mut anchors = FastMap::default();
        let mut references = FastMap::default();
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
        let mut locator = Self {
            solver: Solver::new(geometry),
            anchors,
            unsynchronised: FastSet::default(),
            tallies: references
                .keys()
                .map(|serial| (*serial, TagTally::new(true)))
                .collect(),
            references,
            settings: FastMap::default(),
            default_settings: TrackSettings::default(),
            tags: FastMap::default(),
            truth,
            links: Vec::new(),
        };
        locator.take_tracking(plan);
        locator
    }

    /// Takes the tracking of `plan`'s roles, at once for the tags being
    /// tracked (decisions §18: a role change applies to the running network).
    pub(crate) fn take_tracking(&mut self, plan: &NetworkPlan) {
        let by_role: HashMap<RoleId, TrackSettings> = plan
            .roles
            .iter()
            .filter_map(|role| Some((role.id, role.track_settings()?)))
            .collect();
        self.default_settings = by_role
            .get(&RoleId::DEFAULT_TAG)
            .copied()
            .unwrap_or_default();
        self.settings = plan
            .devices
            .iter()
            .filter_map(|device| {
                let role = device.interfaces.first()?.role_id;
                Some((device.serial_number, *by_role.get(&role)?))
            })
            .collect();
        for (serial, state) in &mut self.tags {
            state.tracker.set_settings(
                self.settings
                    .get(serial)
                    .copied()
                    .unwrap_or(self.default_settings),
            );
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
    pub(crate) fn anchors(&self) -> &FastMap<SerialNumber, Point> {
        &self.anchors
    }

    /// Solves and tracks a batch of beacons received at `network_time`
    /// (units of 1/975,000 s): the positions located, and what changed that
    /// a person should hear of. A beacon whose fix the tracker refuses
    /// delivers no position.
    pub(crate) fn solve(
        &mut self,
        beacons: &[BeaconReport],
        in_ticks: bool,
        network_time: u64,
        news: &mut Vec<LocationNews>,
    ) -> Vec<PositionReport> {
        let mut located = Vec::with_capacity(beacons.len());
        let seconds = seconds_from_units(network_time);
        for beacon in beacons {
            self.gather_links(beacon, in_ticks);
            let serial = beacon.serial_number;
            let settings = self
                .settings
                .get(&serial)
                .copied()
                .unwrap_or(self.default_settings);
            let state = self.tags.entry(serial).or_insert_with(|| TagState {
                last: None,
                streak: 0,
                told_unlocated: false,
                height: HeightBelief::default(),
                tracker: Tracker::new(settings),
            });
            let emitted = emission_seconds(beacon, in_ticks, seconds);
            match self
                .solver
                .solve_near(&self.links, state.last, &state.height, emitted)
            {
                Ok(fix) => {
                    state.last = Some(fix.position);
                    state.streak = if state.streak > 0 {
                        -1
                    } else {
                        state.streak.saturating_sub(1)
                    };
                    if state.told_unlocated && state.streak <= -i16::from(STREAK) {
                        state.told_unlocated = false;
                        news.push(LocationNews::Located(serial));
                    }
                    let track = state.tracker.update(emitted, &fix);
                    if track.is_some() {
                        // A fix the tracker refuses is likely an outlier:
                        // it teaches the height nothing.
                        state.height.learn(emitted, &fix);
                    }
                    self.tally(serial, network_time, &fix, track.as_ref());
                    if let Some(track) = track {
                        located.push(report(serial, &fix, &track));
                    }
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
                                tag: serial,
                                heard,
                                needs,
                            },
                            _ => LocationNews::Unsolvable(serial),
                        });
                    }
                }
            }
        }
        located
    }

    /// The beacon's links from synchronised anchors of the plan.
    fn gather_links(&mut self, beacon: &BeaconReport, in_ticks: bool) {
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
    }

    /// Adds a fix and its delivered position (if any) to the tag's tally:
    /// against its configured position for a reference tag, against the
    /// simulator's truth for any other tag of a simulator instance.
    fn tally(&mut self, serial: SerialNumber, network_time: u64, fix: &Fix, track: Option<&Track>) {
        let truth = match self.references.get(&serial) {
            Some(reference) => *reference,
            None => match self
                .truth
                .as_ref()
                .and_then(|truth| (truth.0)(serial, network_time))
            {
                Some(point) => point,
                None => return,
            },
        };
        let error = |position: Point| (position[0] - truth[0]).hypot(position[1] - truth[1]);
        let tally = self
            .tallies
            .entry(serial)
            .or_insert_with(|| TagTally::new(false));
        tally.fixes.add(error(fix.position), fix.error_mm);
        if let Some(track) = track {
            tally.delivered.add(error(track.position), track.error_mm);
        }
    }

    /// Every tallied tag's accuracy since the start, by serial number.
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

/// Beacons whose own time is further than this from their frame's (s)
/// are timed by the frame: their base is not on the network's clock.
const MAX_BASE_SKEW_S: f64 = 1.0;

/// When the beacon left the tag (seconds of network time), as the tracker
/// needs it: a frame gathers the beacons of up to one step of the
/// simulator (10 ms) or of an anchor's batch, so the frame's time is late
/// by a varying share of that, and at 3 m/s 10 ms is 30 mm. In
/// `multitime` each beacon's base is its own time in ticks; in
/// `multirange` (base 0) the frame's time is all there is.
fn emission_seconds(beacon: &BeaconReport, in_ticks: bool, frame_seconds: f64) -> f64 {
    if !in_ticks || beacon.base == 0 {
        return frame_seconds;
    }
    let own = seconds_from_units(units_from_ticks(beacon.base));
    if (own - frame_seconds).abs() <= MAX_BASE_SKEW_S {
        own
    } else {
        frame_seconds
    }
}

/// The position a tracked beacon delivers.
fn report(serial_number: SerialNumber, fix: &Fix, track: &Track) -> PositionReport {
    let round = |value: f64| {
        value
            .round()
            .clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
    };
    let velocity = track.velocity.map(|velocity| velocity.map(round));
    PositionReport {
        serial_number,
        position: Position {
            x: round(track.position[0]),
            y: round(track.position[1]),
            z: round(track.position[2]),
            quality: quality_from_error(track.error_mm),
            anchors_used: fix.links_used,
            error_mm: track.error_mm.round().clamp(0.0, f64::from(u32::MAX)) as u32,
            vx: velocity.map(|[vx, _]| vx),
            vy: velocity.map(|[_, vy]| vy),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tally_knows_its_percentile_within_a_percent() {
        let mut tally = TagTally::new(true);
        for millimetres in 1..=1_000 {
            tally.delivered.add(f64::from(millimetres), 500.0);
            tally.fixes.add(f64::from(millimetres) * 2.0, 500.0);
        }
        let report = tally.report(SerialNumber::from_u32(1));
        assert_eq!(report.fixes, 1_000);
        assert!((report.r95_mm - 950.0).abs() <= 10.0, "{}", report.r95_mm);
        assert!((report.mean_error_mm - 500.5).abs() < 0.1);
        assert!((report.within_estimate - 0.5).abs() < 1e-9);
        assert_eq!((report.max_error_mm, report.fix_max_mm), (1_000.0, 2_000.0));
        assert!(
            (report.fix_r95_mm - 1_900.0).abs() <= 20.0,
            "{}",
            report.fix_r95_mm
        );
        assert!(report.reference);
        // 1 to 2,000 mm: the chunks from 0.1 mm up (none skipped), not
        // all of them.
        assert!(tally.fixes.bins.chunks.len() < BINS / CHUNK_BINS);
    }

    #[test]
    fn chunks_never_counted_into_read_as_zeros() {
        let mut tally = Tally::new();
        // 5 mm and 500 m: bins 393 and 1,550, chunks 6 and 24.
        for _ in 0..19 {
            tally.add(5.0, 1.0);
        }
        tally.add(500_000.0, 1.0);
        let made = tally
            .bins
            .chunks
            .iter()
            .filter(|chunk| chunk.is_some())
            .count();
        assert_eq!(made, 2);
        assert!(
            (tally.percentile(0.95) - 5.0).abs() <= 0.06,
            "{}",
            tally.percentile(0.95)
        );
        let top = tally.percentile(1.0);
        assert!((top - 500_000.0).abs() <= 5_000.0, "{top}");
        assert_eq!(tally.bins.counts().count(), 25 * CHUNK_BINS);
        assert_eq!(tally.bins.counts().map(u64::from).sum::<u64>(), 20);
    }

    #[test]
    fn a_beacon_is_tracked_at_its_own_time_when_it_has_one() {
        use netcfg_model::time::ticks::TICKS_PER_UNIT;
        let beacon = |base: u64| BeaconReport {
            serial_number: SerialNumber::from_u32(1),
            base,
            links: Vec::new(),
        };
        let frame = 2.0;
        // 1.95 s of network time in ticks: the frame's time is 50 ms late.
        let own = 1_901_250 * TICKS_PER_UNIT;
        assert!((emission_seconds(&beacon(own), true, frame) - 1.95).abs() < 1e-6);
        // Ranges carry no time of their own; nor does a base of 0.
        assert_eq!(emission_seconds(&beacon(own), false, frame), frame);
        assert_eq!(emission_seconds(&beacon(0), true, frame), frame);
        // A base on another clock than the network's is not trusted.
        assert_eq!(emission_seconds(&beacon(own * 10), true, frame), frame);
    }
}
