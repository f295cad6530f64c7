//! How simulated tags move: walk to a point, pause, turn, walk on, over
//! the whole area the anchors cover (a random-waypoint walk). People walk
//! at about 1.4 m/s; one tag in five rides a vehicle at 2 to 3 m/s.

use netcfg_model::SerialNumber;

use super::radio::Radio;

/// The area tags walk in, mm.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Area {
    /// South-west corner.
    pub(super) min: [f64; 2],
    /// North-east corner.
    pub(super) max: [f64; 2],
}

impl Area {
    /// The anchors' horizontal bounding box less a margin of a tenth of its
    /// size (tags keep off the walls); a 10 m square around the origin
    /// without anchors.
    pub(super) fn of_anchors(anchors: &[[f64; 3]]) -> Self {
        if anchors.is_empty() {
            return Self {
                min: [-5_000.0, -5_000.0],
                max: [5_000.0, 5_000.0],
            };
        }
        let mut min = [f64::INFINITY; 2];
        let mut max = [f64::NEG_INFINITY; 2];
        for anchor in anchors {
            for axis in 0..2 {
                min[axis] = min[axis].min(anchor[axis]);
                max[axis] = max[axis].max(anchor[axis]);
            }
        }
        for axis in 0..2 {
            let margin = (max[axis] - min[axis]) * 0.1;
            min[axis] += margin;
            max[axis] -= margin;
        }
        Self { min, max }
    }
}

/// One moving tag's walk.
#[derive(Debug, Clone)]
pub(super) struct Walker {
    from: [f64; 2],
    to: [f64; 2],
    /// Seconds since the start: leaves `from`, reaches `to`, leaves `to` again.
    departs: f64,
    arrives: f64,
    pause_until: f64,
    speed_mm_s: f64,
    longest_pause_s: f64,
    height_mm: f64,
}

impl Walker {
    /// A tag's walk from a random point of `area`; its pace and height come
    /// from its serial number, so a tag keeps its gait between runs.
    pub(super) fn new(serial: SerialNumber, area: &Area, radio: &mut Radio) -> Self {
        let seed = serial.as_u32();
        let vehicle = seed % 5 == 4;
        let speed_mm_s = if vehicle {
            2_000.0 + f64::from(seed % 11) * 100.0
        } else {
            1_100.0 + f64::from(seed % 7) * 100.0
        };
        let start = random_point(area, radio);
        let mut walker = Self {
            from: start,
            to: start,
            departs: 0.0,
            arrives: 0.0,
            pause_until: radio.uniform(0.0, 2.0),
            speed_mm_s,
            longest_pause_s: if vehicle { 2.0 } else { 5.0 },
            height_mm: if vehicle {
                1_800.0
            } else {
                1_000.0 + f64::from(seed % 5) * 100.0
            },
        };
        walker.departs = walker.pause_until;
        walker.arrives = walker.pause_until;
        walker
    }

    /// Where the tag is `seconds` after the start (times only move forward).
    pub(super) fn position_at(&mut self, seconds: f64, area: &Area, radio: &mut Radio) -> [f64; 3] {
        while seconds >= self.pause_until {
            // Turn towards a new point.
            self.from = self.to;
            self.to = random_point(area, radio);
            self.departs = self.pause_until;
            let length = (self.to[0] - self.from[0]).hypot(self.to[1] - self.from[1]);
            self.arrives = self.departs + length / self.speed_mm_s;
            self.pause_until = self.arrives + radio.uniform(0.0, self.longest_pause_s);
        }
        let share = if seconds <= self.departs {
            0.0
        } else if seconds >= self.arrives {
            1.0
        } else {
            (seconds - self.departs) / (self.arrives - self.departs)
        };
        [
            self.from[0] + (self.to[0] - self.from[0]) * share,
            self.from[1] + (self.to[1] - self.from[1]) * share,
            self.height_mm,
        ]
    }
}

fn random_point(area: &Area, radio: &mut Radio) -> [f64; 2] {
    [
        radio.uniform(area.min[0], area.max[0]),
        radio.uniform(area.min[1], area.max[1]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::radio::RadioOptions;

    #[test]
    fn walkers_cover_the_area_at_walking_pace() {
        let mut radio = Radio::new(RadioOptions::default(), 3);
        let area = Area::of_anchors(&[[0.0, 0.0, 3_000.0], [20_000.0, 15_000.0, 3_000.0]]);
        let mut walker = Walker::new(SerialNumber::from_u32(0x0105_0001), &area, &mut radio);
        let mut previous = walker.position_at(0.0, &area, &mut radio);
        let (mut seen_min, mut seen_max) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for step in 1..=6_000 {
            let now = f64::from(step) * 0.1;
            let here = walker.position_at(now, &area, &mut radio);
            let moved = (here[0] - previous[0]).hypot(here[1] - previous[1]);
            assert!(moved <= 1_800.0 * 0.1 + 1e-6, "{moved} mm in 0.1 s");
            for axis in 0..2 {
                assert!(here[axis] >= area.min[axis] && here[axis] <= area.max[axis]);
                seen_min[axis] = seen_min[axis].min(here[axis]);
                seen_max[axis] = seen_max[axis].max(here[axis]);
            }
            previous = here;
        }
        // Ten minutes of walking reaches most of the 16 m × 12 m area.
        assert!(seen_max[0] - seen_min[0] > 12_000.0);
        assert!(seen_max[1] - seen_min[1] > 9_000.0);
    }
}
