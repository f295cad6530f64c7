//! Alert rules (decisions §16): addressed by name.

use netcfg_model::{
    AlertCondition, AlertRule, HoldSeconds, ItemName, Level,
    body::{AlertRulePatchBody, AlertRulePostBody},
};
use rusqlite::{Connection, params};

use super::Net;
use crate::{
    error::{ConflictKind, Missing, StoreError},
    sql::{self, bad_value, get},
};

const COLUMNS: &str = "name, condition, threshold, for_s, level";

fn read_rule(row: &rusqlite::Row<'_>) -> rusqlite::Result<AlertRule> {
    let condition = row
        .get::<_, String>(1)?
        .parse::<AlertCondition>()
        .map_err(|error| bad_value(1, error))?;
    Ok(AlertRule {
        name: get::<ItemName, String>(row, 0)?,
        condition,
        threshold: row.get(2)?,
        for_s: get::<HoldSeconds, u32>(row, 3)?,
        level: get::<Level, u32>(row, 4)?,
    })
}

fn find(conn: &Connection, name: &ItemName) -> Result<Option<AlertRule>, StoreError> {
    sql::find_named(conn, "alert_rules", COLUMNS, name.as_str(), read_rule)
}

fn require(conn: &Connection, name: &ItemName) -> Result<AlertRule, StoreError> {
    find(conn, name)?
        .ok_or_else(|| StoreError::not_found(Missing::AlertRule, format!("alert rule {name}")))
}

/// Every rule, by name.
pub(super) fn list(conn: &Connection) -> Result<Vec<AlertRule>, StoreError> {
    sql::list_by_name(conn, "alert_rules", COLUMNS, read_rule)
}

fn insert(conn: &Connection, rule: &AlertRule) -> Result<(), StoreError> {
    conn.prepare_cached(&format!(
        "INSERT INTO alert_rules ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5)"
    ))?
    .execute(params![
        rule.name.as_str(),
        rule.condition.as_str(),
        rule.threshold,
        rule.for_s.get(),
        rule.level.value(),
    ])?;
    Ok(())
}

fn taken(name: &ItemName) -> StoreError {
    StoreError::conflict(
        ConflictKind::Taken,
        format!("alert rule {name}"),
        "an alert rule with this name exists",
    )
}

impl Net {
    /// Adds an alert rule; a name already used is a conflict.
    pub fn create_alert_rule(&self, body: AlertRulePostBody) -> Result<AlertRule, StoreError> {
        self.db.write(move |conn| {
            if find(conn, &body.name)?.is_some() {
                return Err(taken(&body.name));
            }
            let rule = body.into_rule();
            insert(conn, &rule)?;
            Ok(rule)
        })
    }

    /// One alert rule.
    pub fn alert_rule(&self, name: ItemName) -> Result<AlertRule, StoreError> {
        self.db.read(move |conn| require(conn, &name))
    }

    /// Every alert rule, by name.
    pub fn alert_rules(&self) -> Result<Vec<AlertRule>, StoreError> {
        self.db.read(list)
    }

    /// Changes an alert rule (renaming it to a free name).
    pub fn patch_alert_rule(
        &self,
        name: ItemName,
        body: AlertRulePatchBody,
    ) -> Result<AlertRule, StoreError> {
        self.db.write(move |conn| {
            let rule = require(conn, &name)?;
            let changed = body.apply(&rule).map_err(StoreError::Invalid)?;
            if changed.name != rule.name && find(conn, &changed.name)?.is_some() {
                return Err(taken(&changed.name));
            }
            conn.prepare_cached(
                "UPDATE alert_rules SET name = ?2, condition = ?3, threshold = ?4, for_s = ?5,
                    level = ?6 WHERE name = ?1",
            )?
            .execute(params![
                rule.name.as_str(),
                changed.name.as_str(),
                changed.condition.as_str(),
                changed.threshold,
                changed.for_s.get(),
                changed.level.value(),
            ])?;
            Ok(changed)
        })
    }

    /// Deletes an alert rule.
    pub fn delete_alert_rule(&self, name: ItemName) -> Result<(), StoreError> {
        self.db.write(move |conn| {
            require(conn, &name)?;
            conn.execute("DELETE FROM alert_rules WHERE name = ?1", [name.as_str()])?;
            Ok(())
        })
    }
}
