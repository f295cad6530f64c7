//! Whether the link lives: heartbeat pings, and the link declared down
//! (to the journal and the live feed) when they go unanswered or the driver
//! says so.

use std::sync::Arc;

use netcfg_model::Level;
use tokio::time::MissedTickBehavior;

use netcfg_model::time::clock::wall_clock_ms;

use super::Session;
use crate::{
    api::{LiveEvent, NetworkChange},
    driver::DriverError,
    error::EngineError,
    protocol::Message,
};

impl Session {
    /// Pings the network interface device; declares the link down when
    /// several pings in a row go unanswered.
    pub(super) async fn heartbeat(self: Arc<Self>) {
        let mut ticker = tokio::time::interval(self.timing.heartbeat_interval);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Delay);
        ticker.tick().await;
        let mut missed = 0u32;
        loop {
            ticker.tick().await;
            let token = (wall_clock_ms() & 0xFFFF_FFFF) as u32;
            match self
                .driver
                .request(Message::Ping { token }, self.timing.heartbeat_interval)
                .await
            {
                Ok(_) => missed = 0,
                Err(DriverError::Timeout(_)) => {
                    missed += 1;
                    if missed >= self.timing.missed_heartbeats {
                        let reason = format!("{missed} pings in a row went unanswered");
                        if self.driver.declare_down(reason.clone()) {
                            self.link_dropped(&reason);
                        }
                        return;
                    }
                }
                Err(_) => return,
            }
        }
    }

    /// Says the link dropped, and why, then treats the network as down.
    pub(super) fn link_dropped(&self, reason: &str) {
        self.journal.notify(
            Level::Error,
            format!(
                "link to the network interface device on {} dropped: {reason}",
                self.instance
            ),
            None,
        );
        self.link_went_down();
    }

    fn link_went_down(&self) {
        // No receiver is not an error: nobody listens.
        let _ = self.live.send(LiveEvent::Network {
            configuration: self.configuration.clone(),
            change: NetworkChange::LinkDown,
        });
    }

    pub(super) fn require_link(&self) -> Result<(), EngineError> {
        match self.driver.down_reason() {
            None => Ok(()),
            Some(reason) => Err(EngineError::LinkDown {
                configuration: self.configuration.clone(),
                reason,
            }),
        }
    }
}
