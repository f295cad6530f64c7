use serde_json::Value;

use crate::{
    DeviceAction, FromJson, RoleId, SerialNumber,
    json::{Fields, check_unique, elements, leaf},
    names::ItemName,
    validation::{Problems, join},
    zone::{DwellMs, HysteresisMm, MAX_ZONE_FILTER, Zone, ZonePolygon},
};

/// `zone_post_body`: adds a zone (decisions §13).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ZonePostBody {
    /// Unique name within the configuration.
    pub name: ItemName,
    /// The outline: 3 to 1,000 `[x, y]` points in mm, a simple polygon.
    pub polygon: ZonePolygon,
    /// The lowest height inside, mm; none: no floor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i32")]
    pub z_min: Option<i32>,
    /// The highest height inside, mm; none: no ceiling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i32")]
    pub z_max: Option<i32>,
    /// How far inside a tag must be to enter, and outside to leave, mm;
    /// 150 by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "HysteresisMm")]
    pub hysteresis_mm: Option<HysteresisMm>,
    /// How long a tag must stay inside before it enters, ms; 0 by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "DwellMs")]
    pub dwell_ms: Option<DwellMs>,
    /// The only tags it applies to (serial numbers of the configuration's
    /// devices); every tag when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<SerialNumber>", length(max = 1000))]
    pub tags: Option<Vec<SerialNumber>>,
    /// The only roles it applies to (role ids); every role when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<RoleId>", length(max = 1000))]
    pub roles: Option<Vec<RoleId>>,
    /// The action sent to a tag that enters (a device command body).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "DeviceAction")]
    pub on_enter: Option<DeviceAction>,
    /// The action sent to a tag that leaves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "DeviceAction")]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("minProperties" = 1))]
pub struct ZonePatchBody {
    /// A new name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "ItemName")]
    pub name: Option<ItemName>,
    /// A new outline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "ZonePolygon")]
    pub polygon: Option<ZonePolygon>,
    /// A new floor, or `null` for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<i32>")]
    pub z_min: Option<Option<i32>>,
    /// A new ceiling, or `null` for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<i32>")]
    pub z_max: Option<Option<i32>>,
    /// A new hysteresis, mm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "HysteresisMm")]
    pub hysteresis_mm: Option<HysteresisMm>,
    /// A new dwell, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "DwellMs")]
    pub dwell_ms: Option<DwellMs>,
    /// New tags it applies to, or `null` (or `[]`) for every tag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Vec<SerialNumber>>", length(max = 1000))]
    pub tags: Option<Option<Vec<SerialNumber>>>,
    /// New roles it applies to, or `null` (or `[]`) for every role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Vec<RoleId>>", length(max = 1000))]
    pub roles: Option<Option<Vec<RoleId>>>,
    /// A new action on enter, or `null` for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<DeviceAction>")]
    pub on_enter: Option<Option<DeviceAction>>,
    /// A new action on exit, or `null` for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<DeviceAction>")]
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
    T: serde::de::DeserializeOwned + PartialEq + std::fmt::Display,
{
    let items = elements(value, path, problems, leaf::<T>)?;
    let mut clean = items.iter().all(Option::is_some);
    if items.len() > MAX_ZONE_FILTER {
        problems.push(
            path,
            format!("at most {MAX_ZONE_FILTER} entries, not {}", items.len()),
        );
        clean = false;
    }
    clean &= check_unique(
        &items,
        path,
        problems,
        |item| item.to_string(),
        |item| (String::new(), item.to_string()),
    );
    clean.then(|| items.into_iter().flatten().collect())
}

/// Reads an optional field that `null` clears: absent `None`, `null`
/// `Some(None)`.
pub(super) fn clearable<T>(
    fields: &mut Fields<'_>,
    value: &Value,
    name: &'static str,
    problems: &mut Problems,
    read: impl FnOnce(&Value, &str, &mut Problems) -> Option<T>,
) -> Option<Option<T>> {
    if value.get(name).is_some_and(Value::is_null) {
        fields.tolerate(&[name]);
        return Some(None);
    }
    fields.optional_with(name, problems, read).map(Some)
}

fn action(value: &Value, path: &str, problems: &mut Problems) -> Option<DeviceAction> {
    DeviceAction::from_json_at(value, path, problems)
}

impl FromJson for ZonePostBody {
    fn from_json_at(value: &Value, path: &str, problems: &mut Problems) -> Option<Self> {
        let mut fields = Fields::open(value, path, problems)?;
        let name = fields.required("name", problems);
        let polygon = fields.required("polygon", problems);
        let z_min = fields.optional("z_min", problems);
        let z_max = fields.optional("z_max", problems);
        let hysteresis_mm = fields.optional("hysteresis_mm", problems);
        let dwell_ms = fields.optional("dwell_ms", problems);
        let tags = fields.optional_with("tags", problems, filter_list);
        let roles = fields.optional_with("roles", problems, filter_list);
        let on_enter = fields.optional_with("on_enter", problems, action);
        let on_exit = fields.optional_with("on_exit", problems, action);
        let mut clean = fields.finish(problems);
        let before = problems.as_slice().len();
        check_heights(z_min, z_max, path, problems);
        clean &= problems.as_slice().len() == before;
        let body = Self {
            name: name?,
            polygon: polygon?,
            z_min,
            z_max,
            hysteresis_mm,
            dwell_ms,
            tags,
            roles,
            on_enter,
            on_exit,
        };
        clean.then_some(body)
    }
}

impl FromJson for ZonePatchBody {
    fn from_json_at(value: &Value, path: &str, problems: &mut Problems) -> Option<Self> {
        let mut fields = Fields::open(value, path, problems)?;
        let before = problems.as_slice().len();
        let name = fields.optional("name", problems);
        let polygon = fields.optional("polygon", problems);
        let z_min = clearable(&mut fields, value, "z_min", problems, leaf);
        let z_max = clearable(&mut fields, value, "z_max", problems, leaf);
        let hysteresis_mm = fields.optional("hysteresis_mm", problems);
        let dwell_ms = fields.optional("dwell_ms", problems);
        let tags = clearable(&mut fields, value, "tags", problems, filter_list);
        let roles = clearable(&mut fields, value, "roles", problems, filter_list);
        let on_enter = clearable(&mut fields, value, "on_enter", problems, action);
        let on_exit = clearable(&mut fields, value, "on_exit", problems, action);
        if value.as_object().is_some_and(|object| object.is_empty()) {
            problems.push(
                path,
                "at least one field must be given: name, polygon, z_min, z_max, hysteresis_mm, \
                 dwell_ms, tags, roles, on_enter, on_exit",
            );
        }
        fields.finish(problems);
        if let (Some(Some(low)), Some(Some(high))) = (z_min, z_max) {
            check_heights(Some(low), Some(high), path, problems);
        }
        let clean = problems.as_slice().len() == before;
        clean.then_some(Self {
            name,
            polygon,
            z_min,
            z_max,
            hysteresis_mm,
            dwell_ms,
            tags,
            roles,
            on_enter,
            on_exit,
        })
    }
}

crate::json::deserialize_via_from_json!(ZonePostBody, ZonePatchBody);
