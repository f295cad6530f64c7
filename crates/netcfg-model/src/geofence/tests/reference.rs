//! The index changes nothing: for random zones, moves and edits, the
//! tracker's crossings, occupants and zones equal those of a brute-force
//! tracker that tests every zone on every position.

use std::collections::BTreeMap;
use std::ops::Range;

use proptest::prelude::*;
use proptest::sample::subsequence;

use super::super::*;
use crate::{RoleId, SerialNumber};

/// Where a tag stands with a zone in the reference (absent: outside).
#[derive(Debug, Clone, Copy)]
enum Standing {
    Pending { since: u64 },
    Inside { since: u64 },
}

/// The rules of decisions §13 as plainly as they read, with no index.
#[derive(Debug, Default)]
struct Reference {
    fences: Vec<Fence>,
    tags: BTreeMap<SerialNumber, (Vec<RoleId>, [i32; 3])>,
    standings: BTreeMap<(FenceId, SerialNumber), Standing>,
}

impl Reference {
    fn new(fences: Vec<Fence>) -> Self {
        Self {
            fences: first_of_each_id(fences),
            ..Self::default()
        }
    }

    fn update(
        &mut self,
        serial: SerialNumber,
        roles: &[RoleId],
        position: [i32; 3],
        now: u64,
    ) -> Vec<Crossing> {
        self.tags.insert(serial, (roles.to_vec(), position));
        (0..self.fences.len())
            .filter_map(|i| self.decide(i, serial, now))
            .collect()
    }

    fn advance(&mut self, now: u64) -> Vec<Crossing> {
        let mut out = Vec::new();
        for (&(id, serial), standing) in &mut self.standings {
            let dwell = self
                .fences
                .iter()
                .find(|f| f.id == id)
                .map(|f| u64::from(f.dwell_ms));
            if let (Standing::Pending { since }, Some(dwell)) = (*standing, dwell)
                && now - since >= dwell
            {
                *standing = Standing::Inside { since: now };
                let position = self.tags[&serial].1;
                out.push(Crossing {
                    fence: id,
                    serial_number: serial,
                    kind: CrossingKind::Enter,
                    at_ms: now,
                    position,
                });
            }
        }
        out
    }

    fn replace(&mut self, fences: Vec<Fence>, now: u64) -> Vec<Crossing> {
        self.fences = first_of_each_id(fences);
        let mut out = Vec::new();
        let gone: Vec<_> = self
            .standings
            .keys()
            .filter(|(id, _)| self.fences.iter().all(|f| f.id != *id))
            .copied()
            .collect();
        for (id, serial) in gone {
            if let Some(Standing::Inside { .. }) = self.standings.remove(&(id, serial)) {
                out.push(self.crossing(id, serial, CrossingKind::Exit, now));
            }
        }
        let serials: Vec<SerialNumber> = self.tags.keys().copied().collect();
        for i in 0..self.fences.len() {
            out.extend(
                serials
                    .iter()
                    .filter_map(|&serial| self.decide(i, serial, now)),
            );
        }
        out.sort_by_key(|c| (c.fence, c.serial_number));
        out
    }

    fn forget(&mut self, serial: SerialNumber, now: u64) -> Vec<Crossing> {
        let mine: Vec<_> = self
            .standings
            .keys()
            .filter(|(_, s)| *s == serial)
            .copied()
            .collect();
        let exits = mine
            .into_iter()
            .filter_map(|key| match self.standings.remove(&key) {
                Some(Standing::Inside { .. }) => {
                    Some(self.crossing(key.0, serial, CrossingKind::Exit, now))
                }
                _ => None,
            });
        let exits = exits.collect();
        self.tags.remove(&serial);
        exits
    }

    fn occupants(&self, id: FenceId) -> Vec<Occupant> {
        let inside = self
            .standings
            .iter()
            .filter_map(|(&(fence, serial_number), standing)| match standing {
                Standing::Inside { since } if fence == id => Some(Occupant {
                    serial_number,
                    since_ms: *since,
                }),
                _ => None,
            });
        inside.collect()
    }

    fn fences_of(&self, serial: SerialNumber) -> Vec<FenceId> {
        let inside = self.standings.iter().filter(|((_, s), standing)| {
            *s == serial && matches!(standing, Standing::Inside { .. })
        });
        inside.map(|((id, _), _)| *id).collect()
    }

    /// Runs the state machine for one zone and tag on the tag's last position.
    fn decide(&mut self, fence: usize, serial: SerialNumber, now: u64) -> Option<Crossing> {
        let fence = &self.fences[fence];
        let (roles, position) = &self.tags[&serial];
        let applies = (fence.tags.is_empty() || fence.tags.contains(&serial))
            && (fence.roles.is_empty() || roles.iter().any(|r| fence.roles.contains(r)));
        let key = (fence.id, serial);
        let old = self.standings.get(&key).copied();
        let h = f64::from(fence.hysteresis_mm);
        let dwell = u64::from(fence.dwell_ms);
        let new = if applies {
            let depth = depth3(fence, *position);
            match old {
                None if depth >= h && dwell == 0 => Some(Standing::Inside { since: now }),
                None if depth >= h => Some(Standing::Pending { since: now }),
                None => None,
                Some(Standing::Pending { .. }) if depth < h => None,
                Some(Standing::Pending { since }) if now - since >= dwell => {
                    Some(Standing::Inside { since: now })
                }
                Some(pending @ Standing::Pending { .. }) => Some(pending),
                Some(Standing::Inside { .. }) if depth <= -h && depth < h => None,
                Some(inside @ Standing::Inside { .. }) => Some(inside),
            }
        } else {
            None
        };
        let id = fence.id;
        match new {
            Some(standing) => self.standings.insert(key, standing),
            None => self.standings.remove(&key),
        };
        match (old, new) {
            (Some(Standing::Inside { .. }), None) => {
                Some(self.crossing(id, serial, CrossingKind::Exit, now))
            }
            (None | Some(Standing::Pending { .. }), Some(Standing::Inside { .. })) => {
                Some(self.crossing(id, serial, CrossingKind::Enter, now))
            }
            _ => None,
        }
    }

    fn crossing(
        &self,
        fence: FenceId,
        serial_number: SerialNumber,
        kind: CrossingKind,
        at_ms: u64,
    ) -> Crossing {
        Crossing {
            fence,
            serial_number,
            kind,
            at_ms,
            position: self.tags[&serial_number].1,
        }
    }
}

fn first_of_each_id(fences: Vec<Fence>) -> Vec<Fence> {
    let mut kept: Vec<Fence> = Vec::new();
    for fence in fences {
        if kept.iter().all(|k| k.id != fence.id) {
            kept.push(fence);
        }
    }
    kept.sort_by_key(|f| f.id);
    kept
}

fn depth3(fence: &Fence, [x, y, z]: [i32; 3]) -> f64 {
    let mut depth = fence.polygon.depth(f64::from(x), f64::from(y));
    if let Some(z_min) = fence.z_min {
        depth = depth.min(f64::from(z) - f64::from(z_min));
    }
    if let Some(z_max) = fence.z_max {
        depth = depth.min(f64::from(z_max) - f64::from(z));
    }
    depth
}

const TAGS: [u32; 4] = [0x0100_0001, 0x0100_0002, 0x0100_0003, 0x0100_0004];
const ROLES: [RoleId; 3] = [RoleId(1), RoleId(2), RoleId(3)];
/// Zone ids are drawn from 0 to this, so some repeat.
const IDS: u16 = 12;

/// A random simple polygon: points around a centre at increasing angles.
fn star(centres: Range<i32>, radii: Range<i32>) -> impl Strategy<Value = Polygon> {
    let spokes = prop::collection::vec((1..100_u32, radii), 3..9);
    (centres.clone(), centres, spokes).prop_filter_map(
        "not simple once rounded",
        |(cx, cy, spokes)| {
            let turn: u32 = spokes.iter().map(|s| s.0).sum();
            let mut swept = 0;
            let points = spokes.iter().map(|&(step, radius)| {
                swept += step;
                let angle = std::f64::consts::TAU * f64::from(swept) / f64::from(turn);
                let radius = f64::from(radius);
                [
                    cx + (radius * angle.cos()).round() as i32,
                    cy + (radius * angle.sin()).round() as i32,
                ]
            });
            Polygon::new(points.collect()).ok()
        },
    )
}

fn fence() -> impl Strategy<Value = Fence> {
    // Mostly for every tag at any height, so that tags do cross.
    let heights = (
        prop::option::weighted(0.3, -500..1_000_i32),
        prop::option::weighted(0.3, 1_000..3_000_i32),
    );
    let tags = prop_oneof![3 => Just(Vec::new()), 1 => subsequence(TAGS.to_vec(), 1..=2)];
    let roles = prop_oneof![3 => Just(Vec::new()), 1 => subsequence(ROLES.to_vec(), 1..=2)];
    let filters = (tags, roles);
    let timing = (
        prop::sample::select(vec![0_u32, 300, 1_000, 2_500]),
        prop::sample::select(vec![0_u32, 0, 300, 1_000]),
    );
    // Overlapping zones in a 20 m site.
    let outline = star(4_000..16_000, 1_000..8_000);
    (0..IDS, outline, heights, filters, timing).prop_map(
        |(id, polygon, (z_min, z_max), (tags, roles), (hysteresis_mm, dwell_ms))| Fence {
            id,
            polygon,
            z_min,
            z_max,
            hysteresis_mm,
            dwell_ms,
            tags: tags.into_iter().map(SerialNumber::from_u32).collect(),
            roles,
        },
    )
}

#[derive(Debug, Clone)]
enum Move {
    To([i32; 3]),
    By([i32; 3]),
}

#[derive(Debug, Clone)]
enum Op {
    Update {
        tag: usize,
        roles: Vec<RoleId>,
        movement: Move,
    },
    Advance,
    Replace(Vec<Fence>),
    Forget(usize),
}

fn op() -> impl Strategy<Value = (u64, Op)> {
    let to = (-2_000..22_000_i32, -2_000..22_000_i32, -500..3_500_i32)
        .prop_map(|(x, y, z)| Move::To([x, y, z]));
    let by =
        (-500..500_i32, -500..500_i32, -200..200_i32).prop_map(|(x, y, z)| Move::By([x, y, z]));
    let update = (
        0..TAGS.len(),
        subsequence(ROLES.to_vec(), 0..=2),
        prop_oneof![1 => to, 5 => by],
    )
        .prop_map(|(tag, roles, movement)| Op::Update {
            tag,
            roles,
            movement,
        });
    let op = prop_oneof![
        12 => update,
        2 => Just(Op::Advance),
        1 => prop::collection::vec(fence(), 0..10).prop_map(Op::Replace),
        1 => (0..TAGS.len()).prop_map(Op::Forget),
    ];
    (0..700_u64, op)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_index_decides_as_testing_every_zone_would(
        fences in prop::collection::vec(fence(), 0..10),
        ops in prop::collection::vec(op(), 1..100),
    ) {
        let mut geofence = Geofence::new(fences.clone());
        let mut reference = Reference::new(fences);
        let mut positions = [[10_000, 10_000, 1_000]; TAGS.len()];
        let mut now = 0;
        for (step, (after_ms, op)) in ops.into_iter().enumerate() {
            now += after_ms;
            let mut got = Vec::new();
            let expected = match op {
                Op::Update { tag, roles, movement } => {
                    positions[tag] = match movement {
                        Move::To(p) => p,
                        Move::By(d) => std::array::from_fn(|i| positions[tag][i] + d[i]),
                    };
                    let serial = SerialNumber::from_u32(TAGS[tag]);
                    geofence.update(serial, &roles, positions[tag], now, &mut got);
                    reference.update(serial, &roles, positions[tag], now)
                }
                Op::Advance => {
                    geofence.advance(now, &mut got);
                    reference.advance(now)
                }
                Op::Replace(fences) => {
                    geofence.replace(fences.clone(), now, &mut got);
                    reference.replace(fences, now)
                }
                Op::Forget(tag) => {
                    geofence.forget(SerialNumber::from_u32(TAGS[tag]), now, &mut got);
                    reference.forget(SerialNumber::from_u32(TAGS[tag]), now)
                }
            };
            prop_assert_eq!(got, expected, "step {}", step);
            prop_assert_eq!(geofence.len(), reference.fences.len());
            for id in 0..IDS {
                prop_assert_eq!(geofence.occupants(id), reference.occupants(id), "zone {}", id);
            }
            for serial in TAGS.map(SerialNumber::from_u32) {
                prop_assert_eq!(geofence.fences_of(serial), reference.fences_of(serial));
            }
        }
    }
}
