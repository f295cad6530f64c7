//! Devices and their interfaces, device pairs, the devices networks hear
//! that are not configured, the engine's cache of device data, and commands
//! to devices.

use netcfg_model::{
    CachedDevice, ConfigName, Device, DeviceAction, DeviceActionReply, DeviceKey, DevicePair,
    Interface, PairType, Role, RoleId, SerialNumber, UnconfiguredDevice,
    body::{DeviceBody, DeviceSelection, InterfaceRef, MultipleDevicePatchBody},
};
use netcfg_store::PairOutcome;

use crate::{Service, ServiceError, Write};

/// What one device's command did, in a command to several.
pub type CommandResult = (SerialNumber, Result<DeviceActionReply, ServiceError>);

impl Service {
    /// Adds a device.
    pub async fn create_device(
        &self,
        name: &ConfigName,
        body: DeviceBody,
        write: Write,
    ) -> Result<Device, ServiceError> {
        self.change(name, write, move |net| net.create_device(body))
            .await
    }

    /// One device.
    pub async fn device(&self, name: &ConfigName, key: DeviceKey) -> Result<Device, ServiceError> {
        self.read(name, move |net| net.device(key)).await
    }

    /// Every device.
    pub async fn devices(&self, name: &ConfigName) -> Result<Vec<Device>, ServiceError> {
        self.read(name, |net| net.devices()).await
    }

    /// The configuration's generation and, unless `kept` says a list of that
    /// generation is kept already, its devices. The generation is read
    /// before the devices, so a list kept under it is never older than it.
    pub async fn devices_unless_kept<K>(
        &self,
        name: &ConfigName,
        kept: K,
    ) -> Result<(u64, Option<Vec<Device>>), ServiceError>
    where
        K: FnOnce(u64) -> bool + Send + 'static,
    {
        let name = name.clone();
        self.blocking(move |store| {
            let net = store.net(&name)?;
            let generation = net.generation();
            if kept(generation) {
                return Ok((generation, None));
            }
            Ok((generation, Some(net.devices()?)))
        })
        .await
    }

    /// Replaces a device (a PATCH of the seed takes the whole device).
    pub async fn replace_device(
        &self,
        name: &ConfigName,
        key: DeviceKey,
        body: DeviceBody,
        write: Write,
    ) -> Result<Device, ServiceError> {
        self.change(name, write, move |net| net.replace_device(key, body))
            .await
    }

    /// Replaces several devices in one change: each device's outcome.
    pub async fn patch_devices(
        &self,
        name: &ConfigName,
        bodies: Vec<MultipleDevicePatchBody>,
        write: Write,
    ) -> Result<Vec<(SerialNumber, Result<Device, ServiceError>)>, ServiceError> {
        let outcomes = self
            .change(name, write, move |net| net.patch_devices(bodies))
            .await?;
        Ok(outcomes
            .into_iter()
            .map(|(serial, outcome)| (serial, outcome.map_err(ServiceError::from)))
            .collect())
    }

    /// Deletes a device.
    pub async fn delete_device(
        &self,
        name: &ConfigName,
        key: DeviceKey,
        write: Write,
    ) -> Result<(), ServiceError> {
        self.change(name, write, move |net| net.delete_device(key))
            .await
    }

    /// Deletes several devices in one change: how many.
    pub async fn delete_devices(
        &self,
        name: &ConfigName,
        keys: DeviceSelection,
        write: Write,
    ) -> Result<usize, ServiceError> {
        self.change(name, write, move |net| net.delete_devices(keys))
            .await
    }

    /// The devices networks hear that are not in their configuration: of
    /// one configuration (which must exist), or of every running one.
    pub async fn unconfigured_devices(
        &self,
        name: Option<&ConfigName>,
    ) -> Result<Vec<UnconfiguredDevice>, ServiceError> {
        if let Some(name) = name {
            self.require_net(name).await?;
        }
        Ok(self.engine().unconfigured_devices(name.cloned()))
    }

    /// One interface of a device.
    pub async fn interface(
        &self,
        name: &ConfigName,
        key: DeviceKey,
        identifier: u8,
    ) -> Result<Interface, ServiceError> {
        self.read(name, move |net| net.interface(key, identifier))
            .await
    }

    /// Every interface of a device.
    pub async fn interfaces(
        &self,
        name: &ConfigName,
        key: DeviceKey,
    ) -> Result<Vec<Interface>, ServiceError> {
        self.read(name, move |net| net.interfaces(key)).await
    }

    /// Deletes an interface of a device.
    pub async fn delete_interface(
        &self,
        name: &ConfigName,
        key: DeviceKey,
        identifier: u8,
        write: Write,
    ) -> Result<(), ServiceError> {
        self.change(name, write, move |net| {
            net.delete_interface(key, identifier)
        })
        .await
    }

    /// The role of an interface.
    pub async fn interface_role(
        &self,
        name: &ConfigName,
        key: DeviceKey,
        identifier: u8,
    ) -> Result<Role, ServiceError> {
        self.read(name, move |net| net.interface_role(key, identifier))
            .await
    }

    /// Takes role `role` off an interface.
    pub async fn clear_interface_role(
        &self,
        name: &ConfigName,
        key: DeviceKey,
        identifier: u8,
        role: RoleId,
        write: Write,
    ) -> Result<Interface, ServiceError> {
        self.change(name, write, move |net| {
            net.clear_interface_role(key, identifier, role)
        })
        .await
    }

    /// Creates pairs: each pair's outcome.
    pub async fn create_pairs(
        &self,
        name: &ConfigName,
        pairs: Vec<DevicePair>,
        write: Write,
    ) -> Result<Vec<(DevicePair, PairOutcome)>, ServiceError> {
        self.change(name, write, move |net| net.create_pairs(pairs))
            .await
    }

    /// Deletes pairs: each pair's outcome.
    pub async fn delete_pairs(
        &self,
        name: &ConfigName,
        pairs: Vec<DevicePair>,
        write: Write,
    ) -> Result<Vec<(DevicePair, PairOutcome)>, ServiceError> {
        self.change(name, write, move |net| net.delete_pairs(pairs))
            .await
    }

    /// Every pair.
    pub async fn pairs(&self, name: &ConfigName) -> Result<Vec<DevicePair>, ServiceError> {
        self.read(name, |net| net.pairs()).await
    }

    /// The pairs of one device (which must exist).
    pub async fn pairs_of(
        &self,
        name: &ConfigName,
        serial: SerialNumber,
    ) -> Result<Vec<DevicePair>, ServiceError> {
        self.read(name, move |net| {
            net.device(DeviceKey::Serial(serial))?;
            net.pairs_of(serial)
        })
        .await
    }

    /// Pairs an interface with another (5.0): the device's serial number.
    pub async fn pair_interface(
        &self,
        name: &ConfigName,
        key: DeviceKey,
        identifier: u8,
        pair_type: PairType,
        other: InterfaceRef,
        write: Write,
    ) -> Result<SerialNumber, ServiceError> {
        self.change(name, write, move |net| {
            let device = net.device(key)?;
            net.pair_interface(key, identifier, pair_type, other)?;
            Ok(device.serial_number)
        })
        .await
    }

    /// Unpairs an interface from another (5.0).
    pub async fn unpair_interface(
        &self,
        name: &ConfigName,
        key: DeviceKey,
        identifier: u8,
        pair_type: PairType,
        other: InterfaceRef,
        write: Write,
    ) -> Result<(), ServiceError> {
        self.change(name, write, move |net| {
            net.unpair_interface(key, identifier, pair_type, other)
        })
        .await
    }

    /// The serial number of the device `key` names in the configuration
    /// (which must exist whatever the key; an id is looked up).
    pub async fn serial_of(
        &self,
        name: &ConfigName,
        key: DeviceKey,
    ) -> Result<SerialNumber, ServiceError> {
        match key {
            DeviceKey::Serial(serial) => {
                self.require_net(name).await?;
                Ok(serial)
            }
            DeviceKey::Id(_) => Ok(self.device(name, key).await?.serial_number),
        }
    }

    /// What the network last reported about each device (kept by the engine
    /// whether or not the configuration runs).
    pub async fn cached_devices(
        &self,
        name: &ConfigName,
    ) -> Result<Vec<CachedDevice>, ServiceError> {
        self.require_net(name).await?;
        Ok(self.engine().cached_devices(name))
    }

    /// Forgets what was cached of one device: whether anything was.
    pub async fn clear_cached_device(
        &self,
        name: &ConfigName,
        key: DeviceKey,
    ) -> Result<(SerialNumber, bool), ServiceError> {
        let serial = self.serial_of(name, key).await?;
        Ok((serial, self.engine().clear_cached_device(name, serial)))
    }

    /// Forgets what was cached of every device: how many.
    pub async fn clear_cache(&self, name: &ConfigName) -> Result<usize, ServiceError> {
        self.require_net(name).await?;
        Ok(self.engine().clear_cache(name))
    }

    /// Sends one command to one device of the running network (see
    /// [`Service::serial_of`] for a device named by id).
    pub async fn device_command(
        &self,
        name: &ConfigName,
        serial: SerialNumber,
        action: DeviceAction,
    ) -> Result<DeviceActionReply, ServiceError> {
        Ok(self
            .engine()
            .device_command(name, serial, action, self.command_timeout())
            .await?)
    }

    /// The serial numbers of `asked` that are not in the configuration.
    pub async fn unknown_serials(
        &self,
        name: &ConfigName,
        asked: Vec<SerialNumber>,
    ) -> Result<Vec<SerialNumber>, ServiceError> {
        self.read(name, move |net| net.unknown_serials(asked)).await
    }

    /// Sends one command to several devices of the running network: each
    /// device's outcome (the caller checked they are configured).
    pub async fn multi_device_command(
        &self,
        name: &ConfigName,
        serials: Vec<SerialNumber>,
        action: DeviceAction,
    ) -> Result<Vec<CommandResult>, ServiceError> {
        let results = self
            .engine()
            .multi_device_command(name, serials, action, self.command_timeout())
            .await?;
        Ok(results
            .into_iter()
            .map(|(serial, result)| (serial, result.map_err(ServiceError::from)))
            .collect())
    }
}
