//! The event pump: what the engine reports, kept in the store. Notifications
//! raised by a network become the configuration's notifications, with an
//! identifier and a read flag.

use std::sync::Arc;

use netcfg_engine::EngineEvent;
use netcfg_store::Store;
use tokio::sync::broadcast::{Receiver, error::RecvError};

/// Stores every notification of `events` until the feed closes. Run it on
/// the engine's runtime.
pub async fn pump_notifications(store: Arc<Store>, mut events: Receiver<EngineEvent>) {
    loop {
        match events.recv().await {
            Ok(EngineEvent::Notification(notification)) => {
                let store = store.clone();
                let written = tokio::task::spawn_blocking(move || {
                    store.net(&notification.configuration).and_then(|net| {
                        net.add_notification(
                            notification.level,
                            notification.message,
                            notification.serial_number,
                            notification.timestamp_ms,
                        )
                    })
                })
                .await;
                match written {
                    Ok(Ok(_)) => {}
                    // The configuration may have been deleted since.
                    Ok(Err(error)) => log::warn!("a notification could not be stored: {error}"),
                    Err(error) => log::error!("the notification writer failed: {error}"),
                }
            }
            Ok(EngineEvent::LogLine { .. }) => {}
            Err(RecvError::Lagged(missed)) => {
                log::warn!("{missed} engine events went by before they could be stored")
            }
            Err(RecvError::Closed) => break,
        }
    }
}
