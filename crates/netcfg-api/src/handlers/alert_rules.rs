//! Alert rules (decisions §16): 5.1 only, addressed by name.

use netcfg_model::body::{AlertRulePatchBody, AlertRulePostBody};

use super::count;
use crate::{
    context::Ctx,
    path::{AlertRulePath, NetPath},
    payload::keys,
    reply::{ApiError, Reply},
};

pub(crate) async fn create(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: AlertRulePostBody = context.body()?;
    let write = context.write();
    let rule = context
        .service()
        .create_alert_rule(&path.net_name, body, write)
        .await?;
    Reply::created(format!("Alert rule {} created", rule.name)).with::<keys::AlertRule>(&rule)
}

pub(crate) async fn get(context: Ctx, path: AlertRulePath) -> Result<Reply, ApiError> {
    let rule = context
        .service()
        .alert_rule(&path.net_name, path.rule_name)
        .await?;
    Reply::ok(format!("Alert rule {}", rule.name)).with::<keys::AlertRule>(&rule)
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let rules = context.service().alert_rules(&path.net_name).await?;
    Reply::ok(count(rules.len(), "alert rule")).with::<keys::AlertRules>(&rules)
}

pub(crate) async fn update(context: Ctx, path: AlertRulePath) -> Result<Reply, ApiError> {
    let body: AlertRulePatchBody = context.body()?;
    let write = context.write();
    let rule = context
        .service()
        .patch_alert_rule(&path.net_name, path.rule_name, body, write)
        .await?;
    Reply::ok(format!("Alert rule {} updated", rule.name)).with::<keys::AlertRule>(&rule)
}

pub(crate) async fn delete(context: Ctx, path: AlertRulePath) -> Result<Reply, ApiError> {
    let message = format!("Alert rule {} deleted", path.rule_name);
    let write = context.write();
    context
        .service()
        .delete_alert_rule(&path.net_name, path.rule_name, write)
        .await?;
    Ok(Reply::new(actix_web::http::StatusCode::NO_CONTENT, message))
}

pub(crate) async fn firing(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let firing = context.service().firing_alerts(&path.net_name).await?;
    Reply::ok(count(firing.len(), "alert")).with::<keys::Alerts>(&firing)
}
