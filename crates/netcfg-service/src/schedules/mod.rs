//! Schedules (decisions §16): a configuration's schedules, kept with its
//! content (history, ETags, the saved-state file), and the scheduler that
//! runs them (started by [`Service::start_background_work`]).

use std::{collections::HashSet, sync::Mutex};

use netcfg_model::{
    ConfigName, ItemName, Schedule, ScheduleLedger, ScheduleStatus,
    body::{SchedulePatchBody, SchedulePostBody},
};

mod run;

pub use run::SCHEDULER_MAX_SLEEP;

use crate::{Service, ServiceError, Write};

/// Which configurations' schedules the scheduler must read again, and the
/// bell that wakes it.
#[derive(Debug, Default)]
pub(crate) struct Reread {
    dirty: Mutex<Dirty>,
    bell: tokio::sync::Notify,
}

#[derive(Debug, Default)]
struct Dirty {
    all: bool,
    nets: HashSet<ConfigName>,
}

impl Reread {
    /// `name`'s schedules may have changed.
    pub(crate) fn net(&self, name: &ConfigName) {
        self.lock().nets.insert(name.clone());
        self.bell.notify_one();
    }

    /// Every configuration's.
    fn all(&self) {
        self.lock().all = true;
        self.bell.notify_one();
    }

    fn take(&self) -> Dirty {
        std::mem::take(&mut *self.lock())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Dirty> {
        netcfg_model::sync::lock(&self.dirty)
    }
}

fn status((schedule, ledger): (Schedule, ScheduleLedger)) -> ScheduleStatus {
    ScheduleStatus::new(schedule, ledger)
}

impl Service {
    /// Adds a schedule; its runs count from now.
    pub async fn create_schedule(
        &self,
        name: &ConfigName,
        body: SchedulePostBody,
        write: Write,
    ) -> Result<ScheduleStatus, ServiceError> {
        let created = self
            .change(name, write, move |net| net.create_schedule(body))
            .await?;
        self.inner.reread.net(name);
        Ok(status(created))
    }

    /// One schedule, with its next run and its last.
    pub async fn schedule(
        &self,
        name: &ConfigName,
        schedule: ItemName,
    ) -> Result<ScheduleStatus, ServiceError> {
        Ok(status(
            self.read(name, move |net| net.schedule(schedule)).await?,
        ))
    }

    /// Every schedule, by name, with its next run and its last.
    pub async fn schedules(&self, name: &ConfigName) -> Result<Vec<ScheduleStatus>, ServiceError> {
        let schedules = self.read(name, |net| net.schedules()).await?;
        Ok(schedules.into_iter().map(status).collect())
    }

    /// Changes a schedule; a change of when it runs counts its runs from
    /// now.
    pub async fn patch_schedule(
        &self,
        name: &ConfigName,
        schedule: ItemName,
        body: SchedulePatchBody,
        write: Write,
    ) -> Result<ScheduleStatus, ServiceError> {
        let changed = self
            .change(name, write, move |net| net.patch_schedule(schedule, body))
            .await?;
        self.inner.reread.net(name);
        Ok(status(changed))
    }

    /// Deletes a schedule.
    pub async fn delete_schedule(
        &self,
        name: &ConfigName,
        schedule: ItemName,
        write: Write,
    ) -> Result<(), ServiceError> {
        self.change(name, write, move |net| net.delete_schedule(schedule))
            .await?;
        self.inner.reread.net(name);
        Ok(())
    }
}
