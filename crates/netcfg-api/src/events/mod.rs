//! Live events: the hub that fans events out to the clients of
//! `GET /events` and `GET /nets/{net_name}/events`, and the relay that feeds
//! it from the engine. Notifications reach it once the service's pump has
//! stored them (`netcfg_service::Service::pump_notifications`, through the
//! state's observer).
//!
//! The engine sends each event once, to one receiver (the relay), whoever
//! listens: its cost does not grow with subscribers. Everything per client
//! lives in the hub's bounded queues and in the client's own stream.

pub mod data;
mod hub;
mod stream;

use std::sync::Arc;

use netcfg_model::geofence::CrossingKind;
use netcfg_service::{DeviceChange, LiveEvent, NetworkChange};
use tokio::{
    sync::broadcast::{Receiver, error::RecvError},
    time::MissedTickBehavior,
};

pub(crate) use hub::NotificationRecord;
pub use hub::{EventHub, FRAME_PERIOD, FRAMES_PER_SECOND, MAX_PENDING_FRAMES, MAX_QUEUED};
pub use stream::KEEP_ALIVE_PERIOD;
pub(crate) use stream::{EventStream, Scope};

use data::{DeviceEvent, DeviceHappening, StateChange, ZoneEvent, ZoneHappening};

/// Passes the engine's live feed to `hub` and cuts position frames, until
/// the feed closes. Run it on the engine's runtime.
pub async fn relay_live(hub: Arc<EventHub>, mut feed: Receiver<LiveEvent>) {
    let mut frames = tokio::time::interval(FRAME_PERIOD);
    frames.set_missed_tick_behavior(MissedTickBehavior::Skip);
    loop {
        tokio::select! {
            _ = frames.tick() => hub.cut_frames(),
            received = feed.recv() => match received {
                Ok(event) => relay(&hub, event),
                Err(RecvError::Lagged(missed)) => {
                    log::warn!("{missed} live events went by before they could be passed on");
                    hub.resync_all();
                }
                Err(RecvError::Closed) => break,
            },
        }
    }
}

fn relay(hub: &EventHub, event: LiveEvent) {
    match event {
        LiveEvent::Positions {
            configuration,
            network_time,
            positions,
        } => hub.positions(&configuration, network_time, &positions),
        LiveEvent::Device {
            configuration,
            serial_number,
            change,
            connectivity,
            synchronisation,
            status,
        } => hub.device(
            &DeviceEvent {
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
            },
            &configuration,
        ),
        LiveEvent::Zones(events) => {
            for event in events.iter() {
                let [x, y, z] = event.position;
                hub.zone(
                    &ZoneEvent {
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
                    },
                    &event.configuration,
                );
            }
        }
        LiveEvent::Network {
            configuration,
            change,
        } => {
            let state = match change {
                NetworkChange::Started => StateChange::Started,
                NetworkChange::Stopped => StateChange::Stopped,
                NetworkChange::LinkDown => StateChange::LinkDown,
            };
            hub.state(&configuration, state, None);
        }
    }
}
