use netcfg_model_derive::request_body;

use crate::{
    Level,
    alert_rule::{AlertCondition, AlertRule, HoldSeconds, add_threshold_rules, check_threshold},
    names::ItemName,
    validation::Problems,
};

/// `alert_rule_post_body`: adds an alert rule (decisions §16).
#[request_body(check = check_post)]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[schemars(transform = add_threshold_rules)]
pub struct AlertRulePostBody {
    /// Unique name within the configuration.
    pub name: ItemName,
    /// What the rule watches.
    pub condition: AlertCondition,
    /// The condition's threshold: a percentage for `battery_below` and
    /// `packet_loss_above`, positions a second for `positions_below`; no
    /// other condition takes one.
    pub threshold: Option<u32>,
    /// How long (s) the condition must hold before the rule fires; 0 (the
    /// default) at once, at most a day.
    pub for_s: Option<HoldSeconds>,
    /// The level of the notification it raises; 2 (warning) by default.
    pub level: Option<Level>,
}

impl AlertRulePostBody {
    /// The rule this body adds.
    pub fn into_rule(self) -> AlertRule {
        AlertRule {
            name: self.name,
            condition: self.condition,
            threshold: self.threshold,
            for_s: self.for_s.unwrap_or_default(),
            level: self.level.unwrap_or(Level::Warning),
        }
    }
}

/// `alert_rule_patch_body`: changes an alert rule; at least one field
/// (decisions §16: PATCH is partial). A threshold alone applies to the
/// rule's condition; with a new condition, to that one. Whether it fits is
/// checked against the rule as it will be ([`AlertRulePatchBody::apply`]).
#[request_body(at_least_one, check = check_patch)]
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[schemars(transform = add_threshold_rules)]
pub struct AlertRulePatchBody {
    /// A new name.
    pub name: Option<ItemName>,
    /// A new condition.
    pub condition: Option<AlertCondition>,
    /// A new threshold, for the rule's condition (or the new one given).
    pub threshold: Option<u32>,
    /// A new time the condition must hold (s).
    pub for_s: Option<HoldSeconds>,
    /// A new level.
    pub level: Option<Level>,
}

impl AlertRulePatchBody {
    /// `rule` with the given fields; every problem of the result, each on
    /// its field.
    pub fn apply(&self, rule: &AlertRule) -> Result<AlertRule, Problems> {
        let mut changed = rule.clone();
        if let Some(name) = &self.name {
            changed.name = name.clone();
        }
        match self.condition {
            Some(condition) if condition != rule.condition => {
                changed.condition = condition;
                changed.threshold = self.threshold;
            }
            _ => changed.threshold = self.threshold.or(rule.threshold),
        }
        changed.for_s = self.for_s.unwrap_or(rule.for_s);
        changed.level = self.level.unwrap_or(rule.level);
        let mut problems = Problems::new();
        check_threshold(changed.condition, changed.threshold, "", &mut problems);
        if problems.is_empty() {
            Ok(changed)
        } else {
            Err(problems)
        }
    }
}

fn check_post(body: &AlertRulePostBody, path: &str, problems: &mut Problems) {
    check_threshold(body.condition, body.threshold, path, problems);
}

fn check_patch(body: &AlertRulePatchBody, path: &str, problems: &mut Problems) {
    // Without a condition, the threshold is checked against the rule's own
    // when the patch is applied.
    if let Some(condition) = body.condition {
        check_threshold(condition, body.threshold, path, problems);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::FromJson;

    #[test]
    fn a_post_body_names_every_problem_on_its_field() {
        let body = json!({"name": "", "condition": "moon_phase", "for_s": 100_000, "level": 7});
        let problems = AlertRulePostBody::from_json(&body).unwrap_err();
        assert_eq!(problems.paths(), ["name", "condition", "for_s", "level"]);
        let lacking = json!({"name": "low", "condition": "battery_below"});
        let problems = AlertRulePostBody::from_json(&lacking).unwrap_err();
        assert_eq!(problems.paths(), ["threshold"]);
        let extra = json!({"name": "off", "condition": "anchor_offline", "threshold": 3});
        let problems = AlertRulePostBody::from_json(&extra).unwrap_err();
        assert_eq!(problems.paths(), ["threshold"]);
        let good = json!({"name": "low", "condition": "battery_below", "threshold": 20});
        let rule = AlertRulePostBody::from_json(&good).unwrap().into_rule();
        assert_eq!((rule.for_s.get(), rule.level), (0, Level::Warning));
    }

    #[test]
    fn a_new_condition_takes_its_threshold_from_the_patch() {
        let rule = AlertRule::defaults().remove(0);
        let to_battery = AlertRulePatchBody {
            condition: Some(AlertCondition::BatteryBelow),
            ..AlertRulePatchBody::default()
        };
        assert_eq!(to_battery.apply(&rule).unwrap_err().paths(), ["threshold"]);
        let with_threshold = AlertRulePatchBody {
            threshold: Some(15),
            ..to_battery
        };
        let battery = with_threshold.apply(&rule).unwrap();
        assert_eq!(battery.threshold, Some(15));
        let back = AlertRulePatchBody {
            condition: Some(AlertCondition::TagSilent),
            ..AlertRulePatchBody::default()
        };
        assert_eq!(back.apply(&battery).unwrap().threshold, None);
        let only_threshold = AlertRulePatchBody {
            threshold: Some(3),
            ..AlertRulePatchBody::default()
        };
        assert_eq!(
            only_threshold.apply(&rule).unwrap_err().paths(),
            ["threshold"]
        );
        // A threshold alone is read, and fits a rule whose condition takes
        // one (decisions §16: PATCH is partial).
        let read = AlertRulePatchBody::from_json(&json!({"threshold": 30})).unwrap();
        assert_eq!(read.apply(&battery).unwrap().threshold, Some(30));
        let too_high = AlertRulePatchBody::from_json(&json!({"threshold": 300})).unwrap();
        assert_eq!(too_high.apply(&battery).unwrap_err().paths(), ["threshold"]);
        assert!(AlertRulePatchBody::from_json(&json!({})).is_err());
    }
}
