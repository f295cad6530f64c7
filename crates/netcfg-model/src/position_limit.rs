//! Position limits (bounding boxes) of a configuration.

use std::fmt;

use crate::{
    names::ItemName,
    validation::{Problems, Validate, join},
};

/// A bounding box, in millimetres: positions outside it are limited to it.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct PositionLimit {
    /// The limit's id within the configuration.
    pub id: u32,
    /// Unique name within the configuration.
    pub name: ItemName,
    /// Smallest x (mm).
    pub min_x: i32,
    /// Smallest y (mm).
    pub min_y: i32,
    /// Smallest z (mm).
    pub min_z: i32,
    /// Largest x (mm).
    pub max_x: i32,
    /// Largest y (mm).
    pub max_y: i32,
    /// Largest z (mm).
    pub max_z: i32,
}

/// Records a problem when a given minimum is not below a given maximum.
pub(crate) fn check_axis(
    axis: char,
    min: Option<i32>,
    max: Option<i32>,
    path: &str,
    problems: &mut Problems,
) {
    if let (Some(min), Some(max)) = (min, max)
        && min >= max
    {
        problems.push(
            join(path, &format!("min_{axis}")),
            format!("min_{axis} ({min}) must be below max_{axis} ({max})"),
        );
    }
}

impl Validate for PositionLimit {
    fn validate_at(&self, path: &str, problems: &mut Problems) {
        check_axis('x', Some(self.min_x), Some(self.max_x), path, problems);
        check_axis('y', Some(self.min_y), Some(self.max_y), path, problems);
        check_axis('z', Some(self.min_z), Some(self.max_z), path, problems);
    }
}

/// How a request names a position limit.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PositionLimitKey {
    /// By id (5.1 paths).
    Id(u32),
    /// By name (5.0 paths).
    Name(ItemName),
}

impl fmt::Display for PositionLimitKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Id(id) => write!(f, "position limit {id}"),
            Self::Name(name) => write!(f, "position limit {name}"),
        }
    }
}
