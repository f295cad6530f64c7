//! Small resources: group image, magnetometer calibration, operating modes,
//! and the host (network interfaces, packages).

use crate::{
    context::Ctx,
    error_code::ErrorCode,
    path::{DevicePath, NetPath, NoPath},
    payload::keys,
    reply::{ApiError, Reply},
    wire::NetworkModeStatus,
};
use actix_web::http::StatusCode;
use netcfg_model::{
    NetworkMode, PackageState,
    body::{GroupImagePatchBody, MagnetometerCalibrationBody, OperatingModePatchBody},
};

pub(crate) async fn get_group_image(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let image = context.service().group_image(&path.net_name).await?;
    Reply::ok("Group image").with::<keys::GroupImages>(&image)
}

pub(crate) async fn update_group_image(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: GroupImagePatchBody = context.body()?;
    let write = context.write();
    let image = context
        .service()
        .patch_group_image(&path.net_name, body, write)
        .await?;
    Reply::ok("Group image updated").with::<keys::GroupImages>(&image)
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
    let write = context.write();
    let (calibration, sent) = context
        .service()
        .set_magnetometer_calibration(&name, key, body, write)
        .await?;
    let mut message = format!(
        "Magnetometer calibration of device {} saved",
        calibration.serial_number
    );
    if sent {
        message.push_str(" and sent to the device");
    }
    Reply::created(message).with::<keys::MagnetometerCalibration>(&calibration)
}

pub(crate) async fn network_modes(_context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let modes: Vec<_> = NetworkMode::ALL
        .into_iter()
        .map(NetworkMode::info)
        .collect();
    Reply::ok(format!("{} network modes", modes.len())).with::<keys::NetworkModes>(&modes)
}

pub(crate) async fn update_network_mode(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let name = path.net_name;
    let OperatingModePatchBody { network_mode } = context.body()?;
    let mode = network_mode.ok_or_else(|| {
        ApiError::problem(ErrorCode::InvalidBody, "network_mode", "give network_mode")
    })?;
    let write = context.write();
    let mode = context
        .service()
        .set_network_mode(&name, mode, write)
        .await?;
    Reply::ok(format!("Network mode of {name} is {mode}"))
        .with::<keys::NetworkMode>(&NetworkModeStatus { network_mode: mode })
}

pub(crate) async fn network_info(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let interfaces = context.service().network_interfaces().await?;
    Reply::ok(format!("{} network interfaces", interfaces.len()))
        .with::<keys::NetworkInterfaces>(&interfaces)
}

pub(crate) async fn packages(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    let packages = context.service().packages().await?;
    let missing: Vec<&str> = packages
        .iter()
        .filter(|package| package.state == PackageState::Missing)
        .map(|package| package.name.as_str())
        .collect();
    if missing.is_empty() {
        Reply::ok(format!("{} packages installed", packages.len()))
            .with::<keys::Packages>(&packages)
    } else {
        Reply::new(
            StatusCode::NOT_FOUND,
            format!("missing: {}", missing.join(", ")),
        )
        .with::<keys::Packages>(&packages)
    }
}
