//! The live side of the running networks: the service's background work
//! ([`Service::start_background_work`]), the site relay that turns the engine's live feed
//! into [`SiteEvent`]s for every consumer, and the engine's counters. A
//! front door never reaches the engine itself.

use std::sync::atomic::Ordering;

pub use netcfg_engine::EngineCounters;
use tokio::{runtime::Handle, sync::broadcast::error::RecvError};

use crate::{Service, SiteEvent};

pub(crate) use netcfg_model::time::clock::wall_clock_ms;

impl Service {
    /// Starts, on `runtime`, the work the service does on its own while
    /// the process lives: the notification pump (which stores what the
    /// networks report, then tells the observers), the alert rules' watch
    /// and the scheduler (whose notifications go the same way), and the
    /// site relay (the engine's live feed turned into [`SiteEvent`]s for
    /// [`Service::site_events`] and the outputs). Run it once, on the
    /// engine's runtime; a second call does nothing.
    pub fn start_background_work(&self, runtime: &Handle) {
        if self.inner.started.swap(true, Ordering::AcqRel) {
            log::error!("the service's background work was started twice; the second is ignored");
            return;
        }
        runtime.spawn(self.clone().pump_engine_notifications());
        runtime.spawn(self.clone().watch_alerts());
        runtime.spawn(self.clone().run_schedules());
        runtime.spawn(self.clone().relay_site());
        runtime.spawn(self.clone().keep_people());
    }

    /// Turns each of the engine's live events into a [`SiteEvent`] once,
    /// broadcasts it, then hands it to the outputs, until the feed closes.
    ///
    /// Stored notifications reach the outputs through this task too, not
    /// straight from the pump, so that they take their turn behind the
    /// start that precedes them: the outputs of a configuration run before
    /// its first notification is handed to them.
    async fn relay_site(self) {
        let mut feed = self.engine().live();
        let Some(mut notifications) = self.inner.stored_notifications.take_receiver() else {
            log::error!("the site relay runs once per service");
            return;
        };
        loop {
            tokio::select! {
                // The live feed first: a start waiting there comes before
                // the notifications it led to.
                biased;
                received = feed.recv() => {
                    let event = match received {
                        Ok(event) => SiteEvent::from_engine(event, wall_clock_ms()),
                        Err(RecvError::Lagged(missed)) => {
                            log::warn!("{missed} live events went by before the site relay could take them");
                            Some(SiteEvent::Missed(missed))
                        }
                        Err(RecvError::Closed) => break,
                    };
                    if let Some(event) = event {
                        self.inner.latest_positions.take(&event);
                        self.inner.site_feed.send(event.clone());
                        self.to_outputs(event).await;
                    }
                },
                Some((name, notification)) = notifications.recv() => {
                    self.notification_to_outputs(&name, notification);
                }
            }
        }
    }

    /// How many configurations run now.
    pub fn running_count(&self) -> usize {
        self.engine().running().len()
    }

    /// The engine's counters (positions received and sent, datagrams sent
    /// and dropped) since the process started.
    pub fn engine_counters(&self) -> EngineCounters {
        netcfg_engine::counters()
    }

    /// Stores every notification the engine raises, until its feed closes,
    /// each configuration's share of a burst in one commit, then tells each
    /// stored one to the observers with its identifier.
    async fn pump_engine_notifications(self) {
        let feed = self.engine().subscribe();
        self.pump_notifications(feed).await;
    }
}
