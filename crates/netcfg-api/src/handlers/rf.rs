//! RF settings of a configuration.

use actix_web::http::StatusCode;
use netcfg_model::body::{RfSettingsPatchBody, RfSettingsPostBody};

use super::count;
use crate::{
    context::Ctx,
    path::{NamePath, NetPath},
    payload::keys,
    reply::{ApiError, Reply},
};

pub(crate) async fn create(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: RfSettingsPostBody = context.body()?;
    let write = context.write();
    let setting = context
        .service()
        .create_rf_setting(&path.net_name, body, write)
        .await?;
    Reply::ok(format!("RF setting {} created", setting.name)).with::<keys::RfSetting>(&setting)
}

pub(crate) async fn get(context: Ctx, path: NamePath) -> Result<Reply, ApiError> {
    let setting = context
        .service()
        .rf_setting(&path.net_name, path.name)
        .await?;
    Reply::ok(format!("RF setting {}", setting.name)).with::<keys::RfSetting>(&setting)
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let settings = context.service().rf_settings(&path.net_name).await?;
    Reply::ok(count(settings.len(), "RF setting")).with::<keys::RfSettings>(&settings)
}

pub(crate) async fn update(context: Ctx, path: NamePath) -> Result<Reply, ApiError> {
    let name = path.name;
    let body: RfSettingsPatchBody = context.body()?;
    let write = context.write();
    let setting = context
        .service()
        .patch_rf_setting(&path.net_name, name, body, write)
        .await?;
    Reply::ok(format!("RF setting {} updated", setting.name)).with::<keys::RfSetting>(&setting)
}

pub(crate) async fn delete(context: Ctx, path: NamePath) -> Result<Reply, ApiError> {
    let name = path.name;
    let write = context.write();
    context
        .service()
        .delete_rf_setting(&path.net_name, name.clone(), write)
        .await?;
    Ok(Reply::new(
        StatusCode::NO_CONTENT,
        format!("RF setting {name} deleted"),
    ))
}
