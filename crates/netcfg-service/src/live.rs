//! The live side of the running networks: the feed of positions, device
//! and network changes that front doors relay to their clients, and the
//! engine's counters. The coming live features (solved locations, zones,
//! outputs, recordings, alert rules) read the same feed here, so that a
//! front door never reaches the engine itself.

pub use netcfg_engine::{DeviceChange, EngineCounters, LiveEvent, NetworkChange};
use tokio::sync::broadcast::Receiver;

use crate::Service;

impl Service {
    /// The live feed of every configuration: positions, devices and
    /// networks. A receiver that falls behind loses the oldest items.
    pub fn live(&self) -> Receiver<LiveEvent> {
        self.engine().live()
    }

    /// How many configurations run now.
    pub fn running_count(&self) -> usize {
        self.engine().running().len()
    }

    /// The engine's counters (positions received and sent, datagrams sent
    /// and dropped) since the process started.
    pub fn engine_counters(&self) -> EngineCounters {
        netcfg_engine::counters()
    }

    /// Stores every notification the engine raises, until its feed closes,
    /// each configuration's share of a burst in one commit, then tells each
    /// stored one to the observers with its identifier. Run it on the
    /// engine's runtime.
    pub async fn pump_engine_notifications(self) {
        let feed = self.engine().subscribe();
        self.pump_notifications(feed).await;
    }
}

/// Now, in milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

/// A zone crossing as the events' payload gives it (SSE and outputs alike).
pub fn zone_event(event: &netcfg_engine::ZoneEvent) -> netcfg_model::event::ZoneEvent {
    use netcfg_model::{event::ZoneHappening, geofence::CrossingKind};
    let [x, y, z] = event.position;
    netcfg_model::event::ZoneEvent {
        net: event.configuration.to_string(),
        zone: event.zone.to_string(),
        serial_number: event.serial_number,
        event: match event.kind {
            CrossingKind::Enter => ZoneHappening::Enter,
            CrossingKind::Exit => ZoneHappening::Exit,
        },
        x,
        y,
        z,
        network_time: event.network_time,
        time_ms: event.time_ms,
    }
}

/// A device's change as the events' payload gives it, with its
/// configuration; `None` for another kind of live event.
pub fn device_event(
    event: &LiveEvent,
) -> Option<(netcfg_model::ConfigName, netcfg_model::event::DeviceEvent)> {
    use netcfg_model::event::{DeviceEvent, DeviceHappening};
    let LiveEvent::Device {
        configuration,
        serial_number,
        change,
        connectivity,
        synchronisation,
        status,
    } = event
    else {
        return None;
    };
    let device = DeviceEvent {
        net: configuration.to_string(),
        serial_number: *serial_number,
        event: match change {
            DeviceChange::Joined => DeviceHappening::Joined,
            DeviceChange::Lost => DeviceHappening::Lost,
            DeviceChange::Health => DeviceHappening::Health,
        },
        connectivity: *connectivity,
        synchronisation: *synchronisation,
        status: status.clone(),
    };
    Some((configuration.clone(), device))
}
