//! Outputs (decisions §14): a configuration's outputs, kept with its
//! content (history, ETags, the saved-state file) while their credentials
//! are kept aside by the store; and their running: while a configuration
//! runs, the site relay ([`Service::start_background_work`]) hands its live events and its
//! stored notifications to `netcfg-outputs`, which publishes them.

use std::sync::Arc;

use netcfg_model::{
    ConfigName, ItemName, Output, OutputPlan, OutputSecrets, OutputStatus,
    body::{OutputPatchBody, OutputPostBody},
    event::{StateChange, StateEvent},
};
use netcfg_outputs::OutputEvent;

use crate::{Service, ServiceError, SiteEvent, Write};

/// How many stored notifications may wait for the outputs' relay; past it
/// they are not handed to the outputs (and a warning says so).
const NOTIFICATIONS_WAITING: usize = 4_096;

/// The stored notifications on their way to the outputs' relay.
pub(crate) struct StoredNotifications {
    sender: tokio::sync::mpsc::Sender<(ConfigName, netcfg_model::Notification)>,
    receiver: std::sync::Mutex<
        Option<tokio::sync::mpsc::Receiver<(ConfigName, netcfg_model::Notification)>>,
    >,
}

impl Default for StoredNotifications {
    fn default() -> Self {
        let (sender, receiver) = tokio::sync::mpsc::channel(NOTIFICATIONS_WAITING);
        Self {
            sender,
            receiver: std::sync::Mutex::new(Some(receiver)),
        }
    }
}

impl StoredNotifications {
    /// Passes a stored notification on; never waits.
    pub(crate) fn pass(&self, name: &ConfigName, notification: netcfg_model::Notification) {
        match self.sender.try_send((name.clone(), notification)) {
            Ok(()) => {}
            Err(tokio::sync::mpsc::error::TrySendError::Full(_)) => log::warn!(
                "a notification of {name} was not handed to its outputs: their relay is behind"
            ),
            // The relay has ended: the server stops.
            Err(tokio::sync::mpsc::error::TrySendError::Closed(_)) => {}
        }
    }

    pub(crate) fn take_receiver(
        &self,
    ) -> Option<tokio::sync::mpsc::Receiver<(ConfigName, netcfg_model::Notification)>> {
        netcfg_model::sync::lock(&self.receiver).take()
    }
}

impl Service {
    /// Adds an output; its credentials are kept outside the configuration's
    /// file.
    pub async fn create_output(
        &self,
        name: &ConfigName,
        body: OutputPostBody,
        write: Write,
    ) -> Result<Output, ServiceError> {
        let (output, secrets) = self
            .change(name, write, move |net| net.create_output(body))
            .await?;
        self.keep_secrets(name, None, &output.name, secrets).await?;
        self.push_outputs(name).await?;
        Ok(output)
    }

    /// One output (never its credentials).
    pub async fn output(
        &self,
        name: &ConfigName,
        output: ItemName,
    ) -> Result<Output, ServiceError> {
        self.read(name, move |net| net.output(output)).await
    }

    /// Every output, by name.
    pub async fn outputs(&self, name: &ConfigName) -> Result<Vec<Output>, ServiceError> {
        self.read(name, |net| net.outputs()).await
    }

    /// Changes an output (and its credentials, which stay outside the file).
    pub async fn patch_output(
        &self,
        name: &ConfigName,
        output: ItemName,
        body: OutputPatchBody,
        write: Write,
    ) -> Result<Output, ServiceError> {
        let secrets = self.secrets_of(name, &output).await?;
        let old_name = output.clone();
        let (changed, secrets) = self
            .change(name, write, move |net| {
                net.patch_output(output, body, secrets)
            })
            .await?;
        let renamed = (changed.name != old_name).then_some(&old_name);
        self.keep_secrets(name, renamed, &changed.name, secrets)
            .await?;
        self.push_outputs(name).await?;
        Ok(changed)
    }

    /// Deletes an output and its credentials.
    pub async fn delete_output(
        &self,
        name: &ConfigName,
        output: ItemName,
        write: Write,
    ) -> Result<(), ServiceError> {
        let gone = output.clone();
        self.change(name, write, move |net| net.delete_output(output))
            .await?;
        let net = name.clone();
        self.blocking(move |store| store.remove_output_secrets(&net, &gone))
            .await?;
        self.push_outputs(name).await
    }

    /// How an output fares: connected, sent, queued, dropped, its last
    /// error. All zero and not running while its configuration is stopped
    /// and before its first run.
    pub async fn output_status(
        &self,
        name: &ConfigName,
        output: ItemName,
    ) -> Result<OutputStatus, ServiceError> {
        let output = self.output(name, output).await?;
        Ok(self
            .inner
            .outputs
            .status(name, &output.name)
            .unwrap_or_default())
    }

    /// Every output that ran since the process started, with its status
    /// (for `/metrics`).
    pub fn output_statuses(&self) -> Vec<(ConfigName, ItemName, OutputStatus)> {
        self.inner.outputs.statuses()
    }

    /// Hands the running configuration's outputs to `netcfg-outputs` as
    /// they are now (outputs not changed keep their connections).
    async fn push_outputs(&self, name: &ConfigName) -> Result<(), ServiceError> {
        let _order = self.inner.output_push.lock().await;
        if self.is_running(name) {
            let plans = self.output_plans(name).await?;
            self.inner.outputs.run(name, plans);
        }
        Ok(())
    }

    /// Each output of `name` with its credentials.
    async fn output_plans(&self, name: &ConfigName) -> Result<Vec<OutputPlan>, ServiceError> {
        let net = name.clone();
        self.blocking(move |store| {
            let outputs = store.net(&net)?.outputs()?;
            let mut book = store.output_secrets(&net)?;
            Ok(outputs
                .into_iter()
                .map(|output| OutputPlan {
                    secrets: book.remove(output.name.as_str()).unwrap_or_default(),
                    output,
                })
                .collect())
        })
        .await
    }

    async fn secrets_of(
        &self,
        name: &ConfigName,
        output: &ItemName,
    ) -> Result<OutputSecrets, ServiceError> {
        let (net, output) = (name.clone(), output.clone());
        self.blocking(move |store| {
            Ok(store
                .output_secrets(&net)?
                .remove(output.as_str())
                .unwrap_or_default())
        })
        .await
    }

    /// Writes an output's credentials once its change committed (a crash
    /// between the two leaves an output that reports what it lacks).
    async fn keep_secrets(
        &self,
        name: &ConfigName,
        old_name: Option<&ItemName>,
        output: &ItemName,
        secrets: OutputSecrets,
    ) -> Result<(), ServiceError> {
        let (net, old_name, output) = (name.clone(), old_name.cloned(), output.clone());
        self.blocking(move |store| {
            store.set_output_secrets(&net, old_name.as_ref(), &output, secrets)
        })
        .await
    }

    /// Hands a stored notification to `name`'s running outputs.
    pub(crate) fn notification_to_outputs(
        &self,
        name: &ConfigName,
        notification: netcfg_model::Notification,
    ) {
        self.inner
            .outputs
            .send(name, OutputEvent::Notification(Arc::new(notification)));
    }

    /// Hands a site event to the running outputs of its configuration,
    /// starting them when it starts and stopping them when it stops.
    pub(crate) async fn to_outputs(&self, event: SiteEvent) {
        let outputs = &self.inner.outputs;
        match event {
            SiteEvent::Positions {
                net,
                time_ms,
                positions,
            } => outputs.send(&net, OutputEvent::Positions { time_ms, positions }),
            SiteEvent::Zones { net, events } => {
                for event in events.iter() {
                    outputs.send(&net, OutputEvent::Zone(Arc::clone(event)));
                }
            }
            SiteEvent::Device { net, event } => outputs.send(&net, OutputEvent::Device(event)),
            SiteEvent::State { net, change } => match change {
                StateChange::Started => {
                    let _order = self.inner.output_push.lock().await;
                    match self.output_plans(&net).await {
                        Ok(plans) => outputs.run(&net, plans),
                        Err(error) => log::warn!(
                            "the outputs of {net} could not be read to start them: {error}"
                        ),
                    }
                }
                StateChange::Stopped => outputs.stop(&net),
                change => outputs.send(
                    &net,
                    OutputEvent::State(StateEvent {
                        net: net.to_string(),
                        state: change,
                        renamed_to: None,
                    }),
                ),
            },
            // The outputs keep no state a missed event could leave stale:
            // the site relay has said what was missed.
            SiteEvent::Missed(_) => {}
        }
    }
}
