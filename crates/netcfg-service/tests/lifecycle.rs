//! A configuration's life through the service alone, on a real store in a
//! temporary directory and a mock engine: what each step tells the
//! observers, what it journals, and what it refuses while the network runs.

use std::sync::{Arc, Mutex};

use netcfg_engine::{MockEngine, NetworkStatus, StopOutcome};
use netcfg_model::{
    ChangeRecord, ConfigName, DeviceKey, FromJson, Instance, Notification, RunState,
    body::{DeviceBody, NetworkBody},
};
use netcfg_service::{
    Expected, Lifecycle, Observer, Service, ServiceError, Services, StampKind, StoreError, Write,
};
use netcfg_store::Store;
use serde_json::json;

/// What the observers heard, in order.
#[derive(Default)]
struct Heard(Mutex<Vec<String>>);

impl Observer for Heard {
    fn lifecycle(&self, name: &ConfigName, step: Lifecycle<'_>) {
        let line = match step {
            Lifecycle::Created => format!("created {name}"),
            Lifecycle::Deleted => format!("deleted {name}"),
            Lifecycle::Renamed(to) => format!("renamed {name} to {to}"),
        };
        self.0.lock().unwrap().push(line);
    }

    fn forget(&self, name: &ConfigName) {
        self.0.lock().unwrap().push(format!("forget {name}"));
    }

    fn notifications(&self, _: &ConfigName, _: &[Notification]) {}
}

impl Heard {
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

fn status(name: &ConfigName, state: RunState) -> NetworkStatus {
    NetworkStatus {
        configuration: name.clone(),
        state,
        instance: None,
        link_up: state == RunState::Running,
        link_down_reason: None,
        started_at_ms: None,
        log_file: None,
        devices_heard: 0,
    }
}

/// An engine on which `running` runs and nothing else; it forgets
/// anything and stops `running` when asked.
fn engine(running: Option<&str>) -> MockEngine {
    let running: Option<ConfigName> = running.map(|name| name.parse().unwrap());
    let mut engine = MockEngine::new();
    let stopped = Arc::new(Mutex::new(false));
    let (running_status, stopped_status) = (running.clone(), stopped.clone());
    engine.expect_status().returning(move |name| {
        let runs = Some(name) == running_status.as_ref() && !*stopped_status.lock().unwrap();
        status(
            name,
            if runs {
                RunState::Running
            } else {
                RunState::Stopped
            },
        )
    });
    engine.expect_forget().returning(|_| ());
    engine.expect_stop().returning(move |name| {
        let was_running = Some(name) == running.as_ref() && !*stopped.lock().unwrap();
        *stopped.lock().unwrap() = true;
        Box::pin(async move {
            Ok(if was_running {
                StopOutcome::Stopped
            } else {
                StopOutcome::WasNotRunning
            })
        })
    });
    engine
}

fn service(directory: &std::path::Path, engine: MockEngine) -> (Service, Arc<Heard>) {
    let service = Service::new(Services {
        store: Arc::new(Store::open(directory).unwrap()),
        engine: Arc::new(engine),
        command_timeout: netcfg_service::DEFAULT_COMMAND_TIMEOUT,
    });
    let heard = Arc::new(Heard::default());
    service.observe(heard.clone());
    (service, heard)
}

fn name(text: &str) -> ConfigName {
    text.parse().unwrap()
}

fn write(summary: &str) -> Write {
    Write::new(ChangeRecord {
        summary: summary.to_owned(),
        ..ChangeRecord::local()
    })
}

fn network(text: &str) -> NetworkBody {
    NetworkBody::from_json(&json!({"name": text, "instance": "sim"})).unwrap()
}

fn device(serial: &str) -> DeviceBody {
    DeviceBody::from_json(&json!({
        "serial_number": serial,
        "disabled": false,
        "interfaces": [{"identifier": 0, "role_id": 4}]
    }))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn each_step_of_a_life_is_told_and_journalled() {
    let directory = tempfile::tempdir().unwrap();
    let (service, heard) = service(directory.path(), engine(None));
    let site = name("site");

    let created = service
        .create_net(network("site"), write("Create a configuration"))
        .await
        .unwrap();
    assert_eq!(created.name, site);
    assert_eq!(created.state, RunState::Stopped);
    assert_eq!(heard.take(), ["created site"]);

    service
        .create_device(&site, device("01:05:0001"), write("Add a device"))
        .await
        .unwrap();
    service
        .copy_net(&site, &name("annex"), write("Copied from site"))
        .await
        .unwrap();
    assert_eq!(heard.take(), ["created annex"]);
    let copied = service.devices(&name("annex")).await.unwrap();
    assert_eq!(copied.len(), 1, "a copy holds the original's devices");
    let annex_history = service.history(&name("annex"), None, 10).await.unwrap();
    assert_eq!(annex_history[0].summary, "Copied from site");

    let renamed = service
        .update_net(&site, name("main"), Instance::simulator(), write("Rename"))
        .await
        .unwrap();
    assert_eq!(renamed.name, name("main"));
    assert_eq!(heard.take(), ["forget site", "renamed site to main"]);
    let history = service.history(&name("main"), None, 10).await.unwrap();
    assert_eq!(history[0].summary, "Rename: renamed from site");
    assert!(matches!(
        service.net(&site).await,
        Err(ServiceError::Store(StoreError::NotFound { .. }))
    ));

    service.delete_net(&name("main")).await.unwrap();
    assert_eq!(heard.take(), ["forget main", "deleted main"]);
    let left: Vec<ConfigName> = service
        .nets()
        .await
        .unwrap()
        .into_iter()
        .map(|configuration| configuration.name)
        .collect();
    assert_eq!(left, [name("annex")]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_running_network_is_not_renamed_or_restored_but_is_stopped_before_a_delete() {
    let directory = tempfile::tempdir().unwrap();
    let (service, heard) = service(directory.path(), engine(Some("site")));
    let site = name("site");
    service
        .create_net(network("site"), write("Create"))
        .await
        .unwrap();
    heard.take();

    let rename = service
        .update_net(&site, name("other"), Instance::simulator(), write("Rename"))
        .await;
    assert!(
        matches!(&rename, Err(ServiceError::Running(message)) if message.contains("stop it before renaming")),
        "{rename:?}"
    );
    let restore = service.restore(&site, 1, write("Restore")).await;
    assert!(
        matches!(restore, Err(ServiceError::Running(_))),
        "{restore:?}"
    );
    assert!(heard.take().is_empty(), "a refused step tells nobody");

    // The network runs: a delete stops it first, then deletes.
    service.delete_net(&site).await.unwrap();
    assert_eq!(heard.take(), ["forget site", "deleted site"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_change_is_refused_when_its_precondition_no_longer_holds() {
    let directory = tempfile::tempdir().unwrap();
    let (service, _) = service(directory.path(), engine(None));
    let site = name("site");
    service
        .create_net(network("site"), write("Create"))
        .await
        .unwrap();
    let content = |stamp| {
        Some(Expected {
            kind: StampKind::Content,
            stamp,
        })
    };
    let read_at = service.stamp(&site, StampKind::Content).await.unwrap();
    service
        .create_device(&site, device("01:05:0001"), write("Add a device"))
        .await
        .unwrap();

    let stale = Write {
        expected: content(read_at),
        ..write("Delete a device")
    };
    let refused = service
        .delete_device(
            &site,
            DeviceKey::Serial("01:05:0001".parse().unwrap()),
            stale,
        )
        .await;
    assert!(
        matches!(
            refused,
            Err(ServiceError::Store(StoreError::Changed { .. }))
        ),
        "{refused:?}"
    );
    assert_eq!(
        service.devices(&site).await.unwrap().len(),
        1,
        "nothing changed"
    );

    let current = Write {
        expected: content(service.stamp(&site, StampKind::Content).await.unwrap()),
        ..write("Delete a device")
    };
    service
        .delete_device(
            &site,
            DeviceKey::Serial("01:05:0001".parse().unwrap()),
            current,
        )
        .await
        .unwrap();
    assert!(service.devices(&site).await.unwrap().is_empty());
}
