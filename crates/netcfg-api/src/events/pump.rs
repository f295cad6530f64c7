//! The event pump: what the engine reports, kept in the store. Notifications
//! raised by a network become the configuration's notifications, with an
//! identifier and a read flag.
//!
//! A start raises a notification per device within moments; the pump takes
//! every notification already waiting and stores each configuration's share
//! in one commit, so it keeps up with the feed instead of falling behind it
//! one sync at a time (a feed that laps the pump loses events).
//!
//! Once stored, each notification goes to the event hub with its
//! identifier: a client that resumes from the store and then listens sees
//! each one once.

use std::sync::Arc;

use netcfg_engine::{EngineEvent, EngineNotification};
use netcfg_model::{ConfigName, Notification};
use netcfg_store::{NewNotification, Store};

use super::hub::EventHub;
use tokio::sync::broadcast::{
    Receiver,
    error::{RecvError, TryRecvError},
};

/// The most notifications stored in one commit.
const MAX_BATCH: usize = 4_096;

/// Stores every notification of `events` until the feed closes, and
/// publishes each stored one on `hub`. Run it on the engine's runtime.
pub async fn pump_notifications(
    store: Arc<Store>,
    hub: Arc<EventHub>,
    mut events: Receiver<EngineEvent>,
) {
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
            store_batch(&store, &hub, batch).await;
        }
    }
}

/// Stores `batch`, each configuration's notifications in one commit, in the
/// order they were raised.
async fn store_batch(store: &Arc<Store>, hub: &Arc<EventHub>, batch: Vec<EngineNotification>) {
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
    let store = store.clone();
    let hub = hub.clone();
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
                    hub.notifications(&name, &stored);
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

#[cfg(test)]
mod tests {
    use netcfg_model::{Instance, Level, SerialNumber};
    use tokio::sync::broadcast;

    use super::*;
    use crate::events::{data::EventKinds, hub::Queued};

    fn notification(configuration: &ConfigName, number: u32) -> EngineEvent {
        EngineEvent::Notification(EngineNotification {
            configuration: configuration.clone(),
            level: Level::Warning,
            message: format!("device {number} joined"),
            serial_number: Some(SerialNumber::from_u32(number)),
            timestamp_ms: u64::from(number),
        })
    }

    /// A burst larger than a batch, over two configurations and mixed with
    /// log lines, is stored whole and in order; a deleted configuration's
    /// share is dropped without stopping the pump.
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
        let hub = Arc::new(EventHub::new());
        let listener = hub.subscribe(Some(names[0].clone()), EventKinds::all());
        pump_notifications(store.clone(), hub.clone(), events).await;

        // Published once stored, with identifiers, in order; more than a
        // queue holds, so the listener is told to resync.
        let (resync, queued, _) = listener.subscriber.take();
        assert!(resync);
        let identifiers: Vec<u64> = queued
            .iter()
            .map(|queued| match queued {
                Queued::Notification(record) => record.identifier,
                Queued::Event(bytes) => panic!("not a notification: {bytes:?}"),
            })
            .collect();
        let east_count = u64::from(burst).div_ceil(2);
        let expected: Vec<u64> = (east_count - identifiers.len() as u64 + 1..=east_count).collect();
        assert_eq!(identifiers, expected);

        for (index, name) in (0..).zip(&names) {
            let stored: Vec<u64> = store
                .net(name)
                .unwrap()
                .notifications()
                .unwrap()
                .iter()
                .map(|notification| notification.timestamp_ms)
                .collect();
            let raised: Vec<u64> = (0..u64::from(burst)).filter(|n| n % 2 == index).collect();
            assert_eq!(stored, raised, "{name}");
        }
    }
}
