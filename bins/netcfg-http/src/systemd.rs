//! systemd's service protocol (the unit's `Type=notify`, through the
//! sd-notify crate): `READY=1` once the server listens, `STOPPING=1` when
//! it begins to stop, and, when the unit sets `WatchdogSec=`, a watchdog
//! ping every half period for as long as both runtimes answer. A server
//! whose engine runtime hangs stops pinging, and systemd restarts it.
//! Outside systemd (no `NOTIFY_SOCKET`) every call does nothing.

use sd_notify::NotifyState;

/// Tells systemd the server is ready: it listens and serves.
pub(crate) fn ready() {
    send(&[NotifyState::Ready]);
}

/// Tells systemd the server is stopping (draining, then stopping networks).
pub(crate) fn stopping() {
    send(&[NotifyState::Stopping]);
}

fn send(states: &[NotifyState<'_>]) {
    if let Err(error) = sd_notify::notify(states) {
        log::warn!("cannot notify systemd: {error}");
    }
}

/// Pings the watchdog every half period, each time after the engine's
/// runtime has run a task, when systemd asked for a watchdog; returns at
/// once otherwise. Run it on the HTTP server's runtime, so a hang of either
/// runtime stops the pings.
pub(crate) async fn watchdog(engine: tokio::runtime::Handle) {
    let Some(period) = sd_notify::watchdog_enabled() else {
        return;
    };
    let every = period / 2;
    log::info!("systemd watchdog: a ping every {every:?}");
    loop {
        tokio::time::sleep(every).await;
        // The engine's runtime must run a task within the period too.
        let answered = tokio::time::timeout(every, engine.spawn(async {})).await;
        if matches!(answered, Ok(Ok(()))) {
            send(&[NotifyState::Watchdog]);
        } else {
            log::error!("the engine's runtime did not answer within {every:?}: no watchdog ping");
        }
    }
}
