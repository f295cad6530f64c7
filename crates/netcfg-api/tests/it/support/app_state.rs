//! What the integration tests share: an application state on a real store
//! in a temporary directory and a real engine on a runtime of its own.

use std::sync::Arc;

use actix_web::web;
use netcfg_api::{ApiVersion, AppState, Auth, DEFAULT_COMMAND_TIMEOUT, Services, Tables};
use netcfg_engine::{EngineOptions, NetcfgEngine};
use netcfg_store::Store;

/// The state and what must live as long as it.
pub(crate) struct Fixture {
    _directory: tempfile::TempDir,
    runtime: Option<tokio::runtime::Runtime>,
    pub(crate) state: web::Data<AppState>,
    /// The tables `create_app` serves with this state.
    pub(crate) tables: Tables,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        // The tests run inside actix's runtime, where blocking on another
        // runtime's shutdown is not allowed.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// A state answering in 5.1 by default, with `auth`'s access control.
pub(crate) fn fixture_with(auth: Auth) -> Fixture {
    let directory = tempfile::tempdir().expect("a temporary directory");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime for the engine");
    let services = Services {
        store: Arc::new(Store::open(directory.path()).expect("a store")),
        engine: Arc::new(NetcfgEngine::new(
            EngineOptions::default(),
            runtime.handle().clone(),
        )),
        command_timeout: DEFAULT_COMMAND_TIMEOUT,
    };
    let tables = Tables::standard();
    let state = web::Data::new(AppState::new(ApiVersion::V5_1, services).with_auth(auth));
    Fixture {
        _directory: directory,
        runtime: Some(runtime),
        state,
        tables,
    }
}

/// A state answering in 5.1 by default, without access control.
pub(crate) fn fixture() -> Fixture {
    fixture_with(Auth::off())
}
