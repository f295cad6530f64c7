use netcfg_model_derive::request_body;

use crate::{
    names::ItemName,
    schedule::{CronExpr, Schedule, ScheduleAction, TimeZoneName},
};

/// `schedule_post_body`: adds a schedule (decisions §16).
#[request_body]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct SchedulePostBody {
    /// Unique name within the configuration.
    pub name: ItemName,
    /// When it runs: 5 cron fields, or 6 with seconds first.
    pub cron: CronExpr,
    /// The IANA time zone `cron` is read in; UTC by default.
    pub timezone: Option<TimeZoneName>,
    /// What it does to the network.
    pub action: ScheduleAction,
    /// Whether it runs; true by default.
    pub enabled: Option<bool>,
}

impl SchedulePostBody {
    /// The schedule this body adds.
    pub fn into_schedule(self) -> Schedule {
        Schedule {
            name: self.name,
            cron: self.cron,
            timezone: self.timezone.unwrap_or_default(),
            action: self.action,
            enabled: self.enabled.unwrap_or(true),
        }
    }
}

/// `schedule_patch_body`: changes a schedule; at least one field.
#[request_body(at_least_one)]
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct SchedulePatchBody {
    /// A new name.
    pub name: Option<ItemName>,
    /// A new cron expression.
    pub cron: Option<CronExpr>,
    /// A new time zone.
    pub timezone: Option<TimeZoneName>,
    /// A new action.
    pub action: Option<ScheduleAction>,
    /// Enables or disables it.
    pub enabled: Option<bool>,
}

impl SchedulePatchBody {
    /// `schedule` with the given fields.
    pub fn apply(&self, schedule: &Schedule) -> Schedule {
        Schedule {
            name: self.name.clone().unwrap_or_else(|| schedule.name.clone()),
            cron: self.cron.clone().unwrap_or_else(|| schedule.cron.clone()),
            timezone: self.timezone.unwrap_or(schedule.timezone),
            action: self.action.unwrap_or(schedule.action),
            enabled: self.enabled.unwrap_or(schedule.enabled),
        }
    }

    /// True when the change moves when the schedule runs (so its runs are
    /// counted from the change, not from before it).
    pub fn retimes(&self) -> bool {
        self.cron.is_some() || self.timezone.is_some() || self.enabled.is_some()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::FromJson;

    #[test]
    fn a_post_body_names_every_problem_on_its_field() {
        let body = json!({"name": "", "cron": "0 0 30 2 *", "timezone": "Mars/Olympus", "action": "explode", "enabled": 1});
        let problems = SchedulePostBody::from_json(&body).unwrap_err();
        assert_eq!(
            problems.paths(),
            ["name", "cron", "timezone", "action", "enabled"]
        );
        let good = json!({"name": "weekday start", "cron": "0 6 * * MON-FRI", "action": "start"});
        let schedule = SchedulePostBody::from_json(&good).unwrap().into_schedule();
        assert_eq!(
            (schedule.timezone.as_str(), schedule.enabled),
            ("UTC", true)
        );
    }

    #[test]
    fn a_patch_changes_what_it_names() {
        let schedule = SchedulePostBody::from_json(
            &json!({"name": "night", "cron": "0 3 * * *", "action": "restart"}),
        )
        .unwrap()
        .into_schedule();
        let patch = SchedulePatchBody::from_json(&json!({"timezone": "Europe/Berlin"})).unwrap();
        assert!(patch.retimes());
        let changed = patch.apply(&schedule);
        assert_eq!(changed.timezone.as_str(), "Europe/Berlin");
        assert_eq!(changed.cron, schedule.cron);
        let rename = SchedulePatchBody::from_json(&json!({"name": "nightly"})).unwrap();
        assert!(!rename.retimes());
        assert!(SchedulePatchBody::from_json(&json!({})).is_err());
    }
}
