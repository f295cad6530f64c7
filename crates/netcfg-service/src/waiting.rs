//! Changes that wait for a restart: what a running network has not taken
//! of its saved configuration.
//!
//! A running network was told its devices, roles, streams and settings
//! when it started (or was last reloaded); a change of those reaches it
//! only at a restart or reload. Names, zones and outputs are taken at once.
//! Whether a change waits is found by comparing the plan the network runs
//! with the plan the saved state gives now: exact whatever the change (a
//! PATCH, a restore, a schedule), and read only when asked, once for each
//! state of the content (a configuration's content stamp keys the answer).

use std::collections::HashMap;

use netcfg_model::{ConfigName, Configuration, RunState, sync::lock};
use netcfg_store::StampKind;

use crate::{Service, ServiceError};

/// The answers found so far: by configuration, the content stamp they were
/// found at and whether a restart was needed.
#[derive(Debug, Default)]
pub(crate) struct Waiting {
    known: std::sync::Mutex<HashMap<ConfigName, (u64, bool)>>,
}

impl Service {
    /// True when the configuration runs and its saved state holds a change
    /// that its network takes only at a restart or reload (5.1's
    /// `restart_needed`). Devices renamed and roles retracked since the start
    /// are handed to the running network on the way: neither waits.
    pub async fn restart_needed(&self, name: &ConfigName) -> Result<bool, ServiceError> {
        let Some(running) = self.engine().running_plan(name) else {
            return Ok(false);
        };
        let stamp = self.stamp(name, StampKind::Content).await?;
        if let Some(&(seen, needed)) = lock(&self.inner.waiting.known).get(name)
            && seen == stamp
        {
            return Ok(needed);
        }
        let saved = self.plan(name).await?;
        let change = running.change_to(&saved);
        if !change.renamed.is_empty() {
            self.engine().rename_devices(name, change.renamed);
        }
        if let Some(roles) = change.retracked {
            self.engine().retrack(name, roles);
        }
        lock(&self.inner.waiting.known).insert(name.clone(), (stamp, change.needs_restart));
        Ok(change.needs_restart)
    }

    /// Hands a running network what it takes at once of its saved state
    /// (names, tracking) right after a change, whoever reads it next.
    pub(crate) async fn take_live_changes(&self, name: &ConfigName) {
        if self.is_running(name)
            && let Err(error) = self.restart_needed(name).await
        {
            log::warn!(
                "configuration {name}: the running network did not take its live changes: {error}"
            );
        }
    }

    /// Forgets what was found about `name`: its network started, stopped,
    /// restarted or reloaded.
    pub(crate) fn forget_waiting(&self, name: &ConfigName) {
        lock(&self.inner.waiting.known).remove(name);
    }

    /// A configuration with its run state and, when it runs, whether a
    /// change waits for a restart.
    pub(crate) async fn with_status(
        &self,
        configuration: Configuration,
    ) -> Result<Configuration, ServiceError> {
        let mut configuration = self.with_state(configuration);
        let waits = configuration.state == RunState::Running
            && self.restart_needed(&configuration.name).await?;
        configuration.restart_needed = Some(waits);
        Ok(configuration)
    }
}
