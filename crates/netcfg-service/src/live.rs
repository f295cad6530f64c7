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
