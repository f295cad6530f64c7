use netcfg_model_derive::request_body;
use serde_json::Value;

use crate::{
    DeviceAction, RoleId, SerialNumber,
    json::{distinct_array, leaf},
    names::ItemName,
    validation::{Problems, join},
    zone::{DwellMs, HysteresisMm, MAX_ZONE_FILTER, Zone, ZonePolygon},
};

/// `zone_post_body`: adds a zone (decisions §13).
#[request_body(check = check_post(z_min, z_max))]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct ZonePostBody {
    /// Unique name within the configuration.
    pub name: ItemName,
    /// The outline: 3 to 1,000 `[x, y]` points in mm, a simple polygon.
    pub polygon: ZonePolygon,
    /// The lowest height inside, mm; none: no floor.
    pub z_min: Option<i32>,
    /// The highest height inside, mm; none: no ceiling.
    pub z_max: Option<i32>,
    /// How far inside a tag must be to enter, and outside to leave, mm;
    /// 150 by default.
    pub hysteresis_mm: Option<HysteresisMm>,
    /// How long a tag must stay inside before it enters, ms; 0 by default.
    pub dwell_ms: Option<DwellMs>,
    /// The only tags it applies to (serial numbers of the configuration's
    /// devices); every tag when not given.
    #[schemars(length(max = 1000))]
    #[from_json(with = filter_list)]
    pub tags: Option<Vec<SerialNumber>>,
    /// The only roles it applies to (role ids); every role when not given.
    #[schemars(length(max = 1000))]
    #[from_json(with = filter_list)]
    pub roles: Option<Vec<RoleId>>,
    /// The action sent to a tag that enters (a device command body).
    #[from_json(with = DeviceAction::from_json_at)]
    pub on_enter: Option<DeviceAction>,
    /// The action sent to a tag that leaves.
    #[from_json(with = DeviceAction::from_json_at)]
    pub on_exit: Option<DeviceAction>,
}

impl ZonePostBody {
    /// The zone this body adds, with the number the store gives it.
    pub fn into_zone(self, zone_id: u16) -> Zone {
        Zone {
            name: self.name,
            zone_id,
            polygon: self.polygon,
            z_min: self.z_min,
            z_max: self.z_max,
            hysteresis_mm: self.hysteresis_mm.unwrap_or(HysteresisMm::DEFAULT),
            dwell_ms: self.dwell_ms.unwrap_or_default(),
            tags: self.tags.unwrap_or_default(),
            roles: self.roles.unwrap_or_default(),
            on_enter: self.on_enter,
            on_exit: self.on_exit,
        }
    }
}

/// `zone_patch_body`: changes a zone; at least one field. `null` clears an
/// optional field (`z_min`, `z_max`, `tags`, `roles`, `on_enter`,
/// `on_exit`).
#[request_body(at_least_one, check = check_patch)]
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct ZonePatchBody {
    /// A new name.
    pub name: Option<ItemName>,
    /// A new outline.
    pub polygon: Option<ZonePolygon>,
    /// A new floor, or `null` for none.
    pub z_min: Option<Option<i32>>,
    /// A new ceiling, or `null` for none.
    pub z_max: Option<Option<i32>>,
    /// A new hysteresis, mm.
    pub hysteresis_mm: Option<HysteresisMm>,
    /// A new dwell, ms.
    pub dwell_ms: Option<DwellMs>,
    /// New tags it applies to, or `null` (or `[]`) for every tag.
    #[schemars(length(max = 1000))]
    #[from_json(with = filter_list)]
    pub tags: Option<Option<Vec<SerialNumber>>>,
    /// New roles it applies to, or `null` (or `[]`) for every role.
    #[schemars(length(max = 1000))]
    #[from_json(with = filter_list)]
    pub roles: Option<Option<Vec<RoleId>>>,
    /// A new action on enter, or `null` for none.
    #[from_json(with = DeviceAction::from_json_at)]
    pub on_enter: Option<Option<DeviceAction>>,
    /// A new action on exit, or `null` for none.
    #[from_json(with = DeviceAction::from_json_at)]
    pub on_exit: Option<Option<DeviceAction>>,
}

impl ZonePatchBody {
    /// `zone` with the given fields; every problem of the result.
    pub fn apply(&self, zone: &Zone) -> Result<Zone, Problems> {
        let mut changed = zone.clone();
        if let Some(name) = &self.name {
            changed.name = name.clone();
        }
        if let Some(polygon) = &self.polygon {
            changed.polygon = polygon.clone();
        }
        if let Some(z_min) = self.z_min {
            changed.z_min = z_min;
        }
        if let Some(z_max) = self.z_max {
            changed.z_max = z_max;
        }
        changed.hysteresis_mm = self.hysteresis_mm.unwrap_or(zone.hysteresis_mm);
        changed.dwell_ms = self.dwell_ms.unwrap_or(zone.dwell_ms);
        if let Some(tags) = &self.tags {
            changed.tags = tags.clone().unwrap_or_default();
        }
        if let Some(roles) = &self.roles {
            changed.roles = roles.clone().unwrap_or_default();
        }
        if let Some(on_enter) = &self.on_enter {
            changed.on_enter = on_enter.clone();
        }
        if let Some(on_exit) = &self.on_exit {
            changed.on_exit = on_exit.clone();
        }
        let mut problems = Problems::new();
        check_heights(changed.z_min, changed.z_max, "", &mut problems);
        if problems.is_empty() {
            Ok(changed)
        } else {
            Err(problems)
        }
    }
}

/// A floor above the ceiling is a problem on `z_max`.
fn check_heights(z_min: Option<i32>, z_max: Option<i32>, path: &str, problems: &mut Problems) {
    if let (Some(low), Some(high)) = (z_min, z_max)
        && high <= low
    {
        problems.push(
            join(path, "z_max"),
            format!("z_max ({high} mm) must be above z_min ({low} mm)"),
        );
    }
}

/// Reads a list of tags or roles: each element well formed, none twice, at
/// most [`MAX_ZONE_FILTER`].
fn filter_list<T>(value: &Value, path: &str, problems: &mut Problems) -> Option<Vec<T>>
where
    T: serde::de::DeserializeOwned + std::fmt::Display,
{
    distinct_array(
        value,
        path,
        problems,
        leaf::<T>,
        |count| {
            (count > MAX_ZONE_FILTER)
                .then(|| format!("at most {MAX_ZONE_FILTER} entries, not {count}"))
        },
        |item| item.to_string(),
        |item| (String::new(), item.to_string()),
    )
}

/// Run with whatever was read, even when a required field was not: the
/// heights do not depend on it.
fn check_post(z_min: &Option<i32>, z_max: &Option<i32>, path: &str, problems: &mut Problems) {
    check_heights(*z_min, *z_max, path, problems);
}

/// Only a floor and a ceiling given together are compared here; `apply`
/// checks the zone that results.
fn check_patch(body: &ZonePatchBody, path: &str, problems: &mut Problems) {
    check_heights(body.z_min.flatten(), body.z_max.flatten(), path, problems);
}
