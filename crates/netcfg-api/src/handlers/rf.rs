//! RF settings of a configuration.

use actix_web::http::StatusCode;
use netcfg_model::body::{RfSettingsPatchBody, RfSettingsPostBody};

use super::{change, count, is_running, net};
use crate::{
    context::Ctx,
    error_code::ErrorCode,
    path::{NamePath, NetPath},
    reply::{ApiError, Reply},
};

pub(crate) async fn create(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: RfSettingsPostBody = context.body()?;
    let setting = change(&context, &path.net_name, move |net| {
        net.create_rf_setting(body)
    })
    .await?;
    Reply::ok(format!("RF setting {} created", setting.name)).with(&setting)
}

pub(crate) async fn get(context: Ctx, path: NamePath) -> Result<Reply, ApiError> {
    let name = path.name;
    let setting = net(&context, &path.net_name, move |net| net.rf_setting(&name)).await?;
    Reply::ok(format!("RF setting {}", setting.name)).with(&setting)
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let settings = net(&context, &path.net_name, |net| net.rf_settings()).await?;
    Reply::ok(count(settings.len(), "RF setting")).with(&settings)
}

pub(crate) async fn update(context: Ctx, path: NamePath) -> Result<Reply, ApiError> {
    let name = path.name;
    let body: RfSettingsPatchBody = context.body()?;
    let running = is_running(&context, &path.net_name);
    // Checked and changed in one call, so the active setting cannot change between.
    let outcome = change(&context, &path.net_name, move |net| {
        if running && net.active_rf_setting()?.name == name {
            return Ok(Err(name));
        }
        net.patch_rf_setting(&name, body).map(Ok)
    })
    .await?;
    let setting = outcome.map_err(|name| {
        ApiError::new(
            ErrorCode::ConfigurationRunning,
            format!(
                "RF setting {name}: the running network uses it; stop the configuration before changing it"
            ),
        )
    })?;
    Reply::ok(format!("RF setting {} updated", setting.name)).with(&setting)
}

pub(crate) async fn delete(context: Ctx, path: NamePath) -> Result<Reply, ApiError> {
    let name = path.name;
    let deleted = name.clone();
    change(&context, &path.net_name, move |net| {
        net.delete_rf_setting(&deleted)
    })
    .await?;
    Ok(Reply::new(
        StatusCode::NO_CONTENT,
        format!("RF setting {name} deleted"),
    ))
}
