//! The last position of every located tag of each running configuration
//! (`GET /nets/{net}/positions`, decisions §18), kept by the site relay as
//! the batches go by, so a dashboard needs no stream.

use std::{collections::HashMap, sync::Mutex};

use netcfg_model::{
    ConfigName, DeviceKey, SerialNumber, TagPosition, event::PositionEntry, sync::lock,
    time::clock::wall_clock_ms,
};

use crate::{Service, ServiceError, SiteEvent};

/// Each tag's newest position and when it arrived (ms since the epoch).
type Latest = HashMap<SerialNumber, (PositionEntry, u64)>;

/// By configuration, each tag's newest position and when it arrived.
#[derive(Debug, Default)]
pub(crate) struct LatestPositions {
    nets: Mutex<HashMap<ConfigName, Latest>>,
}

impl LatestPositions {
    /// Takes what a site event says: a batch's positions, or a start or
    /// stop (which forgets the configuration's).
    pub(crate) fn take(&self, event: &SiteEvent) {
        match event {
            SiteEvent::Positions {
                net,
                time_ms,
                positions,
            } => {
                let mut nets = lock(&self.nets);
                let latest = nets.entry(net.clone()).or_default();
                for entry in positions.iter() {
                    latest.insert(entry.serial_number, (*entry, *time_ms));
                }
            }
            SiteEvent::State { net, .. } => {
                lock(&self.nets).remove(net);
            }
            _ => {}
        }
    }

    fn of(&self, net: &ConfigName) -> Vec<(PositionEntry, u64)> {
        lock(&self.nets)
            .get(net)
            .map(|latest| latest.values().copied().collect())
            .unwrap_or_default()
    }
}

impl Service {
    /// The last position of every located tag of a running configuration
    /// (409 when it does not run), or of the tag `serial` alone (an empty
    /// list while it is not located; 404 when the configuration does not
    /// hold it), by serial number.
    pub async fn positions(
        &self,
        name: &ConfigName,
        serial: Option<SerialNumber>,
    ) -> Result<Vec<TagPosition>, ServiceError> {
        self.require_running(name, "give its tags' positions")
            .await?;
        if let Some(serial) = serial {
            // 404 for a serial the configuration does not hold.
            self.device(name, DeviceKey::Serial(serial)).await?;
        }
        let devices = self.devices(name).await?;
        let now = wall_clock_ms();
        let mut positions: Vec<TagPosition> = self
            .inner
            .latest_positions
            .of(name)
            .into_iter()
            .filter(|(entry, _)| serial.is_none_or(|serial| entry.serial_number == serial))
            .map(|(entry, time_ms)| TagPosition {
                serial_number: entry.serial_number,
                name: devices
                    .iter()
                    .find(|device| device.serial_number == entry.serial_number)
                    .and_then(|device| device.name.clone()),
                x: entry.x,
                y: entry.y,
                z: entry.z,
                error_mm: entry.error_mm,
                vx: entry.vx,
                vy: entry.vy,
                network_time: entry.network_time,
                time_ms,
                age_ms: now.saturating_sub(time_ms),
            })
            .collect();
        positions.sort_by_key(|position| position.serial_number);
        Ok(positions)
    }
}
