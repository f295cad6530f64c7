//! Live events: the hub that fans events out to the clients of
//! `GET /events` and `GET /nets/{net_name}/events`, and the relay that feeds
//! it from the service's site events. Notifications reach it once the
//! service's pump has stored them (through the state's observer).
//!
//! The engine sends each event once, to one receiver (the relay), whoever
//! listens: its cost does not grow with subscribers. Everything per client
//! lives in the hub's bounded queues and in the client's own stream.

pub mod data;
mod hub;
mod stream;

use std::sync::Arc;

use netcfg_service::SiteEvent;
use tokio::{
    sync::broadcast::{Receiver, error::RecvError},
    time::MissedTickBehavior,
};

pub(crate) use hub::NotificationRecord;
pub use hub::{EventHub, FRAME_PERIOD, FRAMES_PER_SECOND, MAX_PENDING_FRAMES, MAX_QUEUED};
pub(crate) use stream::{EventStream, Scope};
pub use stream::{KEEP_ALIVE_PERIOD, PIECE, WRITE_BUFFER_FLUSH};

/// Passes the site's live events to `hub` and cuts position frames, until
/// the feed closes. Run it on the engine's runtime.
pub async fn relay_live(hub: Arc<EventHub>, mut feed: Receiver<SiteEvent>) {
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

fn relay(hub: &EventHub, event: SiteEvent) {
    match event {
        SiteEvent::Positions { net, positions, .. } => hub.positions(&net, &positions),
        SiteEvent::Device { net, event } => hub.device(&event, &net),
        SiteEvent::Zones { net, events } => {
            for event in events.iter() {
                hub.zone(event, &net);
            }
        }
        SiteEvent::State { net, change } => hub.state(&net, change, None),
        SiteEvent::Missed(_) => hub.resync_all(),
    }
}
