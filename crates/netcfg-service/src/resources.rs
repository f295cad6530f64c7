//! A configuration's smaller resources: roles, RF settings, data streams,
//! position limits, the group image, magnetometer calibrations, the network
//! mode, the inputs of the maximum-tag calculation, and the host.

use netcfg_model::{
    ConfigName, DataStream, DeviceKey, GroupImage, HostNetworkInterface, ItemName,
    MagnetometerCalibration, NetworkMode, NetworkTime, PackageStatus, PositionLimit,
    PositionLimitKey, RfSetting, Role, RoleId, SettingScope, SettingValue,
    body::{
        DataStreamBody, GroupImagePatchBody, MagnetometerCalibrationBody, PositionLimitsPatchBody,
        PositionLimitsPostBody, RfSettingsPatchBody, RfSettingsPostBody, RolePatchBody,
        RolePostBody,
    },
    max_tags::Seeders,
};
use netcfg_store::StreamDeletion;

use crate::{Service, ServiceError, Write};

/// What a configuration gives the maximum-tag calculation for one of its
/// roles.
#[derive(Debug, Clone)]
pub struct MaxTagsSource {
    /// The role.
    pub role: Role,
    /// The RF setting the network runs with.
    pub rf_setting: RfSetting,
    /// The enabled seeders.
    pub seeders: Seeders,
    /// The `max_tag_period` setting, if set to a whole number.
    pub max_tag_period: Option<NetworkTime>,
    /// The network mode.
    pub network_mode: NetworkMode,
}

impl Service {
    /// Adds a role.
    pub async fn create_role(
        &self,
        name: &ConfigName,
        body: RolePostBody,
        write: Write,
    ) -> Result<Role, ServiceError> {
        let role = self
            .change(name, write, move |net| net.create_role(body))
            .await?;
        self.take_live_changes(name).await;
        Ok(role)
    }

    /// One role.
    pub async fn role(&self, name: &ConfigName, id: RoleId) -> Result<Role, ServiceError> {
        self.read(name, move |net| net.role(id)).await
    }

    /// Every role.
    pub async fn roles(&self, name: &ConfigName) -> Result<Vec<Role>, ServiceError> {
        self.read(name, |net| net.roles()).await
    }

    /// Changes a role.
    pub async fn patch_role(
        &self,
        name: &ConfigName,
        id: RoleId,
        body: RolePatchBody,
        write: Write,
    ) -> Result<Role, ServiceError> {
        let role = self
            .change(name, write, move |net| net.patch_role(id, body))
            .await?;
        self.take_live_changes(name).await;
        Ok(role)
    }

    /// Deletes a role.
    pub async fn delete_role(
        &self,
        name: &ConfigName,
        id: RoleId,
        write: Write,
    ) -> Result<(), ServiceError> {
        self.change(name, write, move |net| net.delete_role(id))
            .await
    }

    /// Adds an RF setting.
    pub async fn create_rf_setting(
        &self,
        name: &ConfigName,
        body: RfSettingsPostBody,
        write: Write,
    ) -> Result<RfSetting, ServiceError> {
        self.change(name, write, move |net| net.create_rf_setting(body))
            .await
    }

    /// One RF setting.
    pub async fn rf_setting(
        &self,
        name: &ConfigName,
        setting: ItemName,
    ) -> Result<RfSetting, ServiceError> {
        self.read(name, move |net| net.rf_setting(&setting)).await
    }

    /// Every RF setting.
    pub async fn rf_settings(&self, name: &ConfigName) -> Result<Vec<RfSetting>, ServiceError> {
        self.read(name, |net| net.rf_settings()).await
    }

    /// Changes an RF setting; refused while the running network uses it
    /// (checked and changed in one step, so the active setting cannot
    /// change between).
    pub async fn patch_rf_setting(
        &self,
        name: &ConfigName,
        setting: ItemName,
        body: RfSettingsPatchBody,
        write: Write,
    ) -> Result<RfSetting, ServiceError> {
        let running = self.is_running(name);
        let outcome = self
            .change(name, write, move |net| {
                if running && net.active_rf_setting()?.name == setting {
                    return Ok(Err(setting));
                }
                net.patch_rf_setting(&setting, body).map(Ok)
            })
            .await?;
        outcome.map_err(|setting| {
            ServiceError::Running(format!(
                "RF setting {setting}: the running network uses it; stop the configuration before changing it"
            ))
        })
    }

    /// Deletes an RF setting.
    pub async fn delete_rf_setting(
        &self,
        name: &ConfigName,
        setting: ItemName,
        write: Write,
    ) -> Result<(), ServiceError> {
        self.change(name, write, move |net| net.delete_rf_setting(&setting))
            .await
    }

    /// Adds a data stream.
    pub async fn create_stream(
        &self,
        name: &ConfigName,
        body: DataStreamBody,
        write: Write,
    ) -> Result<DataStream, ServiceError> {
        self.change(name, write, move |net| net.create_stream(body))
            .await
    }

    /// One data stream.
    pub async fn stream(&self, name: &ConfigName, id: u32) -> Result<DataStream, ServiceError> {
        self.read(name, move |net| net.stream(id)).await
    }

    /// Every data stream.
    pub async fn streams(&self, name: &ConfigName) -> Result<Vec<DataStream>, ServiceError> {
        self.read(name, |net| net.streams()).await
    }

    /// Replaces a data stream.
    pub async fn replace_stream(
        &self,
        name: &ConfigName,
        id: u32,
        body: DataStreamBody,
        write: Write,
    ) -> Result<DataStream, ServiceError> {
        self.change(name, write, move |net| net.replace_stream(id, body))
            .await
    }

    /// Deletes a data stream; a default stream is reset instead.
    pub async fn delete_stream(
        &self,
        name: &ConfigName,
        id: u32,
        write: Write,
    ) -> Result<StreamDeletion, ServiceError> {
        self.change(name, write, move |net| net.delete_stream(id))
            .await
    }

    /// Deletes a data stream outright, a default one too (5.0).
    pub async fn delete_stream_outright(
        &self,
        name: &ConfigName,
        id: u32,
        write: Write,
    ) -> Result<(), ServiceError> {
        self.change(name, write, move |net| net.delete_stream_outright(id))
            .await
    }

    /// Adds a position limit.
    pub async fn create_position_limit(
        &self,
        name: &ConfigName,
        body: PositionLimitsPostBody,
        write: Write,
    ) -> Result<PositionLimit, ServiceError> {
        self.change(name, write, move |net| net.create_position_limit(body))
            .await
    }

    /// One position limit.
    pub async fn position_limit(
        &self,
        name: &ConfigName,
        key: PositionLimitKey,
    ) -> Result<PositionLimit, ServiceError> {
        self.read(name, move |net| net.position_limit(key)).await
    }

    /// Every position limit.
    pub async fn position_limits(
        &self,
        name: &ConfigName,
    ) -> Result<Vec<PositionLimit>, ServiceError> {
        self.read(name, |net| net.position_limits()).await
    }

    /// Changes a position limit.
    pub async fn patch_position_limit(
        &self,
        name: &ConfigName,
        key: PositionLimitKey,
        body: PositionLimitsPatchBody,
        write: Write,
    ) -> Result<PositionLimit, ServiceError> {
        self.change(name, write, move |net| net.patch_position_limit(key, body))
            .await
    }

    /// Deletes a position limit.
    pub async fn delete_position_limit(
        &self,
        name: &ConfigName,
        key: PositionLimitKey,
        write: Write,
    ) -> Result<(), ServiceError> {
        self.change(name, write, move |net| net.delete_position_limit(key))
            .await
    }

    /// The group image.
    pub async fn group_image(&self, name: &ConfigName) -> Result<GroupImage, ServiceError> {
        self.read(name, |net| net.group_image()).await
    }

    /// Changes the group image.
    pub async fn patch_group_image(
        &self,
        name: &ConfigName,
        body: GroupImagePatchBody,
        write: Write,
    ) -> Result<GroupImage, ServiceError> {
        self.change(name, write, move |net| net.patch_group_image(body))
            .await
    }

    /// Saves a device's magnetometer calibration and, while the network
    /// runs, sends it to the device: the calibration, and whether it was
    /// sent.
    pub async fn set_magnetometer_calibration(
        &self,
        name: &ConfigName,
        key: DeviceKey,
        body: MagnetometerCalibrationBody,
        write: Write,
    ) -> Result<(MagnetometerCalibration, bool), ServiceError> {
        let calibration: MagnetometerCalibration = self
            .change(name, write, move |net| {
                net.set_magnetometer_calibration(key, body)
            })
            .await?;
        if !self.is_running(name) {
            return Ok((calibration, false));
        }
        self.engine()
            .set_magnetometer_calibration(name, calibration.clone(), self.command_timeout())
            .await?;
        Ok((calibration, true))
    }

    /// Sets the network mode (refused while the network runs).
    pub async fn set_network_mode(
        &self,
        name: &ConfigName,
        mode: NetworkMode,
        write: Write,
    ) -> Result<NetworkMode, ServiceError> {
        self.require_stopped(name, "network mode")?;
        self.change(name, write, move |net| net.set_network_mode(mode))
            .await
    }

    /// What the maximum-tag calculation needs of the configuration for role
    /// `role_id`.
    pub async fn max_tags_source(
        &self,
        name: &ConfigName,
        role_id: RoleId,
    ) -> Result<MaxTagsSource, ServiceError> {
        self.read(name, move |net| {
            let role = net.role(role_id)?;
            let seeder_role = net.role(RoleId::SEEDER)?;
            let devices = net.devices()?;
            let seeders = Seeders::count_in(
                devices
                    .iter()
                    .filter(|device| !device.disabled)
                    .flat_map(|device| device.interfaces.iter()),
                &seeder_role,
            );
            let max_tag_period = net
                .settings(Some(SettingScope::system()))?
                .into_iter()
                .find(|setting| setting.setting_key.as_str() == "max_tag_period")
                .and_then(|setting| match setting.value {
                    SettingValue::Integer(units) => {
                        u32::try_from(units).ok().map(NetworkTime::from_units)
                    }
                    _ => None,
                });
            Ok(MaxTagsSource {
                role,
                rf_setting: net.active_rf_setting()?,
                seeders,
                max_tag_period,
                network_mode: net.network_mode()?,
            })
        })
        .await
    }

    /// The host's network interfaces.
    pub async fn network_interfaces(&self) -> Result<Vec<HostNetworkInterface>, ServiceError> {
        Ok(Self::on_host(netcfg_host::network_interfaces).await??)
    }

    /// The packages netcfg depends on, the engine's components and the
    /// host's, with their state.
    pub async fn packages(&self) -> Result<Vec<PackageStatus>, ServiceError> {
        let mut packages = self.engine().package_status();
        packages.extend(Self::on_host(netcfg_host::packages).await?);
        Ok(packages)
    }
}
