//! Where the simulated tags truly were at each beacon, for the one tally
//! that compares positions with the truth (`/accuracy` of a simulator
//! instance, decisions §18). The solver and the tracker never read it.

use std::{
    collections::{HashMap, VecDeque},
    sync::{Arc, Mutex},
};

use netcfg_model::{SerialNumber, sync::lock};

/// Beacons a tag's truth is kept for: about three seconds at 10 Hz, more
/// than a batch ever waits between the simulator and the engine.
const KEPT: usize = 32;

/// A tag's latest beacons: (emission time, true position).
type Beacons = VecDeque<(u64, [f64; 3])>;

/// The true positions of each tag's latest beacons, by emission time.
#[derive(Debug, Clone, Default)]
pub struct TruthBoard {
    /// foldhash: looked up at every beacon, twice (crate::locator).
    tags: Arc<Mutex<HashMap<SerialNumber, Beacons, foldhash::fast::RandomState>>>,
}

impl TruthBoard {
    /// `serial`'s beacon emitted at `network_time` (units of 1/975,000 s)
    /// left from `position` (mm).
    pub(crate) fn record(&self, serial: SerialNumber, network_time: u64, position: [f64; 3]) {
        let mut tags = lock(&self.tags);
        let kept = tags.entry(serial).or_default();
        if kept.len() == KEPT {
            kept.pop_front();
        }
        kept.push_back((network_time, position));
    }

    /// Where `serial` was at its latest beacon emitted at or before
    /// `network_time`.
    pub fn at(&self, serial: SerialNumber, network_time: u64) -> Option<[f64; 3]> {
        let tags = lock(&self.tags);
        tags.get(&serial)?
            .iter()
            .rev()
            .find(|(emitted, _)| *emitted <= network_time)
            .map(|(_, position)| *position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_truth_of_a_beacon_is_the_latest_emitted_by_then() {
        let board = TruthBoard::default();
        let tag = SerialNumber::from_u32(0x0104_0001);
        assert_eq!(board.at(tag, 10), None);
        for beacon in 0..40u32 {
            board.record(tag, u64::from(beacon) * 100, [f64::from(beacon), 0.0, 0.0]);
        }
        assert_eq!(board.at(tag, 3_950), Some([39.0, 0.0, 0.0]));
        assert_eq!(board.at(tag, 3_899), Some([38.0, 0.0, 0.0]));
        // Older than what is kept.
        assert_eq!(board.at(tag, 500), None);
    }
}
