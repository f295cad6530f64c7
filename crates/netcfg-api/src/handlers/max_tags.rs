//! The maximum-tag calculation, from parameters or from a configuration's role.

use crate::{
    context::Ctx,
    error_code::ErrorCode,
    path::{NetPath, NoPath},
    payload::keys,
    reply::{ApiError, Reply},
};
use netcfg_model::{
    NetworkMode, NetworkTime, Problems, RfSetting, SettingValue,
    body::{CalculateMaximumTagsBody, CalculateMaximumTagsParameterizedBody},
    max_tags::{self, MaxTagsInputs, MaxTagsResult},
};
use netcfg_service::MaxTagsSource;

fn answer(result: &MaxTagsResult) -> Result<Reply, ApiError> {
    Reply::ok(format!("At most {} tags", result.maximum_tags)).with::<keys::MaximumTags>(result)
}

/// Problems of the configuration's own data (not of the request) are a
/// conflict with its state: 409.
fn configuration_problems(problems: Problems) -> ApiError {
    ApiError::new(
        ErrorCode::InputsConflict,
        format!("the configuration cannot carry tags as it is: {problems}"),
    )
    .with_problems(&problems)
}

/// Values that are each well formed but conflict (a tag period shorter
/// than `maximum_tag_period`): 409.
fn inputs_conflict(problems: Problems) -> ApiError {
    ApiError::new(
        ErrorCode::InputsConflict,
        format!("the inputs conflict: {problems}"),
    )
    .with_problems(&problems)
}

pub(crate) async fn parameterized(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let body: CalculateMaximumTagsParameterizedBody = context.body()?;
    let inputs = MaxTagsInputs::from_body(
        &body,
        &[RfSetting::default_setting()],
        NetworkMode::default(),
    )
    .map_err(|problems| {
        // Only the RF setting's name can be unknown here: a 404.
        if problems
            .as_slice()
            .iter()
            .all(|problem| problem.path == "settings")
        {
            ApiError::new(
                ErrorCode::RfSettingNotFound,
                format!("{problems}; without a configuration only the `default` RF setting exists"),
            )
        } else {
            // The body was read, so its values are each well formed: what
            // is left are values that conflict with each other.
            inputs_conflict(problems)
        }
    })?;
    let result = max_tags::calculate(&inputs).map_err(inputs_conflict)?;
    answer(&result)
}

pub(crate) async fn for_role(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let CalculateMaximumTagsBody { role_id } = context.body()?;
    let MaxTagsSource {
        role,
        rf_setting,
        seeders,
        max_tag_period,
        network_mode: mode,
    } = context
        .service()
        .max_tags_source(&path.net_name, role_id)
        .await?;
    let default_period = netcfg_model::default_setting("max_tag_period")
        .and_then(|setting| match setting.default_value {
            SettingValue::Integer(units) => u32::try_from(units).ok(),
            _ => None,
        })
        .map_or(NetworkTime::from_units(48_750), NetworkTime::from_units);
    let max_tag_period = max_tag_period.unwrap_or(default_period);
    if !role.id.is_tag_role() {
        return Err(ApiError::problem(
            ErrorCode::InvalidBody,
            "role_id",
            format!("role {} ({}) is not a tag role", role.id, role.name),
        ));
    }
    let inputs = MaxTagsInputs::from_role(&role, &rf_setting, seeders, max_tag_period, mode)
        .map_err(configuration_problems)?;
    let result = max_tags::calculate(&inputs).map_err(configuration_problems)?;
    answer(&result)
}
