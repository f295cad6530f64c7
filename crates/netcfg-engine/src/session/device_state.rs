//! What the session keeps of each device (its cached state: connectivity,
//! synchronisation, status, ...), and who is told when it changes: the
//! live feed, and the User and Anchor streams (DeviceActivityState).

use netcfg_model::{CachedDevice, Connectivity, SerialNumber, Synchronisation};

use netcfg_model::time::clock::wall_clock_ms;

use super::{Session, lock};
use crate::{
    api::{DeviceChange, LiveEvent},
    live,
};

impl Session {
    pub(super) fn update_cache(
        &self,
        serial_number: SerialNumber,
        change: impl FnOnce(&mut CachedDevice),
    ) {
        let mut caches = lock(&self.caches);
        let cached = caches
            .entry(self.configuration.clone())
            .or_default()
            .entry(serial_number)
            .or_insert_with(|| empty_cache_entry(serial_number));
        cached.last_seen_ms = wall_clock_ms();
        change(cached);
    }

    /// A device's connectivity and synchronisation, as cached.
    pub(super) fn activity_of(
        &self,
        serial_number: SerialNumber,
    ) -> Option<(Connectivity, Synchronisation)> {
        lock(&self.caches)
            .get(&self.configuration)
            .and_then(|cache| cache.get(&serial_number))
            .map(|cached| (cached.connectivity, cached.synchronisation))
    }

    /// Sends a configured device's DeviceActivityState at once when its
    /// connectivity or synchronisation changed: on the User stream, and for
    /// anchors and seeders on the Anchor stream too, with Synchronization.
    /// Whether it changed.
    pub(super) async fn activity_changed(
        &self,
        serial_number: SerialNumber,
        before: Option<(Connectivity, Synchronisation)>,
    ) -> bool {
        if self.activity_of(serial_number) == before {
            return false;
        }
        let plan = self.plan();
        let Some(device) = plan.enabled_device(serial_number) else {
            return false;
        };
        let (state, synchronization) = {
            let caches = lock(&self.caches);
            let cache = caches.get(&self.configuration);
            (
                live::activity(device, cache.and_then(|cache| cache.get(&serial_number))),
                live::synchronization(&plan, cache),
            )
        };
        let streams = self.streams();
        if let Some(user) = &streams.user {
            let result = user.send_items(std::slice::from_ref(&state)).await;
            self.stream_result(user, result);
        }
        if live::is_anchor(device)
            && let Some(anchor) = &streams.anchor
        {
            let result = anchor.send_items(&[state, synchronization]).await;
            self.stream_result(anchor, result);
        }
        true
    }

    /// Tells the live feed what happened to a configured device, with its
    /// state as cached.
    pub(super) fn device_changed(&self, serial_number: SerialNumber, change: DeviceChange) {
        let Some((connectivity, synchronisation, status)) = lock(&self.caches)
            .get(&self.configuration)
            .and_then(|cache| cache.get(&serial_number))
            .map(|cached| {
                (
                    cached.connectivity,
                    cached.synchronisation,
                    cached.status.clone(),
                )
            })
        else {
            return;
        };
        let _ = self.live.send(LiveEvent::Device {
            configuration: self.configuration.clone(),
            serial_number,
            change,
            connectivity,
            synchronisation,
            status,
        });
    }
}

pub(super) fn empty_cache_entry(serial_number: SerialNumber) -> CachedDevice {
    fresh_cache_entry(serial_number, wall_clock_ms())
}

/// A device's cache entry when nothing is known of it yet but when it was
/// last seen.
pub(crate) fn fresh_cache_entry(serial_number: SerialNumber, last_seen_ms: u64) -> CachedDevice {
    CachedDevice {
        serial_number,
        last_seen_ms,
        connectivity: Connectivity::None,
        synchronisation: Synchronisation::None,
        status: None,
        attributes: None,
        firmware_images: Vec::new(),
        position: None,
        last_action: None,
        unlocated: None,
    }
}
