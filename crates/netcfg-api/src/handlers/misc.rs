//! Small resources: group image, magnetometer calibration, operating modes,
//! and the host (network interfaces, packages).

use actix_web::{http::StatusCode, web};
use netcfg_model::{
    MagnetometerCalibration, NetworkMode, PackageState,
    body::{GroupImagePatchBody, MagnetometerCalibrationBody, OperatingModePatchBody},
};

use super::{change, is_running, net, require_stopped};
use crate::{
    context::Ctx,
    error_code::ErrorCode,
    path::{DevicePath, NetPath, NoPath},
    reply::{ApiError, Reply},
    wire::NetworkModeStatus,
};

pub(crate) async fn get_group_image(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let image = net(&context, &path.net_name, |net| net.group_image()).await?;
    Reply::ok("Group image").with(&image)
}

pub(crate) async fn update_group_image(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: GroupImagePatchBody = context.body()?;
    let image = change(&context, &path.net_name, move |net| {
        net.patch_group_image(body)
    })
    .await?;
    Reply::ok("Group image updated").with(&image)
}

pub(crate) async fn set_magnetometer_calibration(
    context: Ctx,
    path: DevicePath,
) -> Result<Reply, ApiError> {
    let DevicePath {
        net_name: name,
        device_key: key,
    } = path;
    let body: MagnetometerCalibrationBody = context.body()?;
    let calibration: MagnetometerCalibration = change(&context, &name, move |net| {
        net.set_magnetometer_calibration(key, body)
    })
    .await?;
    let mut message = format!(
        "Magnetometer calibration of device {} saved",
        calibration.serial_number
    );
    if is_running(&context, &name) {
        let timeout = context.state().command_timeout();
        context
            .state()
            .engine()
            .set_magnetometer_calibration(&name, calibration.clone(), timeout)
            .await?;
        message.push_str(" and sent to the device");
    }
    Reply::created(message).with(&calibration)
}

pub(crate) async fn network_modes(_context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let modes: Vec<_> = NetworkMode::ALL
        .into_iter()
        .map(NetworkMode::info)
        .collect();
    Reply::ok(format!("{} network modes", modes.len())).with(&modes)
}

pub(crate) async fn update_network_mode(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let name = path.net_name;
    let OperatingModePatchBody { network_mode } = context.body()?;
    let mode = network_mode.ok_or_else(|| {
        ApiError::problem(ErrorCode::InvalidBody, "network_mode", "give network_mode")
    })?;
    require_stopped(&context, &name, "network mode")?;
    let mode = change(&context, &name, move |net| net.set_network_mode(mode)).await?;
    Reply::ok(format!("Network mode of {name} is {mode}"))
        .with(&NetworkModeStatus { network_mode: mode })
}

/// Runs a host query on the blocking pool: it asks the kernel or starts a
/// process, which an async worker must not wait for.
async fn on_host<T: Send + 'static>(query: fn() -> T) -> Result<T, ApiError> {
    web::block(query)
        .await
        .map_err(|error| ApiError::internal(format_args!("the host query failed: {error}")))
}

pub(crate) async fn network_info(_context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let interfaces = on_host(netcfg_host::network_interfaces)
        .await?
        .map_err(|error| ApiError::internal(format_args!("host: {error}")))?;
    Reply::ok(format!("{} network interfaces", interfaces.len())).with(&interfaces)
}

pub(crate) async fn packages(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let mut packages = context.state().engine().package_status();
    packages.extend(on_host(netcfg_host::packages).await?);
    let missing: Vec<&str> = packages
        .iter()
        .filter(|package| package.state == PackageState::Missing)
        .map(|package| package.name.as_str())
        .collect();
    if missing.is_empty() {
        Reply::ok(format!("{} packages installed", packages.len())).with(&packages)
    } else {
        Reply::new(
            StatusCode::NOT_FOUND,
            format!("missing: {}", missing.join(", ")),
        )
        .with(&packages)
    }
}
