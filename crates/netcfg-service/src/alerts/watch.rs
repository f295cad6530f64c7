//! The watch (decisions §16): twice a second, every running configuration's
//! alert rules are evaluated against what the engine knows of its devices
//! and the positions the live feed carried; a rule that fires or clears
//! raises a notification, stored and told like the engine's own.
//!
//! The rules and the devices are read again only when the configuration's
//! content stamp moved. Counting positions costs a map update per position,
//! and only for a configuration with a rule that reads them (`tag_silent`,
//! `positions_below`). An anchor's packet loss is the share of the tag
//! beacons it heard in the last 10 s that it discarded or got too late
//! (from its counters, which the engine keeps), read only for a
//! configuration with a `packet_loss_above` rule.

use std::{collections::HashMap, time::Duration};

use netcfg_engine::EngineNotification;
use netcfg_model::{
    AlertBook, AlertCondition, AlertRule, ConfigName, Connectivity, Device, DeviceFacts, Facts,
    RoleId, SerialNumber, Synchronisation,
};
use netcfg_store::StampKind;
use tokio::sync::broadcast::error::RecvError;

use crate::{Service, SiteEvent, live::wall_clock_ms};

/// How often the rules are evaluated: twice a second, so that a rule
/// fires within half a second of its condition having held for its time
/// (the decisions ask for at least once a second).
pub const ALERT_PERIOD: Duration = Duration::from_millis(500);

/// The span the positions a second are counted over.
const RATE_SPAN_MS: u64 = 1_000;

/// The span an anchor's packet loss is read over: anchors report their
/// counters every few seconds.
const LOSS_SPAN_MS: u64 = 10_000;

/// Each anchor's beacons reported and lost, as read at one look.
type BeaconReading = (u64, HashMap<SerialNumber, (u32, u32)>);

/// A tag that sent no position for this long is silent.
const SILENT_AFTER_MS: u64 = 1_000;

/// What the watch keeps of one running configuration.
#[derive(Default)]
struct Watched {
    /// The content stamp `rules` and `devices` were read under.
    stamp: Option<u64>,
    rules: Vec<AlertRule>,
    /// Whether a rule reads the positions (`tag_silent`,
    /// `positions_below`): without one, positions cost the watch nothing.
    counts_positions: bool,
    devices: Vec<Device>,
    book: AlertBook,
    /// Positions since the last evaluation.
    positions: u32,
    /// The positions of each look's window in the last second: (window
    /// start, count).
    windows: std::collections::VecDeque<(u64, u32)>,
    /// When each tag last sent a position (ms since the Unix epoch).
    last_position_ms: HashMap<SerialNumber, u64>,
    /// Whether a rule reads packet loss (`packet_loss_above`).
    reads_loss: bool,
    /// The anchors' beacon counts of the looks of the last
    /// [`LOSS_SPAN_MS`], oldest first.
    beacons: std::collections::VecDeque<BeaconReading>,
    /// Since when positions are counted (the look that began it).
    counting_since_ms: Option<u64>,
    /// The last look's time.
    last_look_ms: Option<u64>,
}

impl Watched {
    /// Ends the window of positions counted since the last look, and keeps
    /// the windows of the last second.
    fn close_window(&mut self, now: u64) {
        let counted = std::mem::take(&mut self.positions);
        let (Some(since), Some(last_look)) = (self.counting_since_ms, self.last_look_ms) else {
            return;
        };
        self.windows.push_back((since.max(last_look), counted));
        // A window is kept while it starts within the span (a quarter of a
        // look's slack for the timer's jitter).
        let slack = u64::try_from(ALERT_PERIOD.as_millis() / 4).unwrap_or(0);
        while self
            .windows
            .front()
            .is_some_and(|(start, _)| start + RATE_SPAN_MS + slack < now)
        {
            self.windows.pop_front();
        }
    }

    /// Keeps this look's beacon counts and those of the last
    /// [`LOSS_SPAN_MS`].
    fn read_beacons(&mut self, now: u64, counts: Vec<netcfg_engine::BeaconCounts>) {
        let reading = counts
            .into_iter()
            .map(|counts| (counts.serial_number, (counts.reported, counts.lost)))
            .collect();
        self.beacons.push_back((now, reading));
        while self
            .beacons
            .front()
            .is_some_and(|(at, _)| at + LOSS_SPAN_MS < now)
        {
            self.beacons.pop_front();
        }
    }

    /// The share of `anchor`'s beacons lost between the oldest reading of
    /// the span and the newest, in hundredths of a percent; `None` when it
    /// heard none between them.
    fn packet_loss(&self, anchor: SerialNumber) -> Option<u32> {
        let (_, oldest) = self.beacons.front()?;
        let (_, newest) = self.beacons.back()?;
        let (reported_then, lost_then) = oldest.get(&anchor)?;
        let (reported_now, lost_now) = newest.get(&anchor)?;
        // The counts wrap as the device's do.
        let lost = u64::from(lost_now.wrapping_sub(*lost_then));
        let heard = u64::from(reported_now.wrapping_sub(*reported_then)) + lost;
        (heard > 0).then(|| u32::try_from(lost * 10_000 / heard).unwrap_or(u32::MAX))
    }

    /// Positions a second over the last second's windows; `None` until
    /// nearly a second was counted.
    fn positions_per_second(&self, now: u64) -> Option<u32> {
        let (start, _) = *self.windows.front()?;
        let span = now.saturating_sub(start);
        if span < RATE_SPAN_MS * 9 / 10 {
            return None;
        }
        let counted: u64 = self
            .windows
            .iter()
            .map(|(_, count)| u64::from(*count))
            .sum();
        u32::try_from(counted * 1_000 / span).ok()
    }
}

/// The time of each look, in ms since the Unix epoch, on the ticks'
/// schedule: looks are exact periods apart, so a condition that held for
/// `for_s` is seen to have held for it at the look that ends it, not a look
/// later because the timer woke a millisecond early. It follows the wall
/// clock again when the two drift a quarter of a second apart (positions
/// are stamped by the wall clock, and a tag is silent after a second).
struct LookClock {
    base: tokio::time::Instant,
    base_ms: u64,
}

impl LookClock {
    fn new() -> Self {
        Self {
            base: tokio::time::Instant::now(),
            base_ms: wall_clock_ms(),
        }
    }

    fn at(&mut self, tick: tokio::time::Instant) -> u64 {
        let elapsed = tick.saturating_duration_since(self.base).as_millis();
        let look_ms = self.base_ms + u64::try_from(elapsed).unwrap_or(0);
        let wall_ms = wall_clock_ms();
        if look_ms.abs_diff(wall_ms) > 250 {
            *self = Self {
                base: tick,
                base_ms: wall_ms,
            };
            return wall_ms;
        }
        look_ms
    }
}

impl Service {
    /// Evaluates the alert rules of every running configuration every
    /// [`ALERT_PERIOD`] until the site's feed closes ([`Service::start_background_work`]
    /// runs it).
    pub(crate) async fn watch_alerts(self) {
        let mut live = self.site_events();
        let mut tick = tokio::time::interval(ALERT_PERIOD);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut watched: HashMap<ConfigName, Watched> = HashMap::new();
        let mut clock = LookClock::new();
        loop {
            tokio::select! {
                event = live.recv() => match event {
                    Ok(SiteEvent::Positions { net, time_ms, positions }) => {
                        if let Some(watch) = watched
                            .get_mut(&net)
                            .filter(|watch| watch.counts_positions)
                        {
                            watch.positions = watch
                                .positions
                                .saturating_add(u32::try_from(positions.len()).unwrap_or(u32::MAX));
                            for entry in positions.iter() {
                                watch.last_position_ms.insert(entry.serial_number, time_ms);
                            }
                        }
                    }
                    Ok(_) | Err(RecvError::Lagged(_)) => {}
                    Err(RecvError::Closed) => break,
                },
                at = tick.tick() => {
                    let look_ms = clock.at(at);
                    self.evaluate_alerts(&mut watched, look_ms).await;
                }
            }
        }
    }

    async fn evaluate_alerts(&self, watched: &mut HashMap<ConfigName, Watched>, now: u64) {
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
                watch.counts_positions = rules.iter().any(|rule| {
                    matches!(
                        rule.condition,
                        AlertCondition::TagSilent | AlertCondition::PositionsBelow
                    )
                });
                if !watch.counts_positions {
                    watch.last_position_ms.clear();
                    watch.windows.clear();
                    watch.counting_since_ms = None;
                } else if watch.counting_since_ms.is_none() {
                    watch.counting_since_ms = Some(now);
                }
                watch.reads_loss = rules
                    .iter()
                    .any(|rule| rule.condition == AlertCondition::PacketLossAbove);
                if !watch.reads_loss {
                    watch.beacons.clear();
                }
                watch.rules = rules;
                watch.devices = devices;
                watch.stamp = Some(stamp);
            }
            if watch.rules.is_empty() {
                // Nothing to look at: no engine data read, no facts built.
                watch.book = AlertBook::default();
                continue;
            }
            watch.close_window(now);
            if watch.reads_loss {
                watch.read_beacons(now, self.engine().beacon_counts(&name));
            }
            let facts = self.facts(&name, watch, now);
            watch.last_look_ms = Some(now);
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
        *netcfg_model::sync::lock(&self.inner.firing) = firing;
        if !raised.is_empty() {
            self.store_batch(raised).await;
        }
    }

    /// What is known of `name`'s network now.
    fn facts(&self, name: &ConfigName, watch: &Watched, now: u64) -> Facts {
        let cached: HashMap<SerialNumber, _> = self
            .engine()
            .device_links(name)
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
                    battery_percent: heard.and_then(|cached| cached.battery_percent),
                    packet_loss_basis_points: watch.packet_loss(device.serial_number),
                    // A tag is silent when its last position, or the start
                    // of counting if it sent none since, is too old.
                    silent: tag
                        && watch
                            .last_position_ms
                            .get(&device.serial_number)
                            .copied()
                            .or(watch.counting_since_ms)
                            .is_some_and(|last| now.saturating_sub(last) > SILENT_AFTER_MS),
                }
            })
            .collect();
        Facts {
            now_ms: now,
            positions_per_second: watch.positions_per_second(now),
            devices,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_a_second_are_counted_over_the_last_second_once_one_was_counted() {
        let mut watch = Watched {
            counting_since_ms: Some(10_000),
            ..Watched::default()
        };
        // The look that starts counting has nothing to count.
        watch.close_window(10_000);
        watch.last_look_ms = Some(10_000);
        assert_eq!(watch.positions_per_second(10_000), None);
        watch.positions = 1_650;
        watch.close_window(10_500);
        watch.last_look_ms = Some(10_500);
        assert_eq!(watch.positions_per_second(10_500), None, "half a second");
        watch.positions = 1_650;
        watch.close_window(11_000);
        watch.last_look_ms = Some(11_000);
        assert_eq!(watch.positions_per_second(11_000), Some(3_300));
        // Older windows leave the count: a network that went quiet reads
        // low after a second.
        for now in [11_500, 12_000] {
            watch.close_window(now);
            watch.last_look_ms = Some(now);
        }
        assert_eq!(watch.positions_per_second(12_000), Some(0));
    }
}

#[cfg(test)]
mod loss_tests {
    use super::*;

    #[test]
    fn packet_loss_is_the_share_of_beacons_lost_over_the_span_across_a_wrap() {
        let anchor = SerialNumber::from_u32(0x0104_0001);
        let counts = |reported: u32, lost: u32| {
            vec![netcfg_engine::BeaconCounts {
                serial_number: anchor,
                reported,
                lost,
            }]
        };
        let mut watch = Watched::default();
        watch.read_beacons(0, counts(u32::MAX - 99, 10));
        assert_eq!(watch.packet_loss(anchor), None, "one reading");
        // 1,000 heard since (across the counter's wrap), 20 of them lost.
        watch.read_beacons(5_000, counts(879, 30));
        assert_eq!(watch.packet_loss(anchor), Some(200));
        // The first reading leaves the span: nothing heard since the second.
        watch.read_beacons(12_000, counts(879, 30));
        assert_eq!(watch.packet_loss(anchor), None);
    }
}
