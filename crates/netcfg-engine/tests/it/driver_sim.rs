//! The engine against the simulator, through a real pseudo-terminal.

use std::{sync::Arc, time::Duration};

use crate::support::*;
use netcfg_engine::{
    DeviceChange, Engine, EngineError, EngineOptions, LiveEvent, NetcfgEngine, NetworkChange,
    NetworkPlan, StartOutcome, StopOutcome,
    sim::{SimFault, SimOptions},
};
use netcfg_model::{
    ActionOutcome, ConfigName, DeviceAction, DeviceActionName, LedColor, LedMode, LedTimeout,
    Level, MagnetometerCalibration, RunState, SerialNumber,
};

fn engine() -> NetcfgEngine {
    NetcfgEngine::new(
        EngineOptions {
            simulator: Some(SimOptions {
                status_period: Duration::from_millis(200),
                lost_after: Duration::from_millis(100),
                ..SimOptions::default()
            }),
            ..EngineOptions::default()
        },
        tokio::runtime::Handle::current(),
    )
}

const TIMEOUT: Duration = Duration::from_secs(2);

/// What a test starts from: its log directory (removed when dropped, so
/// a test keeps it to its end), a fresh engine, and the plan of the small
/// site as configuration `name` on `instance`, with its name.
fn site(name: &str, instance: &str) -> (tempfile::TempDir, NetcfgEngine, NetworkPlan, ConfigName) {
    let logs = tempfile::tempdir().unwrap();
    let plan = site_plan(name, instance, logs.path());
    let name = plan.configuration.clone();
    (logs, engine(), plan, name)
}

/// The calibration is acknowledged by the device (before the hard reset,
/// after which the device reboots and answers nothing for a moment).
async fn assert_the_calibration_is_acknowledged(
    engine: &dyn Engine,
    name: &ConfigName,
    tag: SerialNumber,
) {
    let calibration = MagnetometerCalibration {
        serial_number: tag,
        x_offset: -12,
        y_offset: 40,
        z_offset: 3,
    };
    assert_eq!(
        within(
            "calibration",
            engine.set_magnetometer_calibration(name, calibration.clone(), TIMEOUT)
        )
        .await
        .unwrap(),
        calibration
    );
}

/// Every device action, with the kind of outcome it answers (`None`:
/// done), the hard reset last.
fn every_action() -> [(DeviceAction, Option<&'static str>); 9] {
    [
        (DeviceAction::SoftReset, None),
        (
            DeviceAction::SetLed {
                color: LedColor::Blue,
                mode: LedMode::Flash,
                timeout: LedTimeout::try_from(60).unwrap(),
            },
            None,
        ),
        (DeviceAction::ClearDeviceError, None),
        (DeviceAction::ShipMode, None),
        (DeviceAction::GetPropertyList, Some("list")),
        (
            DeviceAction::SetProperty {
                property_id: 42,
                value: -7,
            },
            Some("set"),
        ),
        (DeviceAction::GetProperty { property_id: 42 }, Some("get")),
        (DeviceAction::GetDeviceAttributes, Some("attributes")),
        (DeviceAction::HardReset, None),
    ]
}

/// Every device action reaches the tag and gets its outcome.
async fn assert_every_action_is_answered(
    engine: &dyn Engine,
    name: &ConfigName,
    tag: SerialNumber,
) {
    let actions = every_action();
    assert_eq!(actions.len(), DeviceActionName::ALL.len());
    for (action, kind) in actions {
        let reply = within(
            "a device action",
            engine.device_command(name, tag, action.clone(), TIMEOUT),
        )
        .await
        .unwrap_or_else(|error| panic!("{action:?}: {error}"));
        assert_eq!(reply.serial_number, tag);
        assert_eq!(reply.action, action.name());
        match (kind, &reply.outcome) {
            (None, ActionOutcome::Done) => {}
            (Some("list"), ActionOutcome::PropertyList { property_ids }) => {
                assert!(!property_ids.is_empty())
            }
            (
                Some("set" | "get"),
                ActionOutcome::Property {
                    property_id: 42,
                    value: -7,
                },
            ) => {}
            (Some("attributes"), ActionOutcome::Attributes { attributes }) => {
                assert_eq!(attributes.sku, "TAG-2000")
            }
            other => panic!("unexpected outcome {other:?}"),
        }
    }
}

/// Several devices at once, one of them unknown.
async fn assert_a_multi_device_command(engine: &dyn Engine, name: &ConfigName) {
    let results = within(
        "a multi-device command",
        engine.multi_device_command(
            name,
            vec![serial("01:04:0002"), serial("01:04:0099")],
            DeviceAction::ClearDeviceError,
            TIMEOUT,
        ),
    )
    .await
    .unwrap();
    assert!(results[0].1.is_ok());
    assert!(matches!(
        results[1].1,
        Err(EngineError::UnknownDevice { .. })
    ));
}

/// The cache filled from the reports; an anchor's entry can be cleared;
/// a running configuration is not forgotten.
async fn assert_the_cache_filled(engine: &dyn Engine, name: &ConfigName) {
    let cached = within("cached positions", async {
        loop {
            let cached = engine.cached_devices(name);
            if cached.iter().any(|device| {
                device.serial_number == serial("01:05:0002") && device.position.is_some()
            }) && cached.iter().any(|device| {
                device.serial_number == serial("01:04:0002") && device.status.is_some()
            }) {
                return cached;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    let anchor = cached
        .iter()
        .find(|device| device.serial_number == serial("01:04:0002"))
        .unwrap();
    assert!(anchor.attributes.is_some());
    assert!(!anchor.firmware_images.is_empty());
    assert!(engine.clear_cached_device(name, serial("01:04:0002")));
    assert!(!engine.clear_cached_device(name, serial("01:04:0077")));
    engine.forget(name);
    assert!(!engine.cached_devices(name).is_empty());
    assert!(!engine.log_messages(name).is_empty());
}

/// Stops (a second stop finds it stopped); the run's log file and log
/// messages tell the start, the join and the stop.
async fn stop_and_read_the_log(engine: &dyn Engine, name: &ConfigName, log_file: &std::path::Path) {
    assert_eq!(
        within("stop", engine.stop(name)).await.unwrap(),
        StopOutcome::Stopped
    );
    assert_eq!(
        within("second stop", engine.stop(name)).await.unwrap(),
        StopOutcome::WasNotRunning
    );
    assert_eq!(engine.status(name).state, RunState::Stopped);
    let log = std::fs::read_to_string(log_file).unwrap();
    assert!(log.contains("network started"), "{log}");
    assert!(log.contains("joined"), "{log}");
    assert!(log.contains("network stopped"), "{log}");
    assert!(
        engine
            .log_messages(name)
            .iter()
            .any(|line| line.contains("network stopped"))
    );
}

/// Commands after the stop say so; the cache and log are kept until the
/// configuration is gone (deleted).
async fn assert_stopped_then_forgotten(engine: &dyn Engine, name: &ConfigName, tag: SerialNumber) {
    let error = within(
        "a command after stop",
        engine.device_command(name, tag, DeviceAction::SoftReset, TIMEOUT),
    )
    .await
    .unwrap_err();
    assert!(matches!(error, EngineError::NotRunning(_)), "{error}");

    assert!(!engine.cached_devices(name).is_empty());
    engine.forget(name);
    assert!(engine.cached_devices(name).is_empty());
    assert!(engine.log_messages(name).is_empty());
    assert!(engine.unconfigured_devices(Some(name.clone())).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_every_device_action_and_stop() {
    let (_logs, engine, plan, name) = site("site", "sim");
    let engine: Arc<dyn Engine> = Arc::new(engine);
    let mut feed = engine.subscribe();

    let StartOutcome::Started { log_file } =
        within("start", engine.start(plan.clone())).await.unwrap()
    else {
        panic!("a stopped configuration must start");
    };
    assert_eq!(
        within("second start", engine.start(plan)).await.unwrap(),
        StartOutcome::AlreadyRunning
    );
    let status = engine.status(&name);
    assert_eq!(status.state, RunState::Running);
    assert!(status.link_up);
    assert_eq!(engine.running(), vec![name.clone()]);
    notification(&mut feed, "a join", |n| {
        n.message.contains("joined") && n.serial_number == Some(serial("01:05:0002"))
    })
    .await;

    let tag = serial("01:05:0001");
    assert_the_calibration_is_acknowledged(engine.as_ref(), &name, tag).await;
    assert_every_action_is_answered(engine.as_ref(), &name, tag).await;
    assert_a_multi_device_command(engine.as_ref(), &name).await;
    assert_the_cache_filled(engine.as_ref(), &name).await;
    stop_and_read_the_log(engine.as_ref(), &name, &log_file).await;
    assert_stopped_then_forgotten(engine.as_ref(), &name, tag).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_and_silent_devices_get_clear_errors() {
    let (_logs, engine, plan, name) = site("faults", "sim");
    let mut feed = engine.subscribe();
    within("start", engine.start(plan)).await.unwrap();

    let stranger = serial("0A:0B:0C0D");
    let error = within(
        "unknown device",
        engine.device_command(&name, stranger, DeviceAction::SoftReset, TIMEOUT),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(error, EngineError::UnknownDevice { serial_number, .. } if serial_number == stranger),
        "{error}"
    );

    let anchor = serial("01:04:0003");
    assert!(
        engine
            .simulator(&name)
            .unwrap()
            .inject(SimFault::Silence(anchor))
    );
    let silent = notification(&mut feed, "the silence notification", |n| {
        n.serial_number == Some(anchor) && n.message.contains("silent")
    })
    .await;
    assert_eq!(silent.level, Level::Warning);
    let waited = Duration::from_millis(300);
    let error = within(
        "silent device",
        engine.device_command(&name, anchor, DeviceAction::GetPropertyList, waited),
    )
    .await
    .unwrap_err();
    match error {
        EngineError::DeviceTimeout {
            serial_number,
            action,
            waited: reported,
        } => {
            assert_eq!(
                (serial_number, action, reported),
                (anchor, DeviceActionName::GetPropertyList, waited)
            );
        }
        other => panic!("expected a timeout, got {other}"),
    }

    // An anchor that loses sync raises a warning; a resync brings it back.
    let other = serial("01:04:0002");
    engine
        .simulator(&name)
        .unwrap()
        .inject(SimFault::LoseSync(other));
    notification(&mut feed, "lost sync", |n| {
        n.serial_number == Some(other) && n.message.contains("lost synchronisation")
    })
    .await;
    within(
        "resync",
        engine.engine_command(netcfg_engine::EngineCommand::Resync(name.clone())),
    )
    .await
    .unwrap();
    notification(&mut feed, "sync again", |n| {
        n.serial_number == Some(other) && n.message.contains("synchronised again")
    })
    .await;

    within("stop", engine.stop(&name)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devices_outside_the_configuration_are_unconfigured() {
    let (_logs, engine, plan, name) = site("strangers", "sim:strangers");
    within("start", engine.start(plan)).await.unwrap();
    let found = within("unconfigured devices", async {
        loop {
            let found = engine.unconfigured_devices(Some(name.clone()));
            if found.len() == 2 {
                return found;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(
        found
            .iter()
            .all(|device| device.heard_by.as_ref() == Some(&name))
    );
    assert_eq!(engine.unconfigured_devices(None).len(), 2);
    within("stop", engine.stop(&name)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_drop_is_notified_and_the_engine_can_start_again() {
    let (_logs, engine, plan, name) = site("drop", "sim");
    let mut feed = engine.subscribe();
    within("start", engine.start(plan.clone())).await.unwrap();

    engine.simulator(&name).unwrap().inject(SimFault::DropLink);
    let dropped = notification(&mut feed, "the link drop", |n| {
        n.message.contains("dropped")
    })
    .await;
    assert_eq!(dropped.level, Level::Error);
    assert!(!engine.status(&name).link_up);
    let soft_reset = || {
        engine.device_command(
            &name,
            serial("01:05:0001"),
            DeviceAction::SoftReset,
            TIMEOUT,
        )
    };
    let error = within("command on a dropped link", soft_reset())
        .await
        .unwrap_err();
    assert!(matches!(error, EngineError::LinkDown { .. }), "{error}");

    assert_eq!(
        within("stop", engine.stop(&name)).await.unwrap(),
        StopOutcome::Stopped
    );
    assert!(matches!(
        within("restart", engine.start(plan)).await.unwrap(),
        StartOutcome::Started { .. }
    ));
    assert!(engine.status(&name).link_up);
    within("a command after the restart", soft_reset())
        .await
        .unwrap();
    within("stop again", engine.stop(&name)).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_serial_port_or_scenario_fails_the_start_cleanly() {
    let logs = tempfile::tempdir().unwrap();
    let engine = engine();
    let plan = site_plan("nowhere", "/dev/netcfg-no-such-port", logs.path());
    let error = within("start", engine.start(plan)).await.unwrap_err();
    assert!(matches!(error, EngineError::SerialPort { .. }), "{error}");
    let plan = site_plan("nowhere", "sim:volcano", logs.path());
    let error = within("start", engine.start(plan)).await.unwrap_err();
    assert!(error.to_string().contains("volcano"), "{error}");
    assert!(engine.running().is_empty());
}

/// Waits for the first live event that `matches`.
async fn live_event(
    feed: &mut tokio::sync::broadcast::Receiver<LiveEvent>,
    what: &str,
    matches: impl Fn(&LiveEvent) -> bool,
) -> LiveEvent {
    first(feed, what, |event| matches(&event).then_some(event)).await
}

fn network_change(event: &LiveEvent, wanted: NetworkChange) -> bool {
    matches!(event, LiveEvent::Network { change, .. } if *change == wanted)
}

fn device_change(event: &LiveEvent, device: &str, wanted: DeviceChange) -> bool {
    matches!(
        event,
        LiveEvent::Device { serial_number, change, .. }
            if *change == wanted && *serial_number == serial(device)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_live_feed_tells_starts_devices_positions_link_drops_and_stops() {
    let (_logs, engine, plan, name) = site("live", "sim");
    let mut feed = engine.live();
    within("start", engine.start(plan.clone())).await.unwrap();

    live_event(&mut feed, "started", |event| {
        network_change(event, NetworkChange::Started)
    })
    .await;
    live_event(&mut feed, "a tag joined", |event| {
        device_change(event, "01:05:0001", DeviceChange::Joined)
    })
    .await;
    let LiveEvent::Positions { positions, .. } = live_event(&mut feed, "positions", |event| {
        matches!(event, LiveEvent::Positions { .. })
    })
    .await
    else {
        unreachable!("matched positions");
    };
    assert!(!positions.is_empty());

    let simulator = engine.simulator(&name).unwrap();
    simulator.inject(SimFault::Silence(serial("01:05:0002")));
    live_event(&mut feed, "a silent tag is lost", |event| {
        device_change(event, "01:05:0002", DeviceChange::Lost)
    })
    .await;
    simulator.inject(SimFault::LoseSync(serial("01:04:0002")));
    live_event(&mut feed, "an anchor's health: out of sync", |event| {
        device_change(event, "01:04:0002", DeviceChange::Health)
            && matches!(
                event,
                LiveEvent::Device {
                    synchronisation: netcfg_model::Synchronisation::None,
                    ..
                }
            )
    })
    .await;

    simulator.inject(SimFault::DropLink);
    live_event(&mut feed, "the link drops", |event| {
        network_change(event, NetworkChange::LinkDown)
    })
    .await;
    within("stop", engine.stop(&name)).await.unwrap();
    live_event(&mut feed, "stopped", |event| {
        network_change(event, NetworkChange::Stopped)
    })
    .await;
}

/// What the engine keeps about a configuration's devices (their cached
/// data) follows its plan: a device the configuration no longer holds when
/// it starts again, or when it is reloaded, is forgotten. Without it a
/// configuration started again and again as its devices change kept every
/// device it ever had.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_gone_from_the_plan_is_forgotten_at_the_next_start_or_reload() {
    let (_logs, engine, plan, name) = site("churn", "sim");
    let engine: Arc<dyn Engine> = Arc::new(engine);
    let cached_serials = || {
        engine
            .cached_devices(&name)
            .into_iter()
            .map(|device| device.serial_number)
            .collect::<Vec<_>>()
    };
    let wait_for = |wanted: netcfg_model::SerialNumber| {
        within("the device in the cache", async move {
            while !cached_serials().contains(&wanted) {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
    };
    let gone = serial("01:05:0002");
    within("start", engine.start(plan.clone())).await.unwrap();
    wait_for(gone).await;
    within("stop", engine.stop(&name)).await.unwrap();
    assert!(cached_serials().contains(&gone), "kept after a stop");

    let mut smaller = plan.clone();
    smaller
        .devices
        .retain(|device| device.serial_number != gone);
    within("start again", engine.start(smaller.clone()))
        .await
        .unwrap();
    wait_for(serial("01:05:0001")).await;
    assert!(!cached_serials().contains(&gone), "{:?}", cached_serials());

    // The same for a reload of the running configuration.
    within(
        "reload",
        engine.engine_command(netcfg_engine::EngineCommand::Reload(Box::new(plan))),
    )
    .await
    .unwrap();
    wait_for(gone).await;
    within(
        "reload without it",
        engine.engine_command(netcfg_engine::EngineCommand::Reload(Box::new(smaller))),
    )
    .await
    .unwrap();
    assert!(!cached_serials().contains(&gone), "{:?}", cached_serials());
    within("stop", engine.stop(&name)).await.unwrap();
}
