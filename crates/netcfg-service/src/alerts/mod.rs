//! Alert rules (decisions §16): a configuration's rules, kept with its
//! content (history, ETags, the saved-state file).

use netcfg_model::{
    AlertRule, ConfigName, Firing, ItemName,
    body::{AlertRulePatchBody, AlertRulePostBody},
};

mod watch;

pub use watch::ALERT_PERIOD;

use crate::{Service, ServiceError, Write};

impl Service {
    /// Adds an alert rule.
    pub async fn create_alert_rule(
        &self,
        name: &ConfigName,
        body: AlertRulePostBody,
        write: Write,
    ) -> Result<AlertRule, ServiceError> {
        self.change(name, write, move |net| net.create_alert_rule(body))
            .await
    }

    /// One alert rule.
    pub async fn alert_rule(
        &self,
        name: &ConfigName,
        rule: ItemName,
    ) -> Result<AlertRule, ServiceError> {
        self.read(name, move |net| net.alert_rule(rule)).await
    }

    /// Every alert rule, by name.
    pub async fn alert_rules(&self, name: &ConfigName) -> Result<Vec<AlertRule>, ServiceError> {
        self.read(name, |net| net.alert_rules()).await
    }

    /// Changes an alert rule.
    pub async fn patch_alert_rule(
        &self,
        name: &ConfigName,
        rule: ItemName,
        body: AlertRulePatchBody,
        write: Write,
    ) -> Result<AlertRule, ServiceError> {
        self.change(name, write, move |net| net.patch_alert_rule(rule, body))
            .await
    }

    /// The alert rules of configuration `name` that fire now, each with its
    /// device (for a rule about devices) and since when; none while it does
    /// not run.
    pub async fn firing_alerts(&self, name: &ConfigName) -> Result<Vec<Firing>, ServiceError> {
        self.require_net(name).await?;
        Ok(netcfg_model::sync::lock(&self.inner.firing)
            .get(name)
            .cloned()
            .unwrap_or_default())
    }

    /// Deletes an alert rule.
    pub async fn delete_alert_rule(
        &self,
        name: &ConfigName,
        rule: ItemName,
        write: Write,
    ) -> Result<(), ServiceError> {
        self.change(name, write, move |net| net.delete_alert_rule(rule))
            .await
    }
}
