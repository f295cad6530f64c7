//! Zones (decisions §13): a configuration's zones, kept with its content
//! (history, ETags, the saved-state file), and handed to the running
//! network whenever they change, so the enters and exits that follow from
//! a change are told at once.

use netcfg_model::{
    ConfigName, ItemName, Zone, ZoneOccupant,
    body::{ZonePatchBody, ZonePostBody},
};

use crate::{Service, ServiceError, Write};

impl Service {
    /// Adds a zone.
    pub async fn create_zone(
        &self,
        name: &ConfigName,
        body: ZonePostBody,
        write: Write,
    ) -> Result<Zone, ServiceError> {
        let zone = self
            .change(name, write, move |net| net.create_zone(body))
            .await?;
        self.push_zones(name).await?;
        Ok(zone)
    }

    /// One zone.
    pub async fn zone(&self, name: &ConfigName, zone: ItemName) -> Result<Zone, ServiceError> {
        self.read(name, move |net| net.zone(zone)).await
    }

    /// Every zone, by name.
    pub async fn zones(&self, name: &ConfigName) -> Result<Vec<Zone>, ServiceError> {
        self.read(name, |net| net.zones()).await
    }

    /// Changes a zone.
    pub async fn patch_zone(
        &self,
        name: &ConfigName,
        zone: ItemName,
        body: ZonePatchBody,
        write: Write,
    ) -> Result<Zone, ServiceError> {
        let zone = self
            .change(name, write, move |net| net.patch_zone(zone, body))
            .await?;
        self.push_zones(name).await?;
        Ok(zone)
    }

    /// Deletes a zone.
    pub async fn delete_zone(
        &self,
        name: &ConfigName,
        zone: ItemName,
        write: Write,
    ) -> Result<(), ServiceError> {
        self.change(name, write, move |net| net.delete_zone(zone))
            .await?;
        self.push_zones(name).await
    }

    /// The tags inside a zone now (409 when the configuration is stopped).
    pub async fn zone_occupancy(
        &self,
        name: &ConfigName,
        zone: ItemName,
    ) -> Result<Vec<ZoneOccupant>, ServiceError> {
        let zone = self.zone(name, zone).await?;
        self.require_running(name, "see who is in its zones")
            .await?;
        let occupants = self.engine().zone_occupancy(name, zone.zone_id)?;
        Ok(occupants.into_iter().map(ZoneOccupant::from).collect())
    }

    /// Gives the running network the zones as they are now.
    async fn push_zones(&self, name: &ConfigName) -> Result<(), ServiceError> {
        let _order = self.inner.zone_push.lock().await;
        if self.is_running(name) {
            let zones = self.zones(name).await?;
            self.engine().set_zones(name, zones);
        }
        Ok(())
    }
}
