//! A configuration's life: create, upload, read, rename, download, copy,
//! delete, start, stop, and the engine's commands (reload, restart,
//! resync).

use std::path::PathBuf;

use netcfg_engine::{EngineCommand as EngineRequest, StartOutcome, StopOutcome};
use netcfg_model::{
    ConfigName, Configuration, Instance, RunState,
    body::{EngineCommand, NetworkBody},
};
use netcfg_store::Upload;
use tokio::sync::mpsc::Receiver;

use crate::{Lifecycle, Service, ServiceError, Write};

/// What a start did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartMessage {
    /// The network started, logging to this file.
    Started {
        /// The start's log file.
        log_file: PathBuf,
    },
    /// It was running already.
    AlreadyRunning,
}

/// What a 5.1 restart did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restart {
    /// The network was stopped and started again.
    Restarted,
    /// It was not running: it was started.
    Started,
}

/// What an engine command did: the network's state after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineCommandOutcome {
    /// The network's run state.
    pub state: RunState,
}

impl Service {
    /// Creates an empty configuration (with the built-in roles, streams and
    /// settings) and journals its creation in its history.
    pub async fn create_net(
        &self,
        body: NetworkBody,
        write: Write,
    ) -> Result<Configuration, ServiceError> {
        let name = body.name.clone();
        // A new configuration has no device a survey error could name.
        survey_errors_name_devices(survey_error_serials(&body.instance))?;
        let configuration = self
            .blocking(move |store| store.create(&body.name, body.instance))
            .await?;
        self.journal(&name, write).await?;
        self.tell(&name, Lifecycle::Created);
        Ok(self.with_state(configuration))
    }

    /// Writes a file that arrives in `chunks` into a new upload in the
    /// data directory's `.tmp/`, on a blocking thread, until the sender is
    /// dropped: so an upload costs a few chunks of memory whatever its size.
    /// The upload then goes to [`Service::finish_upload`]. The writer
    /// starts at once, before the returned future is awaited, so the caller
    /// can feed it first.
    pub fn receive_upload<C>(
        &self,
        chunks: Receiver<C>,
    ) -> impl Future<Output = Result<Upload, ServiceError>> + use<C>
    where
        C: AsRef<[u8]> + Send + 'static,
    {
        self.write_arriving(chunks, netcfg_store::Store::begin_upload, Upload::write)
    }

    /// Checks an uploaded file and publishes it as configuration `name`
    /// (refused, leaving nothing behind, unless it is a sound saved-state
    /// file), journalled in its history.
    pub async fn finish_upload(
        &self,
        name: &ConfigName,
        upload: Upload,
        write: Write,
    ) -> Result<Configuration, ServiceError> {
        let uploaded = name.clone();
        let configuration = self
            .blocking(move |store| store.finish_upload(&uploaded, upload))
            .await?;
        // The file's schedules count their runs from its arrival here: the
        // runs due while it was elsewhere were not missed by this server.
        // With the upload's entry: the ledger is not content.
        self.change(name, write, |net| net.count_schedules_from_now())
            .await?;
        self.tell(name, Lifecycle::Created);
        Ok(self.with_state(configuration))
    }

    /// Every configuration, with its run state.
    pub async fn nets(&self) -> Result<Vec<Configuration>, ServiceError> {
        let configurations = self.blocking(|store| store.list()).await?;
        let mut listed = Vec::with_capacity(configurations.len());
        for configuration in configurations {
            listed.push(self.with_status(configuration).await?);
        }
        Ok(listed)
    }

    /// One configuration, with its run state.
    pub async fn net(&self, name: &ConfigName) -> Result<Configuration, ServiceError> {
        let name = name.clone();
        let configuration = self.blocking(move |store| store.get(&name)).await?;
        self.with_status(configuration).await
    }

    /// Renames the configuration to `new_name` (refused while it runs) and
    /// sets its instance, as one recorded change under its new name.
    pub async fn update_net(
        &self,
        name: &ConfigName,
        new_name: ConfigName,
        instance: Instance,
        write: Write,
    ) -> Result<Configuration, ServiceError> {
        if new_name != *name && self.is_running(name) {
            return Err(ServiceError::Running(format!(
                "configuration {name} is running; stop it before renaming it"
            )));
        }
        let renamed = name.clone();
        let configuration = self
            .blocking(move |store| store.update(&renamed, Some(&new_name), None))
            .await?;
        // The instance is set as one recorded change of the configuration
        // under its (new) name; a rename alone changes no item.
        let write = if configuration.name == *name {
            write
        } else {
            let summary = format!("{}: renamed from {name}", write.record.summary);
            write.summarised(summary)
        };
        let configuration = self
            .change(&configuration.name, write, move |net| {
                let asked = survey_error_serials(&instance);
                if !asked.is_empty() {
                    survey_errors_name_devices(net.unknown_serials(asked)?)?;
                }
                net.set_instance(instance)
            })
            .await?;
        self.forget(name);
        if configuration.name != *name {
            // Its outputs' counters under the old name mean nothing now.
            self.inner.outputs.forget(name);
            self.tell(name, Lifecycle::Renamed(&configuration.name));
        }
        Ok(self.with_state(configuration))
    }

    /// The saved-state file: a consistent snapshot while writes go on.
    pub async fn download(&self, name: &ConfigName) -> Result<Vec<u8>, ServiceError> {
        let name = name.clone();
        self.blocking(move |store| store.download(&name)).await
    }

    /// Deletes the configuration, stopping its network first if it runs.
    pub async fn delete_net(&self, name: &ConfigName) -> Result<(), ServiceError> {
        if self.is_running(name) {
            self.engine().stop(name).await?;
        }
        let deleted = name.clone();
        self.blocking(move |store| store.delete(&deleted)).await?;
        self.forget(name);
        self.inner.outputs.forget(name);
        self.tell(name, Lifecycle::Deleted);
        Ok(())
    }

    /// Copies the configuration to `to`, journalled in the copy's history
    /// as `write`: the original's run state.
    pub async fn copy_net(
        &self,
        from: &ConfigName,
        to: &ConfigName,
        write: Write,
    ) -> Result<RunState, ServiceError> {
        let (source, target) = (from.clone(), to.clone());
        self.blocking(move |store| store.copy(&source, &target))
            .await?;
        self.journal(to, write).await?;
        self.tell(to, Lifecycle::Created);
        Ok(self.engine().status(from).state)
    }

    /// Starts the configuration's network from what its file holds now,
    /// journalled as `write` says (decisions §16: starts, stops, restarts
    /// and reloads are journalled whoever asks; a restore skips them, as
    /// they change no item).
    pub async fn start(
        &self,
        name: &ConfigName,
        write: Write,
    ) -> Result<StartMessage, ServiceError> {
        let plan = self.plan(name).await?;
        self.forget_waiting(name);
        Ok(match self.engine().start(plan).await? {
            StartOutcome::Started { log_file } => {
                self.journal_step(name, write, "Started").await;
                StartMessage::Started { log_file }
            }
            StartOutcome::AlreadyRunning => StartMessage::AlreadyRunning,
        })
    }

    /// Stops the configuration's network; `false` when it was not running.
    /// A configuration that does not exist is not found, running or not.
    /// A stop is journalled as `write` says.
    pub async fn stop(&self, name: &ConfigName, write: Write) -> Result<bool, ServiceError> {
        self.require_net(name).await?;
        self.forget_waiting(name);
        Ok(match self.engine().stop(name).await? {
            StopOutcome::Stopped => {
                self.journal_step(name, write, "Stopped").await;
                true
            }
            StopOutcome::WasNotRunning => false,
        })
    }

    /// Reloads, restarts or resynchronises a running network (5.0's engine
    /// command); a reload or restart is journalled as `write` says.
    pub async fn engine_command(
        &self,
        name: &ConfigName,
        command: EngineCommand,
        write: Write,
    ) -> Result<EngineCommandOutcome, ServiceError> {
        let plan = self.plan(name).await?;
        let (request, summary) = match command {
            EngineCommand::Reload => (EngineRequest::Reload(Box::new(plan)), Some("Reloaded")),
            EngineCommand::Restart => (EngineRequest::Restart(Box::new(plan)), Some("Restarted")),
            EngineCommand::Resync => (EngineRequest::Resync(name.clone()), None),
        };
        let status = self.engine().engine_command(request).await?;
        self.forget_waiting(name);
        if let Some(summary) = summary {
            self.journal_step(name, write, summary).await;
        }
        Ok(EngineCommandOutcome {
            state: status.state,
        })
    }

    /// Restarts the configuration's network from what its file holds now
    /// (5.1's `restart`): a stopped one is started.
    pub async fn restart(&self, name: &ConfigName, write: Write) -> Result<Restart, ServiceError> {
        if !self.is_running(name) {
            return Ok(match self.start(name, write).await? {
                StartMessage::Started { .. } => Restart::Started,
                StartMessage::AlreadyRunning => Restart::Restarted,
            });
        }
        self.engine_command(name, EngineCommand::Restart, write)
            .await?;
        Ok(Restart::Restarted)
    }

    /// Pushes what the configuration's file holds now to its running
    /// network (5.1's `reload`): `false` when it does not run (nothing to
    /// reload; it starts from the file).
    pub async fn reload(&self, name: &ConfigName, write: Write) -> Result<bool, ServiceError> {
        self.require_net(name).await?;
        if !self.is_running(name) {
            return Ok(false);
        }
        self.engine_command(name, EngineCommand::Reload, write)
            .await?;
        Ok(true)
    }

    /// Journals a start, stop, restart or reload that happened: a failure
    /// to journal it (a full disk) is logged, and the step stands.
    async fn journal_step(&self, name: &ConfigName, write: Write, summary: &str) {
        if let Err(error) = self.journal(name, write.summarised(summary)).await {
            log::warn!("{name}: the history could not record \"{summary}\": {error}");
        }
    }

    /// Records a step of a configuration's life that changed no item (it
    /// was created, uploaded, copied) in its history.
    async fn journal(&self, name: &ConfigName, write: Write) -> Result<(), ServiceError> {
        self.change(name, write, |_| Ok(())).await
    }
}

/// The devices a simulator instance's `survey_error` displaces.
fn survey_error_serials(instance: &Instance) -> Vec<netcfg_model::SerialNumber> {
    match instance {
        Instance::Simulator { parameters, .. } => parameters
            .survey_error
            .iter()
            .map(|error| error.serial_number)
            .collect(),
        _ => Vec::new(),
    }
}

/// Refuses a `survey_error` that names devices the configuration does
/// not hold (`unknown`), with the problem on `instance`.
fn survey_errors_name_devices(
    unknown: Vec<netcfg_model::SerialNumber>,
) -> Result<(), netcfg_store::StoreError> {
    if unknown.is_empty() {
        return Ok(());
    }
    let unknown: Vec<String> = unknown.iter().map(ToString::to_string).collect();
    let mut problems = netcfg_model::Problems::new();
    problems.push(
        "instance",
        format!(
            "survey_error names {}, which the configuration does not hold",
            unknown.join(", ")
        ),
    );
    Err(netcfg_store::StoreError::Invalid(problems))
}
