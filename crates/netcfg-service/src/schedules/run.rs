//! The scheduler (decisions §16): sleeps until the next run of any
//! configuration's schedules, then starts, stops, restarts or reloads the
//! network, journals the step as `schedule:<name>`, records the outcome in
//! the schedule's ledger and raises a notification naming the schedule and
//! its outcome.
//!
//! Runs are counted from each schedule's ledger (`since_ms`), which lives
//! in the configuration's file: after a restart of the server, the runs
//! whose time passed while it was down are reported as missed (one
//! notification, a warning), not run late; a run found up to
//! [`LATE_RUN_GRACE_MS`](netcfg_model::LATE_RUN_GRACE_MS) late still runs.
//! A run's ledger is written before its action (outcome `running`), so a
//! crash in the middle never runs it twice.
//!
//! The schedules are read again only when the service changed them (their
//! own operations, a restore, a configuration created, copied, uploaded,
//! renamed or deleted): the scheduler costs nothing between runs.

use std::{collections::HashMap, time::Duration};

use netcfg_engine::EngineNotification;
use netcfg_model::{
    ChangeRecord, ConfigName, Due, ItemName, Level, RunOutcome, Schedule, ScheduleAction,
    ScheduleRun, body::EngineCommand, utc_text,
};

use crate::{Service, StartMessage, Write};

/// The longest the scheduler sleeps before it looks at the clock again (a
/// wall clock set forward is noticed within it).
pub const SCHEDULER_MAX_SLEEP: Duration = Duration::from_secs(30);

/// A schedule as the scheduler keeps it.
struct Planned {
    schedule: Schedule,
    /// Runs due up to this time are run, running or reported.
    since_ms: i64,
}

use netcfg_model::time::clock::wall_clock_ms_signed;

impl Service {
    /// Runs every configuration's schedules until the runtime ends
    /// ([`Service::start_background_work`] runs it).
    pub(crate) async fn run_schedules(self) {
        let mut planned: HashMap<ConfigName, Vec<Planned>> = HashMap::new();
        self.inner.reread.all();
        loop {
            self.reread_schedules(&mut planned).await;
            let now = wall_clock_ms_signed();
            for (name, schedules) in &mut planned {
                for plan in schedules.iter_mut() {
                    let due = plan.schedule.due(plan.since_ms, now);
                    if due == Due::default() {
                        continue;
                    }
                    plan.since_ms = due.accounted_until(plan.since_ms);
                    let service = self.clone();
                    let (name, schedule) = (name.clone(), plan.schedule.clone());
                    tokio::spawn(async move { service.run_schedule(name, schedule, due).await });
                }
            }
            let next = planned
                .values()
                .flatten()
                .filter_map(|plan| plan.schedule.next_after(plan.since_ms))
                .min();
            let wait = next.map_or(SCHEDULER_MAX_SLEEP, |next| {
                Duration::from_millis(u64::try_from(next - wall_clock_ms_signed()).unwrap_or(0))
                    .min(SCHEDULER_MAX_SLEEP)
            });
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = self.inner.reread.bell.notified() => {}
            }
        }
    }

    /// Reads the schedules of the configurations that changed. A schedule
    /// keeps the runs this scheduler accounted for (its ledger may not be
    /// written yet) unless its ledger is newer (it was changed).
    async fn reread_schedules(&self, planned: &mut HashMap<ConfigName, Vec<Planned>>) {
        let dirty = self.inner.reread.take();
        let names: Vec<ConfigName> = if dirty.all {
            match self.blocking(|store| store.names()).await {
                Ok(names) => {
                    planned.retain(|name, _| names.contains(name));
                    names
                }
                Err(error) => {
                    log::warn!("the scheduler cannot list the configurations: {error}");
                    self.inner.reread.all();
                    return;
                }
            }
        } else {
            dirty.nets.into_iter().collect()
        };
        for name in names {
            let mut known: HashMap<ItemName, i64> = planned
                .remove(&name)
                .into_iter()
                .flatten()
                .map(|plan| (plan.schedule.name, plan.since_ms))
                .collect();
            match self.read(&name, |net| net.schedules()).await {
                Ok(schedules) => {
                    let plans = schedules
                        .into_iter()
                        .filter(|(schedule, _)| schedule.enabled)
                        .map(|(schedule, ledger)| Planned {
                            since_ms: known
                                .remove(&schedule.name)
                                .map_or(ledger.since_ms, |since| since.max(ledger.since_ms)),
                            schedule,
                        })
                        .collect::<Vec<_>>();
                    if !plans.is_empty() {
                        planned.insert(name, plans);
                    }
                }
                Err(crate::ServiceError::Store(crate::StoreError::NotFound { .. })) => {}
                Err(error) => {
                    log::warn!("{name}: the scheduler cannot read its schedules: {error}")
                }
            }
        }
    }

    /// Reports what `due` says of `schedule` was missed, and runs what it
    /// says is due now.
    async fn run_schedule(self, name: ConfigName, schedule: Schedule, due: Due) {
        if let Some(missed) = due.missed {
            let runs = if missed.count == 1 {
                format!("its run of {}", utc_text(missed.first_ms))
            } else {
                format!(
                    "{} runs from {} to {}",
                    missed.count,
                    utc_text(missed.first_ms),
                    utc_text(missed.last_ms)
                )
            };
            let message = format!("missed {runs}: the server was not running");
            self.record_run(
                &name,
                &schedule,
                missed.last_ms,
                RunOutcome::Missed,
                message,
            )
            .await;
        }
        let Some(due_ms) = due.run_ms else { return };
        self.record_run(&name, &schedule, due_ms, RunOutcome::Running, String::new())
            .await;
        let (outcome, message) = self.act(&name, &schedule).await;
        self.record_run(&name, &schedule, due_ms, outcome, message)
            .await;
    }

    /// Does `schedule`'s action to `name`'s network: its outcome and what
    /// happened.
    async fn act(&self, name: &ConfigName, schedule: &Schedule) -> (RunOutcome, String) {
        let write = Write::new(ChangeRecord {
            origin: format!("schedule:{}", schedule.name),
            address: None,
            method: String::new(),
            path: format!("/nets/{name}/schedules/{}", schedule.name),
            summary: String::new(),
        });
        let command = match schedule.action {
            ScheduleAction::Start => {
                return match self.start(name, write).await {
                    Ok(StartMessage::Started { .. }) => (RunOutcome::Ok, "started".to_owned()),
                    Ok(StartMessage::AlreadyRunning) => {
                        (RunOutcome::Skipped, "it was running already".to_owned())
                    }
                    Err(error) => (RunOutcome::Failed, error.to_string()),
                };
            }
            ScheduleAction::Stop => {
                return match self.stop(name, write).await {
                    Ok(true) => (RunOutcome::Ok, "stopped".to_owned()),
                    Ok(false) => (RunOutcome::Skipped, "it was not running".to_owned()),
                    Err(error) => (RunOutcome::Failed, error.to_string()),
                };
            }
            ScheduleAction::Restart => EngineCommand::Restart,
            ScheduleAction::Reload => EngineCommand::Reload,
        };
        if !self.is_running(name) {
            return (RunOutcome::Skipped, "the network is not running".to_owned());
        }
        match self.engine_command(name, command, write).await {
            Ok(_) if command == EngineCommand::Restart => (RunOutcome::Ok, "restarted".to_owned()),
            Ok(_) => (RunOutcome::Ok, "reloaded".to_owned()),
            Err(error) => (RunOutcome::Failed, error.to_string()),
        }
    }

    /// Writes `schedule`'s ledger (its runs up to `due_ms` accounted for)
    /// and, for an outcome, raises the notification that tells it.
    async fn record_run(
        &self,
        name: &ConfigName,
        schedule: &Schedule,
        due_ms: i64,
        outcome: RunOutcome,
        message: String,
    ) {
        let at_ms = wall_clock_ms_signed();
        let told = format!(
            "Schedule {} ({}): {}",
            schedule.name,
            schedule.action,
            if outcome == RunOutcome::Failed {
                format!("failed: {message}")
            } else {
                message.clone()
            }
        );
        let run = ScheduleRun {
            due_ms,
            at_ms,
            outcome,
            message,
        };
        let schedule_name = schedule.name.clone();
        // The ledger is not content: written with no history record, it is
        // not journalled.
        let recorded = match self.awake(name).await {
            Ok(net) => net
                .change(move |net| net.record_schedule_run(schedule_name, due_ms, run))
                .await
                .map_err(crate::ServiceError::from),
            Err(error) => Err(error),
        };
        if let Err(error) = recorded {
            log::warn!(
                "{name}: schedule {}: the ledger was not written: {error}",
                schedule.name
            );
        }
        let level = match outcome {
            RunOutcome::Running => return,
            RunOutcome::Ok | RunOutcome::Skipped => Level::Information,
            RunOutcome::Missed => Level::Warning,
            RunOutcome::Failed => Level::Error,
        };
        self.store_batch(vec![EngineNotification {
            configuration: name.clone(),
            level,
            message: told,
            serial_number: None,
            timestamp_ms: u64::try_from(at_ms).unwrap_or(0),
        }])
        .await;
    }
}
