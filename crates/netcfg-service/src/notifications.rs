//! Notifications raised by a configuration's network: stored by the pump
//! with an identifier and a read flag, read, marked read, and replayed to a
//! client that resumes a live stream.
//!
//! A start raises a notification per device within moments; the pump takes
//! every notification already waiting and stores each configuration's share
//! in one commit, so it keeps up with the feed instead of falling behind it
//! one sync at a time (a feed that laps the pump loses events). Once
//! stored, each notification goes to the observers with its identifier: a
//! client that resumes from the store and then listens sees each one once.

use netcfg_engine::{EngineEvent, EngineNotification};
use netcfg_model::{ConfigName, Notification};
use netcfg_store::{NewNotification, Store, StoreError};
use tokio::sync::broadcast::{
    Receiver,
    error::{RecvError, TryRecvError},
};

use crate::{Service, ServiceError, Write};

/// The most notifications stored in one commit.
const MAX_BATCH: usize = 4_096;

/// Where a client of a live stream resumes: the last notification it saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resume {
    /// The configuration of that notification.
    pub net: ConfigName,
    /// Its identifier.
    pub identifier: u64,
}

impl Service {
    /// One notification.
    pub async fn notification(
        &self,
        name: &ConfigName,
        identifier: u64,
    ) -> Result<Notification, ServiceError> {
        self.read(name, move |net| net.notification(identifier))
            .await
    }

    /// Every notification kept.
    pub async fn notifications(
        &self,
        name: &ConfigName,
    ) -> Result<Vec<Notification>, ServiceError> {
        self.read(name, |net| net.notifications()).await
    }

    /// How many are unread.
    pub async fn unread_notifications(&self, name: &ConfigName) -> Result<u64, ServiceError> {
        self.read(name, |net| net.unread_notifications()).await
    }

    /// Marks one notification read or unread.
    pub async fn set_notification_read(
        &self,
        name: &ConfigName,
        identifier: u64,
        read: bool,
        write: Write,
    ) -> Result<Notification, ServiceError> {
        self.change(name, write, move |net| {
            net.set_notification_read(identifier, read)
        })
        .await
    }

    /// Marks every notification read or unread: all of them, after.
    pub async fn set_all_notifications_read(
        &self,
        name: &ConfigName,
        read: bool,
        write: Write,
    ) -> Result<Vec<Notification>, ServiceError> {
        self.change(name, write, move |net| {
            net.set_all_notifications_read(read)?;
            net.notifications()
        })
        .await
    }

    /// What a client that saw up to `resume` missed: on one configuration's
    /// stream (`all` false), its notifications after that one; on every
    /// configuration's, those and every other configuration's raised since
    /// that one was (or all kept, if it is gone), so that none is missed.
    pub async fn missed_notifications(
        &self,
        resume: Resume,
        all: bool,
    ) -> Result<Vec<(ConfigName, Vec<Notification>)>, ServiceError> {
        self.blocking(move |store| missed(store, all, &resume))
            .await
    }

    /// Stores every notification of `events` until the feed closes, and
    /// tells each stored one to the observers. Run it on the engine's
    /// runtime.
    pub(crate) async fn pump_notifications(self, mut events: Receiver<EngineEvent>) {
        loop {
            let first = match events.recv().await {
                Ok(event) => event,
                Err(RecvError::Lagged(missed)) => {
                    log::warn!("{missed} engine events went by before they could be stored");
                    continue;
                }
                Err(RecvError::Closed) => break,
            };
            let mut batch: Vec<EngineNotification> = Vec::new();
            let mut next = Some(first);
            while let Some(event) = next.take() {
                if let EngineEvent::Notification(notification) = event {
                    batch.push(notification);
                }
                if batch.len() >= MAX_BATCH {
                    break;
                }
                next = match events.try_recv() {
                    Ok(event) => Some(event),
                    Err(TryRecvError::Lagged(missed)) => {
                        log::warn!("{missed} engine events went by before they could be stored");
                        events.try_recv().ok()
                    }
                    Err(TryRecvError::Empty | TryRecvError::Closed) => None,
                };
            }
            if !batch.is_empty() {
                self.store_batch(batch).await;
            }
        }
    }

    /// Stores `batch`, each configuration's notifications in one commit, in the
    /// order they were raised.
    pub(crate) async fn store_batch(&self, batch: Vec<EngineNotification>) {
        let mut by_configuration: Vec<(ConfigName, Vec<NewNotification>)> = Vec::new();
        for notification in batch {
            let new = NewNotification {
                level: notification.level,
                message: notification.message,
                serial_number: notification.serial_number,
                timestamp_ms: notification.timestamp_ms,
            };
            match by_configuration
                .iter_mut()
                .find(|(name, _)| *name == notification.configuration)
            {
                Some((_, group)) => group.push(new),
                None => by_configuration.push((notification.configuration, vec![new])),
            }
        }
        let store = self.store().clone();
        let service = self.clone();
        let written = tokio::task::spawn_blocking(move || {
            for (name, group) in by_configuration {
                let count = group.len();
                let unstored = group.clone();
                match store
                    .net(&name)
                    .and_then(|net| net.add_notifications(group))
                {
                    Ok(identifiers) => {
                        let stored: Vec<Notification> = unstored
                            .into_iter()
                            .zip(identifiers)
                            .map(|(new, identifier)| Notification {
                                identifier,
                                level: new.level,
                                message: new.message,
                                serial_number: new.serial_number,
                                timestamp_ms: new.timestamp_ms,
                                read: false,
                            })
                            .collect();
                        for observer in service.observers() {
                            observer.notifications(&name, &stored);
                        }
                        // Only to a configuration whose outputs take them:
                        // most have none.
                        let carried = service
                            .inner
                            .outputs
                            .carries(&name, netcfg_model::OutputEventKind::Notification);
                        for notification in stored.into_iter().filter(|_| carried) {
                            service.inner.stored_notifications.pass(&name, notification);
                        }
                    }
                    // The configuration may have been deleted since.
                    Err(error) => {
                        log::warn!("{count} notifications of {name} could not be stored: {error}");
                    }
                }
            }
        })
        .await;
        if let Err(error) = written {
            log::error!("the notification writer failed: {error}");
        }
    }
}

fn missed(
    store: &Store,
    all: bool,
    resume: &Resume,
) -> Result<Vec<(ConfigName, Vec<Notification>)>, StoreError> {
    let named = store.net(&resume.net);
    if !all {
        return Ok(vec![(
            resume.net.clone(),
            named?.notifications_after(resume.identifier)?,
        )]);
    }
    let mut missed = Vec::new();
    let mut since = 0;
    if let Ok(net) = named {
        since = net
            .notification(resume.identifier)
            .map_or(0, |notification| notification.timestamp_ms);
        missed.push((
            resume.net.clone(),
            net.notifications_after(resume.identifier)?,
        ));
    }
    for name in store.names()? {
        if name == resume.net {
            continue;
        }
        // A configuration deleted meanwhile has nothing to replay.
        if let Ok(notifications) = store
            .net(&name)
            .and_then(|net| net.notifications_since(since))
        {
            missed.push((name, notifications));
        }
    }
    Ok(missed)
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use netcfg_engine::MockEngine;
    use netcfg_model::{Instance, Level, SerialNumber};
    use tokio::sync::broadcast;

    use super::*;
    use crate::{Lifecycle, Observer, Services};

    fn notification(configuration: &ConfigName, number: u32) -> EngineEvent {
        EngineEvent::Notification(EngineNotification {
            configuration: configuration.clone(),
            level: Level::Warning,
            message: format!("device {number} joined"),
            serial_number: Some(SerialNumber::from_u32(number)),
            timestamp_ms: *NOW_MS + u64::from(number),
        })
    }

    /// The test's own time: notifications of 1970 would be pruned by age.
    static NOW_MS: std::sync::LazyLock<u64> =
        std::sync::LazyLock::new(netcfg_model::time::clock::wall_clock_ms);

    /// Hears what was stored, as a live stream would.
    #[derive(Default)]
    struct Heard(Mutex<Vec<(ConfigName, u64)>>);

    impl Observer for Heard {
        fn lifecycle(&self, _: &ConfigName, _: Lifecycle<'_>) {}
        fn forget(&self, _: &ConfigName) {}
        fn notifications(&self, name: &ConfigName, stored: &[Notification]) {
            let mut heard = self.0.lock().unwrap();
            heard.extend(
                stored
                    .iter()
                    .map(|notification| (name.clone(), notification.identifier)),
            );
        }
    }

    /// A burst larger than a batch, over two configurations and mixed with
    /// log lines, is stored whole and in order and told to the observers
    /// with its identifiers; a deleted configuration's share is dropped
    /// without stopping the pump.
    #[tokio::test]
    async fn a_burst_is_stored_whole_and_in_order() {
        let directory = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(directory.path()).unwrap());
        let names: Vec<ConfigName> = ["east", "west"]
            .iter()
            .map(|name| name.parse().unwrap())
            .collect();
        for name in &names {
            store.create(name, Instance::ServerDefault).unwrap();
        }
        let gone: ConfigName = "gone".parse().unwrap();

        let (feed, events) = broadcast::channel(16_384);
        let burst = u32::try_from(MAX_BATCH).unwrap() + 500;
        for number in 0..burst {
            feed.send(notification(&names[(number % 2) as usize], number))
                .unwrap();
            feed.send(EngineEvent::LogLine {
                configuration: names[0].clone(),
                line: "a line".to_owned(),
            })
            .unwrap();
        }
        feed.send(notification(&gone, 0)).unwrap();
        drop(feed);
        let service = Service::new(Services {
            store: store.clone(),
            engine: Arc::new(MockEngine::new()),
            command_timeout: crate::DEFAULT_COMMAND_TIMEOUT,
        });
        let heard = Arc::new(Heard::default());
        service.observe(heard.clone());
        service.pump_notifications(events).await;

        let heard = heard.0.lock().unwrap();
        for (index, name) in (0..).zip(&names) {
            let stored: Vec<u64> = store
                .net(name)
                .unwrap()
                .notifications()
                .unwrap()
                .iter()
                .map(|notification| notification.timestamp_ms - *NOW_MS)
                .collect();
            let raised: Vec<u64> = (0..u64::from(burst)).filter(|n| n % 2 == index).collect();
            assert_eq!(stored, raised, "{name}");
            let told: Vec<u64> = heard
                .iter()
                .filter(|(heard_name, _)| heard_name == name)
                .map(|(_, identifier)| *identifier)
                .collect();
            let expected: Vec<u64> = (1..=raised.len() as u64).collect();
            assert_eq!(told, expected, "{name}");
        }
        assert!(heard.iter().all(|(name, _)| *name != gone));
    }
}
