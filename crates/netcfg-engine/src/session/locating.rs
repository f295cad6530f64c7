//! A session as the location server: beacons solved into positions (and
//! delivered like any other), the reference tags' accuracy, the survey.

use netcfg_model::{
    Level, MeasuredRange, SerialNumber, SurveyReport, TagAccuracy, locate::Verdict,
};

use netcfg_model::time::clock::wall_clock_ms;

use super::{Session, device_state::empty_cache_entry, exchange::exchange, lock};
use crate::{
    api::{DeviceChange, LiveEvent},
    error::EngineError,
    live,
    locator::LocationNews,
    protocol::{BeaconReport, Message, PositionReport},
};

/// Two-way ranges per peer in a survey (the median is kept).
const SURVEY_ROUNDS: u8 = 10;

impl Session {
    /// Solves a batch of beacons and delivers the positions.
    pub(super) async fn locate(&self, network_time: u64, beacons: &[BeaconReport], in_ticks: bool) {
        let mut news = Vec::new();
        let reports = lock(&self.locator).solve(beacons, in_ticks, network_time, &mut news);
        for item in news {
            let (level, why, serial) = match item {
                LocationNews::Unlocated { tag, heard, needs } => (
                    Level::Warning,
                    Some(format!(
                        "heard by {heard} anchor{}, needs {needs}",
                        if heard == 1 { "" } else { "s" }
                    )),
                    tag,
                ),
                LocationNews::Unsolvable(tag) => (
                    Level::Warning,
                    Some("the anchors that hear it are badly placed".to_owned()),
                    tag,
                ),
                LocationNews::Located(tag) => (Level::Information, None, tag),
            };
            let message = match &why {
                Some(why) => format!("tag {serial} cannot be located: {why}"),
                None => format!("tag {serial} is located again"),
            };
            // The tag's health says so too, until it is located again.
            self.update_cache(serial, |cached| cached.unlocated = why);
            self.device_changed(serial, DeviceChange::Health);
            self.journal.notify(level, message, Some(serial));
        }
        if !reports.is_empty() {
            self.deliver_positions(network_time, reports).await;
        }
    }

    /// Caches positions, tells the live feed and sends them on the User stream.
    pub(super) async fn deliver_positions(&self, network_time: u64, reports: Vec<PositionReport>) {
        crate::counters::positions_received(reports.len());
        {
            let now = wall_clock_ms();
            let mut caches = lock(&self.caches);
            let cache = caches.entry(self.configuration.clone()).or_default();
            for report in &reports {
                let cached = cache
                    .entry(report.serial_number)
                    .or_insert_with(|| empty_cache_entry(report.serial_number));
                cached.last_seen_ms = now;
                cached.position = Some(report.position);
            }
        }
        let whereabouts = self.track_zones(network_time, &reports);
        let positions = reports
            .iter()
            .map(|report| (report.serial_number, report.position))
            .collect();
        let _ = self.live.send(LiveEvent::Positions {
            configuration: self.configuration.clone(),
            network_time,
            positions,
        });
        let streams = self.streams();
        if let Some(user) = &streams.user {
            let mut items = live::positions(network_time, &reports);
            items.extend(whereabouts);
            let result = user.send_items(&items).await;
            if result.is_ok() {
                crate::counters::positions_sent(reports.len());
            }
            self.stream_result(user, result);
        }
    }

    /// The reference tags' accuracy since the start.
    pub(crate) fn accuracy(&self) -> Vec<TagAccuracy> {
        lock(&self.locator).accuracy()
    }

    /// Makes every positioned anchor range its peers and judges them.
    pub(crate) async fn survey(&self) -> Result<SurveyReport, EngineError> {
        self.require_link()?;
        let mut anchors: Vec<(SerialNumber, [f64; 3])> = lock(&self.locator)
            .anchors()
            .iter()
            .map(|(serial, point)| (*serial, *point))
            .collect();
        anchors.sort_by_key(|(serial, _)| *serial);
        let mut ranges = Vec::new();
        for (anchor, _) in &anchors {
            let reply = exchange(
                &self.driver,
                &self.configuration,
                Message::Survey {
                    anchor: *anchor,
                    rounds: SURVEY_ROUNDS,
                },
                "survey",
                self.timing.push_timeout,
            )
            .await;
            match reply {
                Ok(Message::SurveyRanges { peers, .. }) => {
                    ranges.extend(peers.iter().map(|peer| MeasuredRange {
                        from: *anchor,
                        to: peer.peer,
                        range_mm: f64::from(peer.range_mm),
                    }));
                }
                // An anchor that cannot range (silent, refused) is judged
                // from what its peers measured of it.
                Ok(_) | Err(EngineError::NetworkTimeout { .. }) => {}
                Err(error) => return Err(error),
            }
        }
        let report = SurveyReport::judge(wall_clock_ms(), &anchors, &ranges);
        *lock(&self.badly_surveyed) = report.bad_anchors().collect();
        for anchor in &report.anchors {
            if anchor.verdict == Verdict::Bad {
                self.journal.notify(
                    Level::Warning,
                    format!(
                        "anchor {} is {:.0} mm from its configured position (survey)",
                        anchor.serial_number, anchor.residual_mm
                    ),
                    Some(anchor.serial_number),
                );
            }
        }
        Ok(report)
    }
}
