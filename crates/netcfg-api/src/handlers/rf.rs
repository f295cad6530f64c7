//! RF settings of a configuration.

use actix_web::http::StatusCode;
use netcfg_model::{
    ItemName,
    body::{RfSettingsPatchBody, RfSettingsPostBody},
};

use super::{count, is_running, net, net_name};
use crate::{
    context::Ctx,
    reply::{ApiError, Reply},
};

fn name(context: &Ctx) -> Result<ItemName, ApiError> {
    context.param("name")
}

pub(crate) async fn create(context: Ctx) -> Result<Reply, ApiError> {
    let body: RfSettingsPostBody = context.body()?;
    let setting = net(&context, move |net| net.create_rf_setting(body)).await?;
    Reply::ok(format!("RF setting {} created", setting.name)).with("rf_setting", &setting)
}

pub(crate) async fn get(context: Ctx) -> Result<Reply, ApiError> {
    let name = name(&context)?;
    let setting = net(&context, move |net| net.rf_setting(&name)).await?;
    Reply::ok(format!("RF setting {}", setting.name)).with("rf_setting", &setting)
}

pub(crate) async fn list(context: Ctx) -> Result<Reply, ApiError> {
    let settings = net(&context, |net| net.rf_settings()).await?;
    Reply::ok(count(settings.len(), "RF setting")).with("rf_settings", &settings)
}

pub(crate) async fn update(context: Ctx) -> Result<Reply, ApiError> {
    let name = name(&context)?;
    let body: RfSettingsPatchBody = context.body()?;
    let running = is_running(&context, &net_name(&context)?);
    let setting = net(&context, move |net| {
        if running && net.active_rf_setting()?.name == name {
            return Err(netcfg_store::StoreError::Conflict {
                what: format!("RF setting {name}"),
                why: "the running network uses it; stop the configuration before changing it"
                    .to_owned(),
            });
        }
        net.patch_rf_setting(&name, body)
    })
    .await?;
    Reply::ok(format!("RF setting {} updated", setting.name)).with("rf_setting", &setting)
}

pub(crate) async fn delete(context: Ctx) -> Result<Reply, ApiError> {
    let name = name(&context)?;
    let deleted = name.clone();
    net(&context, move |net| net.delete_rf_setting(&deleted)).await?;
    Ok(Reply::new(
        StatusCode::NO_CONTENT,
        format!("RF setting {name} deleted"),
    ))
}
