//! The one live-event vocabulary: what happens on the running networks,
//! in the payload types of `netcfg_model::event` that every consumer
//! publishes (the HTTP API's event streams, the outputs, and whatever
//! front door comes next).
//!
//! The engine's [`LiveEvent`] is matched here and nowhere else: the site
//! relay ([`Service::start_background_work`]) turns each into a [`SiteEvent`] once, hands
//! it to the outputs, and broadcasts it to [`Service::site_events`]'
//! receivers. A consumer never sees the engine's types, so a new field
//! of a position (a velocity, say) is added in one place.

use std::sync::Arc;

use netcfg_engine::{DeviceChange, LiveEvent, NetworkChange};
use netcfg_model::{
    ConfigName,
    event::{DeviceEvent, DeviceHappening, PositionEntry, StateChange, ZoneEvent, ZoneHappening},
    geofence::CrossingKind,
};
use tokio::sync::broadcast;

use crate::{Lifecycle, Service};

/// How many site events a slow receiver may fall behind before it skips
/// (and is told so by `Lagged`): the engine's own feed holds as many.
pub(crate) const SITE_FEED_CAPACITY: usize = 1_024;

/// One thing that happened on a running network.
#[derive(Debug, Clone)]
pub enum SiteEvent {
    /// Positions the network solved, one batch as it reported them.
    Positions {
        /// The configuration.
        net: ConfigName,
        /// When the batch arrived, in milliseconds since the Unix epoch.
        time_ms: u64,
        /// Each tag's position, with the network time that solved it.
        positions: Arc<[PositionEntry]>,
    },
    /// Tags entered or left zones: the crossings one batch of positions
    /// (or one change of the zones) decided, in order.
    Zones {
        /// The configuration.
        net: ConfigName,
        /// The crossings.
        events: Arc<[Arc<ZoneEvent>]>,
    },
    /// A configured device joined, was lost or reported health.
    Device {
        /// The configuration.
        net: ConfigName,
        /// What happened.
        event: Arc<DeviceEvent>,
    },
    /// The network started or stopped, or its link went down.
    State {
        /// The configuration.
        net: ConfigName,
        /// What happened.
        change: StateChange,
    },
    /// This many of the engine's events went by before the site relay
    /// could take them: a consumer that keeps state should read it anew.
    Missed(u64),
}

impl SiteEvent {
    /// The engine's event in the site's vocabulary, stamped `time_ms`
    /// (now, ms since the Unix epoch); `None` for an empty batch of
    /// crossings.
    pub(crate) fn from_engine(event: LiveEvent, time_ms: u64) -> Option<Self> {
        Some(match event {
            LiveEvent::Positions {
                configuration,
                network_time,
                positions,
            } => Self::Positions {
                net: configuration,
                time_ms,
                positions: positions
                    .iter()
                    .map(|(serial_number, position)| PositionEntry {
                        serial_number: *serial_number,
                        x: position.x,
                        y: position.y,
                        z: position.z,
                        quality: position.quality,
                        error_mm: position.error_mm,
                        network_time,
                        vx: position.vx,
                        vy: position.vy,
                    })
                    .collect(),
            },
            LiveEvent::Zones(crossings) => Self::Zones {
                // One batch is one session's: one configuration.
                net: crossings.first()?.configuration.clone(),
                events: crossings.iter().map(|c| Arc::new(zone_event(c))).collect(),
            },
            LiveEvent::Device {
                configuration,
                serial_number,
                change,
                connectivity,
                synchronisation,
                status,
            } => Self::Device {
                event: Arc::new(DeviceEvent {
                    net: configuration.to_string(),
                    serial_number,
                    event: match change {
                        DeviceChange::Joined => DeviceHappening::Joined,
                        DeviceChange::Lost => DeviceHappening::Lost,
                        DeviceChange::Health => DeviceHappening::Health,
                    },
                    connectivity,
                    synchronisation,
                    status,
                }),
                net: configuration,
            },
            LiveEvent::Network {
                configuration,
                change,
            } => Self::State {
                net: configuration,
                change: match change {
                    NetworkChange::Started => StateChange::Started,
                    NetworkChange::Stopped => StateChange::Stopped,
                    NetworkChange::LinkDown => StateChange::LinkDown,
                },
            },
        })
    }
}

fn zone_event(crossing: &netcfg_engine::ZoneEvent) -> ZoneEvent {
    let [x, y, z] = crossing.position;
    ZoneEvent {
        net: crossing.configuration.to_string(),
        zone: crossing.zone.to_string(),
        serial_number: crossing.serial_number,
        event: match crossing.kind {
            CrossingKind::Enter => ZoneHappening::Enter,
            CrossingKind::Exit => ZoneHappening::Exit,
        },
        x,
        y,
        z,
        network_time: crossing.network_time,
        time_ms: crossing.time_ms,
    }
}

impl Lifecycle<'_> {
    /// The state event's change for this step, and the new name of a
    /// rename.
    pub fn state_change(&self) -> (StateChange, Option<&ConfigName>) {
        match self {
            Self::Created => (StateChange::Created, None),
            Self::Deleted => (StateChange::Deleted, None),
            Self::Renamed(to) => (StateChange::Renamed, Some(to)),
        }
    }
}

/// The broadcast of site events.
pub(crate) struct SiteFeed {
    sender: broadcast::Sender<SiteEvent>,
}

impl Default for SiteFeed {
    fn default() -> Self {
        Self {
            sender: broadcast::channel(SITE_FEED_CAPACITY).0,
        }
    }
}

impl SiteFeed {
    /// Passes `event` to every receiver (none may listen).
    pub(crate) fn send(&self, event: SiteEvent) {
        let _nobody_listens = self.sender.send(event);
    }
}

impl Service {
    /// The live events of every running configuration in the site's
    /// vocabulary, from the moment of the call (once [`Service::start_background_work`]
    /// has run). A receiver that falls more than a thousand events behind
    /// loses the oldest and is told how many (`Lagged`).
    pub fn site_events(&self) -> broadcast::Receiver<SiteEvent> {
        self.inner.site_feed.sender.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use netcfg_model::{Position, SerialNumber};

    use super::*;

    fn site() -> ConfigName {
        "site".parse().unwrap()
    }

    #[test]
    fn positions_carry_their_network_time_and_the_arrival_time() {
        let position = Position {
            x: 1,
            y: -2,
            z: 3,
            quality: 9_000,
            anchors_used: 4,
            error_mm: 55,
            vx: None,
            vy: None,
        };
        let event = LiveEvent::Positions {
            configuration: site(),
            network_time: 975_000,
            positions: vec![(SerialNumber::from_u32(7), position)].into(),
        };
        let Some(SiteEvent::Positions {
            net,
            time_ms,
            positions,
        }) = SiteEvent::from_engine(event, 42)
        else {
            panic!("positions stay positions");
        };
        assert_eq!((net, time_ms), (site(), 42));
        assert_eq!(
            positions[..],
            [PositionEntry {
                serial_number: SerialNumber::from_u32(7),
                x: 1,
                y: -2,
                z: 3,
                quality: 9_000,
                error_mm: 55,
                network_time: 975_000,
                vx: None,
                vy: None,
            }]
        );
    }

    #[test]
    fn network_changes_become_states_and_an_empty_batch_of_crossings_nothing() {
        for (change, state) in [
            (NetworkChange::Started, StateChange::Started),
            (NetworkChange::Stopped, StateChange::Stopped),
            (NetworkChange::LinkDown, StateChange::LinkDown),
        ] {
            let event = LiveEvent::Network {
                configuration: site(),
                change,
            };
            assert!(matches!(
                SiteEvent::from_engine(event, 0),
                Some(SiteEvent::State { change, .. }) if change == state
            ));
        }
        assert!(SiteEvent::from_engine(LiveEvent::Zones(Vec::new().into()), 0).is_none());
    }

    #[test]
    fn crossings_keep_their_order_and_what_decided_them() {
        let crossing = |zone: &str, kind| netcfg_engine::ZoneEvent {
            configuration: site(),
            zone: zone.parse().unwrap(),
            zone_id: 1,
            serial_number: SerialNumber::from_u32(3),
            kind,
            position: [10, 20, 30],
            network_time: 5,
            time_ms: 6,
        };
        let batch = vec![
            crossing("desk", CrossingKind::Exit),
            crossing("door", CrossingKind::Enter),
        ];
        let Some(SiteEvent::Zones { net, events }) =
            SiteEvent::from_engine(LiveEvent::Zones(batch.into()), 0)
        else {
            panic!("crossings stay crossings");
        };
        assert_eq!(net, site());
        let seen: Vec<_> = events.iter().map(|e| (e.zone.as_str(), e.event)).collect();
        assert_eq!(
            seen,
            [
                ("desk", ZoneHappening::Exit),
                ("door", ZoneHappening::Enter)
            ]
        );
        assert_eq!((events[0].x, events[0].z, events[0].time_ms), (10, 30, 6));
    }
}
