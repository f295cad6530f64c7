//! Zones as geometry (decisions.md §13): simple polygons with an optional
//! height range, and the state machine that turns a tag's positions into
//! enters and exits with hysteresis and dwell. Pure: the engine feeds it
//! positions and the clock.
//!
//! - [`Polygon`]: a zone's outline, validated exactly (integer orientation
//!   tests, no floating point), with [`Polygon::contains`] and the signed
//!   distance to its boundary, [`Polygon::depth`].
//! - [`Geofence`]: the zones of a running configuration and, per tag and
//!   zone, outside, pending (inside by the hysteresis, waiting out the
//!   dwell) or inside. [`Geofence::update`] turns a position into
//!   [`Crossing`]s; [`Geofence::advance`] lets dwells run out without a new
//!   position; [`Geofence::replace`] applies an edit of the zones.
//!
//! # The rules
//!
//! How far a tag at `(x, y, z)` is inside a [`Fence`] is
//! `min(polygon.depth(x, y), z - z_min, z_max - z)` (the height terms only
//! where set). A tag enters once it has been inside by at least
//! `hysteresis_mm` for `dwell_ms`, and leaves once it is outside by at least
//! `hysteresis_mm`. With a hysteresis of 0 a tag exactly on the boundary is
//! both; it then counts as inside (it stays in, or enters), so it cannot
//! flap between the two on every position. A fence whose `tags` or `roles`
//! stop matching a tag is left at once, wherever the tag is.
//!
//! # Polygons
//!
//! A repeated point, next to its twin or not, is
//! [`PolygonError::SelfIntersecting`] naming the two edges that start at
//! the two copies (for neighbours, one of them has no length). Points all
//! on one line, repeated or not, are [`PolygonError::Degenerate`], which
//! is checked first. Of several meeting pairs of edges, the first by
//! `(first, second)` is reported, so the error does not depend on how the
//! check is done.
//!
//! # The index
//!
//! [`Geofence`] finds the zones near a position through a uniform grid over
//! the zones' boxes (each grown by its hysteresis, the farthest a tag can
//! be and still matter): one division per axis and a slice of the zones
//! whose grown box overlaps the cell, in id order. We chose it over an
//! R-tree (the `rstar` crate): the zones are a fixed set rebuilt whole on
//! each edit, the queries are points, and a grid lookup costs the same
//! whatever the number of zones, with no dependency. Its cell is the median
//! zone's size, so a typical cell lists a handful of zones, grown until the
//! grid and its lists stay within a small multiple of the zone count (a few
//! site-sized zones cannot make it huge).

use crate::{RoleId, SerialNumber};

mod index;
mod polygon;
mod tracker;

#[cfg(test)]
mod tests;

pub use polygon::{Polygon, PolygonError};
pub use tracker::Geofence;

/// The fewest points of a zone's polygon.
pub const MIN_POINTS: usize = 3;
/// The most points of a zone's polygon.
pub const MAX_POINTS: usize = 1_000;

/// A zone's identifier within its configuration (stable across renames).
pub type FenceId = u16;

/// A zone as the tracker sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Fence {
    /// Its identifier.
    pub id: FenceId,
    /// Its outline.
    pub polygon: Polygon,
    /// The lowest height inside, mm (none: no floor).
    pub z_min: Option<i32>,
    /// The highest, mm (none: no ceiling).
    pub z_max: Option<i32>,
    /// How far inside a tag must be to enter, and outside to leave, mm.
    pub hysteresis_mm: u32,
    /// How long a tag must stay inside by the hysteresis before it enters.
    pub dwell_ms: u32,
    /// The tags it applies to; empty: every tag.
    pub tags: Vec<SerialNumber>,
    /// The roles it applies to; empty: every role.
    pub roles: Vec<RoleId>,
}

/// Entering or leaving.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrossingKind {
    /// The tag entered.
    Enter,
    /// The tag left.
    Exit,
}

/// A tag entering or leaving a zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Crossing {
    /// The zone.
    pub fence: FenceId,
    /// The tag.
    pub serial_number: SerialNumber,
    /// Which way.
    pub kind: CrossingKind,
    /// When (the time of the position, or of the change, that decided it).
    pub at_ms: u64,
    /// The tag's position that decided it, mm.
    pub position: [i32; 3],
}

/// A tag inside a zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occupant {
    /// The tag.
    pub serial_number: SerialNumber,
    /// Since its enter.
    pub since_ms: u64,
}
