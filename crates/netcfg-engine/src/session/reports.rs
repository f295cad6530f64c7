//! The network's reports as they come from the driver: each one updates
//! what is cached of its device and tells whoever must hear of it (the
//! journal, the live feed, the streams); a device the configuration does not
//! hold is kept as unconfigured.

use std::{collections::HashSet, sync::Arc};

use netcfg_model::{
    Connectivity, DeviceStatus, Level, RoleId, SerialNumber, Synchronisation, UnconfiguredDevice,
};
use tokio::sync::mpsc;

use netcfg_model::time::clock::wall_clock_ms;

use super::{Session, lock};
use crate::{
    api::DeviceChange,
    driver::DriverEvent,
    live,
    protocol::{AnchorCounters, Message, SensorReport},
};

impl Session {
    /// Handles the driver's events until the link goes down.
    pub(super) async fn process(self: Arc<Self>, mut events: mpsc::Receiver<DriverEvent>) {
        let mut out_of_sync = HashSet::new();
        let mut strangers = HashSet::new();
        while let Some(event) = events.recv().await {
            match event {
                DriverEvent::Report(message) => {
                    self.report(message, &mut out_of_sync, &mut strangers).await
                }
                DriverEvent::Damaged(error) => {
                    self.journal
                        .line(Level::Debug, &format!("damaged frame skipped: {error}"));
                }
                DriverEvent::LinkDown(reason) => {
                    self.link_dropped(&reason);
                    return;
                }
            }
        }
    }

    /// Hands one report to what handles its kind. `out_of_sync` holds the
    /// anchors said to have lost synchronisation, `strangers` the
    /// unconfigured devices already notified, so each is said once.
    async fn report(
        &self,
        message: Message,
        out_of_sync: &mut HashSet<SerialNumber>,
        strangers: &mut HashSet<SerialNumber>,
    ) {
        match message {
            Message::Joined {
                serial_number,
                interface,
                role_id,
            } => {
                self.joined(serial_number, interface, role_id, strangers)
                    .await;
            }
            Message::Heard { serial_number } => {
                if self.is_configured(serial_number) {
                    self.update_cache(serial_number, |_| {});
                } else {
                    self.heard_stranger(serial_number, strangers);
                }
            }
            Message::Lost { serial_number } => self.lost(serial_number).await,
            Message::Status {
                serial_number,
                connectivity,
                status,
            } => {
                self.status_reported(serial_number, connectivity, status)
                    .await;
            }
            Message::Sync {
                serial_number,
                synchronisation,
            } => {
                self.sync_reported(serial_number, synchronisation, out_of_sync)
                    .await;
            }
            Message::Attributes {
                serial_number,
                attributes,
            } => self.update_cache(serial_number, |cached| cached.attributes = Some(attributes)),
            Message::FirmwareImages {
                serial_number,
                images,
            } => {
                self.update_cache(serial_number, |cached| cached.firmware_images = images);
            }
            Message::Positions {
                network_time,
                reports,
            } => self.deliver_positions(network_time, reports).await,
            Message::ArrivalTimes {
                network_time,
                beacons,
            } => self.locate(network_time, &beacons, true).await,
            Message::Ranges {
                network_time,
                beacons,
            } => self.locate(network_time, &beacons, false).await,
            Message::Sensors {
                network_time,
                reports,
            } => self.send_sensors(network_time, &reports).await,
            Message::AnchorCounters {
                serial_number,
                interface,
                counters,
            } => self.counters_reported(serial_number, interface, counters),
            other => {
                self.journal.line(
                    Level::Debug,
                    &format!("unexpected message ignored: {other:?}"),
                );
            }
        }
    }

    fn is_configured(&self, serial_number: SerialNumber) -> bool {
        self.plan().enabled_device(serial_number).is_some()
    }

    fn heard_stranger(&self, serial_number: SerialNumber, strangers: &mut HashSet<SerialNumber>) {
        lock(&self.unconfigured).insert(
            (self.configuration.clone(), serial_number),
            UnconfiguredDevice {
                serial_number,
                heard_by: Some(self.configuration.clone()),
                last_seen_ms: wall_clock_ms(),
            },
        );
        if strangers.insert(serial_number) {
            self.journal.notify(
                Level::Warning,
                format!("device {serial_number} is heard but is not in the configuration"),
                Some(serial_number),
            );
        }
    }

    /// A device joined the network: heard, connected over UWB.
    async fn joined(
        &self,
        serial_number: SerialNumber,
        interface: u8,
        role_id: RoleId,
        strangers: &mut HashSet<SerialNumber>,
    ) {
        if !self.is_configured(serial_number) {
            return self.heard_stranger(serial_number, strangers);
        }
        lock(&self.heard).insert(serial_number);
        let before = self.activity_of(serial_number);
        self.update_cache(serial_number, |cached| {
            cached.connectivity = Connectivity::Uwb
        });
        self.activity_changed(serial_number, before).await;
        self.device_changed(serial_number, DeviceChange::Joined);
        // The role by its name, as people named it.
        let role = self
            .plan()
            .roles
            .iter()
            .find(|role| role.id == role_id)
            .map_or_else(|| format!("role {role_id}"), |role| role.name.to_string());
        self.journal.notify(
            Level::Information,
            format!("device {serial_number} joined (interface {interface}, {role})"),
            Some(serial_number),
        );
    }

    /// A device went silent: no longer connected, and in no zone.
    async fn lost(&self, serial_number: SerialNumber) {
        let before = self.activity_of(serial_number);
        self.update_cache(serial_number, |cached| {
            cached.connectivity = Connectivity::None
        });
        self.activity_changed(serial_number, before).await;
        self.device_changed(serial_number, DeviceChange::Lost);
        self.forget_zones_of(serial_number).await;
        self.journal.notify(
            Level::Warning,
            format!("device {serial_number} went silent"),
            Some(serial_number),
        );
    }

    /// A device's periodic status: the live feed hears of it only when its
    /// activity or its status changed.
    async fn status_reported(
        &self,
        serial_number: SerialNumber,
        connectivity: Connectivity,
        status: DeviceStatus,
    ) {
        lock(&self.heard).insert(serial_number);
        let before = self.activity_of(serial_number);
        let mut status_changed = false;
        self.update_cache(serial_number, |cached| {
            cached.connectivity = connectivity;
            status_changed = cached.status.as_ref() != Some(&status);
            cached.status = Some(status);
        });
        if self.activity_changed(serial_number, before).await || status_changed {
            self.device_changed(serial_number, DeviceChange::Health);
        }
    }

    /// A device's synchronisation changed: cached, handed to the locator
    /// (an unsynchronised anchor's times are no use), and for an anchor
    /// that positions need, notified once when it is lost and once when it
    /// is back.
    async fn sync_reported(
        &self,
        serial_number: SerialNumber,
        synchronisation: Synchronisation,
        out_of_sync: &mut HashSet<SerialNumber>,
    ) {
        let before = self.activity_of(serial_number);
        self.update_cache(serial_number, |cached| {
            cached.synchronisation = synchronisation
        });
        if self.activity_changed(serial_number, before).await {
            self.device_changed(serial_number, DeviceChange::Health);
        }
        let anchor = self
            .plan()
            .enabled_device(serial_number)
            .is_some_and(|device| {
                device
                    .interfaces
                    .iter()
                    .any(|interface| interface.role_id.needs_position())
            });
        lock(&self.locator)
            .set_synchronised(serial_number, synchronisation != Synchronisation::None);
        if anchor && synchronisation == Synchronisation::None {
            if out_of_sync.insert(serial_number) {
                self.journal.notify(
                    Level::Warning,
                    format!("anchor {serial_number} lost synchronisation"),
                    Some(serial_number),
                );
            }
        } else if out_of_sync.remove(&serial_number) {
            self.journal.notify(
                Level::Information,
                format!("anchor {serial_number} is synchronised again"),
                Some(serial_number),
            );
        }
    }

    /// Tags' sensor readings, on to the User stream.
    async fn send_sensors(&self, network_time: u64, reports: &[SensorReport]) {
        let streams = self.streams();
        if let Some(user) = &streams.user {
            let items = live::sensors(network_time, reports);
            let result = user.send_items(&items).await;
            self.stream_result(user, result);
        }
    }

    /// A configured anchor's counters, kept for its next health item.
    fn counters_reported(
        &self,
        serial_number: SerialNumber,
        interface: u8,
        counters: AnchorCounters,
    ) {
        if self.is_configured(serial_number) {
            let report = live::CounterReport {
                interface,
                counters,
                received: std::time::Instant::now(),
            };
            lock(&self.counters).insert(serial_number, report);
        }
    }
}
