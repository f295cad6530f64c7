//! What the session repeats on the data streams: the announcements and the
//! devices' state every `announce_period` (and at once after a reload), and
//! anchor health every `anchor_health_report_period`.

use std::{collections::HashMap, sync::Arc, time::Duration};

use netcfg_model::{Level, SerialNumber};
use tokio::time::MissedTickBehavior;

use super::{Session, lock};
use crate::{
    cdp::Item,
    live,
    streams::{SendFailure, StreamSocket},
};

/// AnchorHealthV5's `interanchor_comms_error_code` for a bad survey.
const BAD_SURVEY: u8 = 2;

impl Session {
    pub(super) fn stream_result(&self, stream: &StreamSocket, result: Result<(), SendFailure>) {
        if let Err(SendFailure::First(error)) = result {
            self.journal.notify(
                Level::Warning,
                format!("data stream {} cannot send: {error}", stream.name),
                None,
            );
        }
    }

    /// Repeats the announcements (Config stream) and the device state (User
    /// and Anchor streams) every `announce_period` and at once after a
    /// reload; sends anchor health (Anchor stream) every
    /// `anchor_health_report_period` seconds.
    pub(super) async fn publish(self: Arc<Self>) {
        let mut state = tokio::time::interval(self.timing.announce_period);
        let health_period = self.plan().anchor_health_period();
        let mut health =
            tokio::time::interval_at(tokio::time::Instant::now() + health_period, health_period);
        state.set_missed_tick_behavior(MissedTickBehavior::Delay);
        health.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut marks = HashMap::new();
        loop {
            tokio::select! {
                _ = state.tick() => self.send_state().await,
                () = self.state_changed.notified() => self.send_state().await,
                _ = health.tick() => self.send_health(health_period, &mut marks).await,
            }
        }
    }

    async fn send_state(&self) {
        let plan = self.plan();
        let announcement =
            live::announcement(self.configuration.as_str(), &self.hostname, &plan.streams);
        let (mut user_state, anchor_state) = {
            let caches = lock(&self.caches);
            let cache = caches.get(&self.configuration);
            (
                live::user_state(&plan, cache),
                live::anchor_state(&plan, cache),
            )
        };
        user_state.extend(lock(&self.zoning).announcements());
        let streams = self.streams();
        for (stream, items) in [
            (&streams.config, announcement),
            (&streams.user, user_state),
            (&streams.anchor, anchor_state),
        ] {
            if let Some(stream) = stream {
                let result = stream.send_items(&items).await;
                self.stream_result(stream, result);
            }
        }
    }

    /// AnchorHealthV5 for every anchor and seeder: the counts between its
    /// two latest counter reports (see [`live::health_due`]).
    async fn send_health(
        &self,
        period: Duration,
        marks: &mut HashMap<SerialNumber, live::HealthMark>,
    ) {
        let streams = self.streams();
        let Some(anchor) = &streams.anchor else {
            return;
        };
        let plan = self.plan();
        let items: Vec<Item> = {
            let counters = lock(&self.counters);
            plan.enabled_devices()
                .filter(|device| live::is_anchor(device))
                .filter_map(|device| {
                    let latest = counters.get(&device.serial_number).copied();
                    let mark = marks.entry(device.serial_number).or_default();
                    live::health_due(device, latest, mark, period)
                })
                .collect()
        };
        let planned = plan.serial_numbers();
        marks.retain(|serial, _| planned.contains(serial));
        if items.is_empty() {
            return;
        }
        let mut items = items;
        {
            let bad = lock(&self.badly_surveyed);
            for item in &mut items {
                if let Item::AnchorHealthV5(health) = item
                    && bad.contains(&health.serial_number)
                {
                    health.interanchor_comms_error_code = BAD_SURVEY;
                }
            }
        }
        let result = anchor.send_items(&items).await;
        self.stream_result(anchor, result);
    }
}
