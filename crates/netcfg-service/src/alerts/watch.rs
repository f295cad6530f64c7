//! The watch (decisions §16): once a second, every running configuration's
//! alert rules are evaluated against what the engine knows of its devices
//! and the positions the live feed carried; a rule that fires or clears
//! raises a notification, stored and told like the engine's own.
//!
//! The rules and the devices are read again only when the configuration's
//! content stamp moved. Counting positions costs a map update per position
//! (the feed is read anyway by other features). Packet loss is not
//! reported by the engine yet: `packet_loss_above` never fires.

use std::{collections::HashMap, time::Duration};

use netcfg_engine::{EngineNotification, LiveEvent};
use netcfg_model::{
    AlertBook, AlertRule, ConfigName, Connectivity, Device, DeviceFacts, DeviceStatus, Facts,
    RoleId, SerialNumber, Synchronisation,
};
use netcfg_store::StampKind;
use tokio::sync::broadcast::error::RecvError;

use crate::Service;

/// How often the rules are evaluated.
pub const ALERT_PERIOD: Duration = Duration::from_secs(1);

/// A tag that sent no position for this long is silent.
const SILENT_AFTER_MS: u64 = 1_000;

/// What the watch keeps of one running configuration.
#[derive(Default)]
struct Watched {
    /// The content stamp `rules` and `devices` were read under.
    stamp: Option<u64>,
    rules: Vec<AlertRule>,
    devices: Vec<Device>,
    book: AlertBook,
    /// Positions since the last evaluation.
    positions: u32,
    /// When each tag last sent a position (ms since the Unix epoch).
    last_position_ms: HashMap<SerialNumber, u64>,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

impl Service {
    /// Evaluates the alert rules of every running configuration every
    /// [`ALERT_PERIOD`] until the live feed closes. Run it on the engine's
    /// runtime.
    pub async fn watch_alerts(self) {
        let mut live = self.live();
        let mut tick = tokio::time::interval(ALERT_PERIOD);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut watched: HashMap<ConfigName, Watched> = HashMap::new();
        loop {
            tokio::select! {
                event = live.recv() => match event {
                    Ok(LiveEvent::Positions { configuration, positions, .. }) => {
                        if let Some(watch) = watched.get_mut(&configuration) {
                            let now = now_ms();
                            watch.positions = watch
                                .positions
                                .saturating_add(u32::try_from(positions.len()).unwrap_or(u32::MAX));
                            for (serial, _) in positions.iter() {
                                watch.last_position_ms.insert(*serial, now);
                            }
                        }
                    }
                    Ok(_) | Err(RecvError::Lagged(_)) => {}
                    Err(RecvError::Closed) => break,
                },
                _ = tick.tick() => self.evaluate_alerts(&mut watched).await,
            }
        }
    }

    async fn evaluate_alerts(&self, watched: &mut HashMap<ConfigName, Watched>) {
        let running = self.engine().running();
        watched.retain(|name, _| running.contains(name));
        let mut firing = HashMap::new();
        let mut raised = Vec::new();
        for name in running {
            let watch = watched.entry(name.clone()).or_default();
            let Ok(stamp) = self.stamp(&name, StampKind::Content).await else {
                continue;
            };
            if watch.stamp != Some(stamp) {
                let read = self
                    .read(&name, |net| Ok((net.alert_rules()?, net.devices()?)))
                    .await;
                let Ok((rules, devices)) = read else { continue };
                watch.rules = rules;
                watch.devices = devices;
                watch.stamp = Some(stamp);
            }
            let now = now_ms();
            let facts = self.facts(&name, watch, now);
            watch.positions = 0;
            let timestamp_ms = now;
            raised.extend(
                watch
                    .book
                    .evaluate(&watch.rules, &facts)
                    .into_iter()
                    .map(|event| EngineNotification {
                        configuration: name.clone(),
                        level: event.level,
                        message: event.message,
                        serial_number: event.serial_number,
                        timestamp_ms,
                    }),
            );
            firing.insert(name, watch.book.firing(&watch.rules));
        }
        *self
            .inner
            .firing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = firing;
        if !raised.is_empty() {
            self.store_batch(raised).await;
        }
    }

    /// What is known of `name`'s network now.
    fn facts(&self, name: &ConfigName, watch: &Watched, now: u64) -> Facts {
        let cached: HashMap<SerialNumber, _> = self
            .engine()
            .cached_devices(name)
            .into_iter()
            .map(|device| (device.serial_number, device))
            .collect();
        let devices = watch
            .devices
            .iter()
            .filter(|device| !device.disabled)
            .map(|device| {
                let roles = || device.interfaces.iter().map(|interface| interface.role_id);
                let heard = cached.get(&device.serial_number);
                let tag = roles().any(RoleId::is_tag_role);
                DeviceFacts {
                    serial_number: device.serial_number,
                    anchor: roles().any(|role| role == RoleId::ANCHOR || role == RoleId::SEEDER),
                    tag,
                    heard: heard.is_some_and(|cached| cached.connectivity != Connectivity::None),
                    synchronised: heard
                        .is_some_and(|cached| cached.synchronisation != Synchronisation::None),
                    battery_percent: heard
                        .and_then(|cached| cached.status.as_ref())
                        .map(|status| status.battery_percent)
                        .filter(|percent| *percent != DeviceStatus::NO_BATTERY),
                    packet_loss_percent: None,
                    silent: tag
                        && watch
                            .last_position_ms
                            .get(&device.serial_number)
                            .is_none_or(|last| now.saturating_sub(*last) > SILENT_AFTER_MS),
                }
            })
            .collect();
        Facts {
            now_ms: now,
            positions_per_second: watch.positions,
            devices,
        }
    }
}
