//! The tracker: per tag, its last position and roles and the fences it is
//! pending for or inside; the fences near a position come from the grid.

use std::collections::{BTreeSet, HashMap};

use super::index::{self, Grid};
use super::{Crossing, CrossingKind, Fence, FenceId, Occupant};
use crate::{RoleId, SerialNumber};

/// The zones of a running configuration and where each tag stands with
/// them.
///
/// An [`update`](Self::update) looks only at the zones listed in the
/// position's grid cell and those the tag is in or pending for, so its cost
/// does not grow with the number of zones; [`advance`](Self::advance) looks
/// only at the pending enters that are due.
#[derive(Debug, Default)]
pub struct Geofence {
    /// By id, ids distinct: so an index into it orders like the id.
    fences: Vec<Fence>,
    index: Grid,
    tags: HashMap<SerialNumber, Tag>,
    /// Every pending enter as (when its dwell runs out, fence, tag), so
    /// `advance` looks only at those due.
    dwells: BTreeSet<(u64, FenceId, SerialNumber)>,
}

/// What the tracker keeps of a tag.
#[derive(Debug)]
struct Tag {
    roles: Vec<RoleId>,
    position: [i32; 3],
    /// The fences it is not outside of, by fence index (so also by id).
    memberships: Vec<Membership>,
}

#[derive(Debug, Clone, Copy)]
struct Membership {
    fence: u32,
    state: State,
}

/// A tag's standing with a fence other than outside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Inside by the hysteresis since `since`, but not for the dwell yet.
    Pending { since: u64, due: u64 },
    /// Entered at `since`.
    Inside { since: u64 },
}

impl Geofence {
    /// Zones with no tag in them yet. Ids should be distinct; of two zones
    /// with one id, the first is kept.
    pub fn new(fences: Vec<Fence>) -> Self {
        let fences = by_id(fences);
        Self {
            index: Grid::new(&fences),
            fences,
            ..Self::default()
        }
    }

    /// How many zones.
    pub fn len(&self) -> usize {
        self.fences.len()
    }

    /// True with no zones.
    pub fn is_empty(&self) -> bool {
        self.fences.is_empty()
    }

    /// One position of a tag with `roles`, at `now_ms`: pushes the crossings
    /// it decides onto `out`, by fence id.
    pub fn update(
        &mut self,
        serial_number: SerialNumber,
        roles: &[RoleId],
        position: [i32; 3],
        now_ms: u64,
        out: &mut Vec<Crossing>,
    ) {
        let tag = self.tags.entry(serial_number).or_insert_with(|| Tag {
            roles: Vec::new(),
            position,
            memberships: Vec::new(),
        });
        if tag.roles != roles {
            tag.roles.clear();
            tag.roles.extend_from_slice(roles);
        }
        tag.position = position;
        let candidates = self.index.candidates(position[0], position[1]);
        let mut sink = Sink {
            dwells: &mut self.dwells,
            out,
            now_ms,
        };
        reconsider(&self.fences, candidates, serial_number, tag, &mut sink);
    }

    /// Enters whose dwell ran out with no new position since, at `now_ms`,
    /// by fence id then serial number.
    pub fn advance(&mut self, now_ms: u64, out: &mut Vec<Crossing>) {
        let start = out.len();
        while let Some(&(due, fence_id, serial_number)) = self.dwells.first() {
            if due > now_ms {
                break;
            }
            self.dwells.pop_first();
            // A pending state is in the queue exactly while it is pending,
            // so its fence and tag are there; the tag is still inside by
            // the hysteresis, or its last position would have reset it.
            let fence = self.fences.binary_search_by_key(&fence_id, |f| f.id);
            let tag = self.tags.get_mut(&serial_number);
            let (Ok(fence), Some(tag)) = (fence, tag) else {
                continue;
            };
            let same_fence = |m: &&mut Membership| m.fence as usize == fence;
            let Some(membership) = tag.memberships.iter_mut().find(same_fence) else {
                continue;
            };
            membership.state = State::Inside { since: now_ms };
            out.push(Crossing {
                fence: fence_id,
                serial_number,
                kind: CrossingKind::Enter,
                at_ms: now_ms,
                position: tag.position,
            });
        }
        out[start..].sort_unstable_by_key(|c| (c.fence, c.serial_number));
    }

    /// New zones (matched to the old by id): the exits and enters that
    /// follow from the change, by each tag's last position, by fence id then
    /// serial number.
    pub fn replace(&mut self, fences: Vec<Fence>, now_ms: u64, out: &mut Vec<Crossing>) {
        let start = out.len();
        let old_fences = std::mem::replace(&mut self.fences, by_id(fences));
        let new_index: Vec<Option<u32>> = old_fences
            .iter()
            .map(|old| {
                self.fences
                    .binary_search_by_key(&old.id, |f| f.id)
                    .ok()
                    .map(|i| i as u32)
            })
            .collect();
        self.index = Grid::new(&self.fences);
        let mut sink = Sink {
            dwells: &mut self.dwells,
            out,
            now_ms,
        };
        for (&serial_number, tag) in &mut self.tags {
            let position = tag.position;
            tag.memberships
                .retain_mut(|m| match new_index[m.fence as usize] {
                    Some(index) => {
                        m.fence = index;
                        true
                    }
                    None => {
                        let gone = &old_fences[m.fence as usize];
                        sink.record(gone, serial_number, position, Some(m.state), None);
                        false
                    }
                });
            let candidates = self.index.candidates(position[0], position[1]);
            reconsider(&self.fences, candidates, serial_number, tag, &mut sink);
        }
        out[start..].sort_unstable_by_key(|c| (c.fence, c.serial_number));
    }

    /// A tag that went silent: exits from every zone it is in, by fence id.
    pub fn forget(&mut self, serial_number: SerialNumber, now_ms: u64, out: &mut Vec<Crossing>) {
        let Some(tag) = self.tags.remove(&serial_number) else {
            return;
        };
        let mut sink = Sink {
            dwells: &mut self.dwells,
            out,
            now_ms,
        };
        for m in &tag.memberships {
            let fence = &self.fences[m.fence as usize];
            sink.record(fence, serial_number, tag.position, Some(m.state), None);
        }
    }

    /// The tags inside zone `fence`, by serial number.
    pub fn occupants(&self, fence: FenceId) -> Vec<Occupant> {
        let Ok(fence) = self.fences.binary_search_by_key(&fence, |f| f.id) else {
            return Vec::new();
        };
        let mut occupants: Vec<Occupant> = (self.tags.iter())
            .filter_map(|(&serial_number, tag)| {
                let m = tag.memberships.iter().find(|m| m.fence as usize == fence)?;
                match m.state {
                    State::Inside { since } => Some(Occupant {
                        serial_number,
                        since_ms: since,
                    }),
                    State::Pending { .. } => None,
                }
            })
            .collect();
        occupants.sort_unstable_by_key(|o| o.serial_number);
        occupants
    }

    /// The zones tag `serial_number` is inside, by id.
    pub fn fences_of(&self, serial_number: SerialNumber) -> Vec<FenceId> {
        let Some(tag) = self.tags.get(&serial_number) else {
            return Vec::new();
        };
        (tag.memberships.iter())
            .filter(|m| matches!(m.state, State::Inside { .. }))
            .map(|m| self.fences[m.fence as usize].id)
            .collect()
    }
}

/// Sorted by id, the first of each id kept.
fn by_id(mut fences: Vec<Fence>) -> Vec<Fence> {
    fences.sort_by_key(|f| f.id);
    fences.dedup_by_key(|f| f.id);
    fences
}

/// Where state changes go: the crossings, and the dwell queue.
struct Sink<'a> {
    dwells: &'a mut BTreeSet<(u64, FenceId, SerialNumber)>,
    out: &'a mut Vec<Crossing>,
    now_ms: u64,
}

impl Sink<'_> {
    /// The change from `old` to `new` (none: outside) of a tag at `position`.
    fn record(
        &mut self,
        fence: &Fence,
        serial_number: SerialNumber,
        position: [i32; 3],
        old: Option<State>,
        new: Option<State>,
    ) {
        if let Some(State::Pending { due, .. }) = old {
            self.dwells.remove(&(due, fence.id, serial_number));
        }
        if let Some(State::Pending { due, .. }) = new {
            self.dwells.insert((due, fence.id, serial_number));
        }
        let inside = |state: Option<State>| matches!(state, Some(State::Inside { .. }));
        let kind = match (inside(old), inside(new)) {
            (false, true) => CrossingKind::Enter,
            (true, false) => CrossingKind::Exit,
            _ => return,
        };
        let at_ms = self.now_ms;
        self.out.push(Crossing {
            fence: fence.id,
            serial_number,
            kind,
            at_ms,
            position,
        });
    }
}

/// Re-decides the tag's standing with every fence it is in or pending for,
/// or whose reach its cell lists, by its last position and roles; its
/// crossings go out by fence id.
fn reconsider(
    fences: &[Fence],
    candidates: &[u32],
    serial_number: SerialNumber,
    tag: &mut Tag,
    sink: &mut Sink<'_>,
) {
    let start = sink.out.len();
    // A fence not listed in the tag's cell is out of its reach: the tag is
    // outside it by more than the hysteresis.
    tag.memberships.retain(|m| {
        let near = candidates.binary_search(&m.fence).is_ok();
        if !near {
            sink.record(
                &fences[m.fence as usize],
                serial_number,
                tag.position,
                Some(m.state),
                None,
            );
        }
        near
    });
    for &fence_index in candidates {
        let fence = &fences[fence_index as usize];
        let slot = tag
            .memberships
            .binary_search_by_key(&fence_index, |m| m.fence);
        let old = slot.ok().map(|i| tag.memberships[i].state);
        let depth = depth_for(fence, serial_number, &tag.roles, tag.position);
        let new = next_state(fence, old, depth, sink.now_ms);
        if old == new {
            continue;
        }
        sink.record(fence, serial_number, tag.position, old, new);
        match (slot, new) {
            (Ok(i), Some(state)) => tag.memberships[i].state = state,
            (Ok(i), None) => _ = tag.memberships.remove(i),
            (Err(i), Some(state)) => tag.memberships.insert(
                i,
                Membership {
                    fence: fence_index,
                    state,
                },
            ),
            (Err(_), None) => {}
        }
    }
    sink.out[start..].sort_unstable_by_key(|c| c.fence);
}

/// How far inside `fence` a tag is (with the height range), or none when
/// the fence does not apply to it. Out of the fence's reach: minus infinity
/// (farther out than the hysteresis; the exact distance does not matter).
fn depth_for(
    fence: &Fence,
    serial_number: SerialNumber,
    roles: &[RoleId],
    [x, y, z]: [i32; 3],
) -> Option<f64> {
    let for_tag = fence.tags.is_empty() || fence.tags.contains(&serial_number);
    let for_roles = fence.roles.is_empty() || fence.roles.iter().any(|r| roles.contains(r));
    if !(for_tag && for_roles) {
        return None;
    }
    if !index::within(index::reach(fence), x, y) {
        return Some(f64::NEG_INFINITY);
    }
    let z = f64::from(z);
    let above_floor = fence
        .z_min
        .map_or(f64::INFINITY, |z_min| z - f64::from(z_min));
    let below_ceiling = fence
        .z_max
        .map_or(f64::INFINITY, |z_max| f64::from(z_max) - z);
    let flat = fence.polygon.depth(f64::from(x), f64::from(y));
    Some(flat.min(above_floor).min(below_ceiling))
}

/// The state machine (decisions §13) for one tag and fence: `depth` none
/// means the fence no longer applies, which leaves it wherever the tag is.
fn next_state(fence: &Fence, old: Option<State>, depth: Option<f64>, now_ms: u64) -> Option<State> {
    let depth = depth?;
    let hysteresis = f64::from(fence.hysteresis_mm);
    let inside_by_hysteresis = depth >= hysteresis;
    // At a hysteresis of 0 the boundary is both; it counts as inside.
    let outside_by_hysteresis = depth <= -hysteresis && !inside_by_hysteresis;
    let dwelling = |since: u64| {
        let due = since.saturating_add(u64::from(fence.dwell_ms));
        if now_ms >= due {
            State::Inside { since: now_ms }
        } else {
            State::Pending { since, due }
        }
    };
    match old {
        None => inside_by_hysteresis.then(|| dwelling(now_ms)),
        Some(State::Pending { since, .. }) => inside_by_hysteresis.then(|| dwelling(since)),
        Some(inside @ State::Inside { .. }) => (!outside_by_hysteresis).then_some(inside),
    }
}
