use netcfg_model_derive::request_body;

use crate::{
    names::ItemName,
    position_limit::{PositionLimit, check_axis},
    validation::Problems,
};

/// `position_limits_post_body`: creates a bounding box (mm); each minimum
/// below its maximum.
#[request_body(check = check_post)]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct PositionLimitsPostBody {
    /// Largest x.
    pub max_x: i32,
    /// Largest y.
    pub max_y: i32,
    /// Largest z.
    pub max_z: i32,
    /// Smallest x.
    pub min_x: i32,
    /// Smallest y.
    pub min_y: i32,
    /// Smallest z.
    pub min_z: i32,
    /// Unique name within the configuration.
    pub name: ItemName,
}

impl PositionLimitsPostBody {
    /// The limit this body creates, with id `id`.
    pub fn into_limit(self, id: u32) -> PositionLimit {
        PositionLimit {
            id,
            name: self.name,
            min_x: self.min_x,
            min_y: self.min_y,
            min_z: self.min_z,
            max_x: self.max_x,
            max_y: self.max_y,
            max_z: self.max_z,
        }
    }
}

/// `position_limits_patch_body`: changes a bounding box; at least one field.
#[request_body(at_least_one, check = check_patch)]
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct PositionLimitsPatchBody {
    /// New largest x.
    pub max_x: Option<i32>,
    /// New largest y.
    pub max_y: Option<i32>,
    /// New largest z.
    pub max_z: Option<i32>,
    /// New smallest x.
    pub min_x: Option<i32>,
    /// New smallest y.
    pub min_y: Option<i32>,
    /// New smallest z.
    pub min_z: Option<i32>,
}

impl PositionLimitsPatchBody {
    /// Writes the given fields into `limit`. Validate it afterwards: a new
    /// minimum must still be below the old maximum.
    pub fn apply(&self, limit: &mut PositionLimit) {
        limit.max_x = self.max_x.unwrap_or(limit.max_x);
        limit.max_y = self.max_y.unwrap_or(limit.max_y);
        limit.max_z = self.max_z.unwrap_or(limit.max_z);
        limit.min_x = self.min_x.unwrap_or(limit.min_x);
        limit.min_y = self.min_y.unwrap_or(limit.min_y);
        limit.min_z = self.min_z.unwrap_or(limit.min_z);
    }
}

fn check_post(body: &PositionLimitsPostBody, path: &str, problems: &mut Problems) {
    check_axis('x', Some(body.min_x), Some(body.max_x), path, problems);
    check_axis('y', Some(body.min_y), Some(body.max_y), path, problems);
    check_axis('z', Some(body.min_z), Some(body.max_z), path, problems);
}

fn check_patch(body: &PositionLimitsPatchBody, path: &str, problems: &mut Problems) {
    check_axis('x', body.min_x, body.max_x, path, problems);
    check_axis('y', body.min_y, body.max_y, path, problems);
    check_axis('z', body.min_z, body.max_z, path, problems);
}
