//! System settings (by key, or by class and id) and the catalogue of known
//! settings with their defaults.

use netcfg_model::{body::SettingsBody, default_setting, default_settings};
use netcfg_service::{SettingDeletion, SettingWrite};

use super::count;
use crate::{
    context::Ctx,
    error_code::ErrorCode,
    path::{DefaultSettingPath, NoPath, SettingKeyPath, SettingsScopePath},
    payload::keys,
    reply::{ApiError, Reply},
    wire::OneOrMany,
};

async fn write(
    context: Ctx,
    path: SettingsScopePath,
    mode: SettingWrite,
) -> Result<(Vec<netcfg_model::SystemSetting>, usize), ApiError> {
    let body: SettingsBody = context.body()?;
    let given = body.settings.len();
    let write = context.write();
    let settings = context
        .service()
        .write_settings(path.net_name(), path.scope(), body, mode, write)
        .await?;
    Ok((settings, given))
}

pub(crate) async fn create(context: Ctx, path: SettingsScopePath) -> Result<Reply, ApiError> {
    let (mut settings, given) = write(context, path, SettingWrite::Create).await?;
    let message = format!("{} created", count(given, "setting"));
    if settings.len() == 1 {
        Reply::ok(message).with::<keys::SettingOrSettings>(&OneOrMany::One(settings.remove(0)))
    } else {
        Reply::ok(message).with::<keys::SettingOrSettings>(&OneOrMany::Many(settings))
    }
}

pub(crate) async fn patch(context: Ctx, path: SettingsScopePath) -> Result<Reply, ApiError> {
    let (settings, given) = write(context, path, SettingWrite::Update).await?;
    Reply::ok(format!("{} updated", count(given, "setting"))).with::<keys::Settings>(&settings)
}

pub(crate) async fn put(context: Ctx, path: SettingsScopePath) -> Result<Reply, ApiError> {
    let body: SettingsBody = context.body()?;
    let write = context.write();
    let settings = context
        .service()
        .replace_settings(path.net_name(), path.scope(), body, write)
        .await?;
    Reply::ok(format!(
        "Settings replaced; {} now",
        count(settings.len(), "setting")
    ))
    .with::<keys::Settings>(&settings)
}

pub(crate) async fn get(context: Ctx, path: SettingKeyPath) -> Result<Reply, ApiError> {
    let (scope, key) = path.setting();
    let setting = context
        .service()
        .setting(path.net_name(), scope, key)
        .await?;
    Reply::ok(format!("Setting {}", setting.setting_key)).with::<keys::Setting>(&setting)
}

pub(crate) async fn list(context: Ctx, path: SettingsScopePath) -> Result<Reply, ApiError> {
    let scope = path.named_scope();
    let settings = context.service().settings(path.net_name(), scope).await?;
    Reply::ok(count(settings.len(), "setting")).with::<keys::Settings>(&settings)
}

pub(crate) async fn delete(context: Ctx, path: SettingKeyPath) -> Result<Reply, ApiError> {
    let (scope, key) = path.setting();
    let write = context.write();
    let deletion = context
        .service()
        .delete_setting(path.net_name(), scope, key, write)
        .await?;
    let message = match deletion {
        SettingDeletion::Deleted => "Setting deleted".to_owned(),
        SettingDeletion::Reset(setting) => format!(
            "Setting {} is a known setting: reset to its default",
            setting.setting_key
        ),
    };
    Ok(Reply::ok(message))
}

pub(crate) async fn get_default(
    _context: Ctx,
    path: DefaultSettingPath,
) -> Result<Reply, ApiError> {
    let key = path.key;
    let setting = default_setting(&key).ok_or_else(|| {
        ApiError::new(
            ErrorCode::SettingNotFound,
            format!("{key} is not a known setting"),
        )
    })?;
    Reply::ok(format!("Known setting {key}")).with::<keys::DefaultSetting>(&setting)
}

pub(crate) async fn list_defaults(_context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let settings = default_settings();
    Reply::ok(count(settings.len(), "known setting")).with::<keys::DefaultSettings>(&settings)
}
