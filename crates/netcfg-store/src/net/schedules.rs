//! Schedules (decisions §16): addressed by name, each with its ledger in
//! `schedule_runs` (up to when its runs are accounted for, and its last
//! run). The ledger is not content: a restore leaves it, and a schedule a
//! restore brings back without one is counted from when it is next read.

use netcfg_model::{
    ItemName, RunOutcome, Schedule, ScheduleAction, ScheduleLedger, ScheduleRun,
    body::{SchedulePatchBody, SchedulePostBody},
};
use rusqlite::{Connection, OptionalExtension, params};

use netcfg_model::time::clock::wall_clock_ms_signed;

use super::Net;
use crate::{
    error::{ConflictKind, Missing, StoreError},
    sql::{self, bad_value, get},
};

const COLUMNS: &str = "name, cron, timezone, action, enabled";

fn parsed<T: std::str::FromStr>(row: &rusqlite::Row<'_>, index: usize) -> rusqlite::Result<T>
where
    T::Err: std::error::Error + Send + Sync + 'static,
{
    row.get::<_, String>(index)?
        .parse::<T>()
        .map_err(|error| bad_value(index, error))
}

fn read_schedule(row: &rusqlite::Row<'_>) -> rusqlite::Result<Schedule> {
    Ok(Schedule {
        name: get::<ItemName, String>(row, 0)?,
        cron: parsed(row, 1)?,
        timezone: parsed(row, 2)?,
        action: parsed::<ScheduleAction>(row, 3)?,
        enabled: row.get(4)?,
    })
}

fn find(conn: &Connection, name: &ItemName) -> Result<Option<Schedule>, StoreError> {
    sql::find_named(conn, "schedules", COLUMNS, name.as_str(), read_schedule)
}

fn require(conn: &Connection, name: &ItemName) -> Result<Schedule, StoreError> {
    find(conn, name)?
        .ok_or_else(|| StoreError::not_found(Missing::Schedule, format!("schedule {name}")))
}

fn list(conn: &Connection) -> Result<Vec<Schedule>, StoreError> {
    sql::list_by_name(conn, "schedules", COLUMNS, read_schedule)
}

/// The ledger of `name`; a schedule with none (brought back by a restore)
/// is counted from now.
fn ledger(conn: &Connection, name: &ItemName) -> Result<ScheduleLedger, StoreError> {
    let found = conn
        .prepare_cached(
            "SELECT since_ms, due_ms, at_ms, outcome, message FROM schedule_runs
             WHERE schedule = ?1",
        )?
        .query_row([name.as_str()], |row| {
            let since_ms: i64 = row.get(0)?;
            let last = match row.get::<_, Option<String>>(3)? {
                None => None,
                Some(outcome) => Some(ScheduleRun {
                    due_ms: row.get(1)?,
                    at_ms: row.get(2)?,
                    outcome: outcome
                        .parse::<RunOutcome>()
                        .map_err(|error| bad_value(3, error))?,
                    message: row.get(4)?,
                }),
            };
            Ok(ScheduleLedger { since_ms, last })
        })
        .optional()?;
    Ok(found.unwrap_or_else(|| ScheduleLedger {
        since_ms: wall_clock_ms_signed(),
        last: None,
    }))
}

fn with_ledgers(
    conn: &Connection,
    schedules: Vec<Schedule>,
) -> Result<Vec<(Schedule, ScheduleLedger)>, StoreError> {
    schedules
        .into_iter()
        .map(|schedule| {
            let ledger = ledger(conn, &schedule.name)?;
            Ok((schedule, ledger))
        })
        .collect()
}

/// Counts `name`'s runs from now on (a new or retimed schedule).
fn start_ledger(conn: &Connection, name: &ItemName) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO schedule_runs (schedule, since_ms) VALUES (?1, ?2)
         ON CONFLICT (schedule) DO UPDATE SET since_ms = excluded.since_ms",
    )?
    .execute(params![name.as_str(), wall_clock_ms_signed()])?;
    Ok(())
}

fn write_schedule(
    conn: &Connection,
    sql: &str,
    old: &str,
    schedule: &Schedule,
) -> Result<(), StoreError> {
    conn.prepare_cached(sql)?.execute(params![
        old,
        schedule.name.as_str(),
        schedule.cron.as_str(),
        schedule.timezone.as_str(),
        schedule.action.as_str(),
        schedule.enabled,
    ])?;
    Ok(())
}

fn taken(name: &ItemName) -> StoreError {
    StoreError::conflict(
        ConflictKind::Taken,
        format!("schedule {name}"),
        "a schedule with this name exists",
    )
}

impl Net {
    /// Adds a schedule, its runs counted from now; a name already used is a
    /// conflict.
    pub fn create_schedule(
        &self,
        body: SchedulePostBody,
    ) -> Result<(Schedule, ScheduleLedger), StoreError> {
        self.db.write(move |conn| {
            if find(conn, &body.name)?.is_some() {
                return Err(taken(&body.name));
            }
            let schedule = body.into_schedule();
            write_schedule(
                conn,
                "INSERT INTO schedules (name, cron, timezone, action, enabled)
                 VALUES (?2, ?3, ?4, ?5, ?6)",
                schedule.name.as_str(),
                &schedule,
            )?;
            start_ledger(conn, &schedule.name)?;
            let ledger = ledger(conn, &schedule.name)?;
            Ok((schedule, ledger))
        })
    }

    /// One schedule and its ledger.
    pub fn schedule(&self, name: ItemName) -> Result<(Schedule, ScheduleLedger), StoreError> {
        self.db.read(move |conn| {
            let schedule = require(conn, &name)?;
            let ledger = ledger(conn, &name)?;
            Ok((schedule, ledger))
        })
    }

    /// Every schedule with its ledger, by name.
    pub fn schedules(&self) -> Result<Vec<(Schedule, ScheduleLedger)>, StoreError> {
        self.db.read(|conn| with_ledgers(conn, list(conn)?))
    }

    /// Changes a schedule (renaming it to a free name, its ledger with it);
    /// a change of when it runs counts its runs from now.
    pub fn patch_schedule(
        &self,
        name: ItemName,
        body: SchedulePatchBody,
    ) -> Result<(Schedule, ScheduleLedger), StoreError> {
        self.db.write(move |conn| {
            let schedule = require(conn, &name)?;
            let changed = body.apply(&schedule);
            if changed.name != schedule.name {
                if find(conn, &changed.name)?.is_some() {
                    return Err(taken(&changed.name));
                }
                conn.prepare_cached("UPDATE schedule_runs SET schedule = ?2 WHERE schedule = ?1")?
                    .execute([schedule.name.as_str(), changed.name.as_str()])?;
            }
            write_schedule(
                conn,
                "UPDATE schedules SET name = ?2, cron = ?3, timezone = ?4, action = ?5,
                    enabled = ?6 WHERE name = ?1",
                schedule.name.as_str(),
                &changed,
            )?;
            if body.retimes() {
                start_ledger(conn, &changed.name)?;
            }
            let ledger = ledger(conn, &changed.name)?;
            Ok((changed, ledger))
        })
    }

    /// Deletes a schedule and its ledger.
    pub fn delete_schedule(&self, name: ItemName) -> Result<(), StoreError> {
        self.db.write(move |conn| {
            require(conn, &name)?;
            conn.execute("DELETE FROM schedules WHERE name = ?1", [name.as_str()])?;
            conn.execute(
                "DELETE FROM schedule_runs WHERE schedule = ?1",
                [name.as_str()],
            )?;
            Ok(())
        })
    }

    /// Counts every schedule's runs from now (a file that arrived from
    /// elsewhere), keeping each one's last run.
    pub fn count_schedules_from_now(&self) -> Result<(), StoreError> {
        self.db.write(|conn| {
            for schedule in list(conn)? {
                start_ledger(conn, &schedule.name)?;
            }
            Ok(())
        })
    }

    /// Records where `name` stands: its runs up to `since_ms` are
    /// accounted for, and `run` is its last. Not journalled (the ledger is
    /// not content); nothing when the schedule is gone.
    pub fn record_schedule_run(
        &self,
        name: ItemName,
        since_ms: i64,
        run: ScheduleRun,
    ) -> Result<(), StoreError> {
        self.db.write(move |conn| {
            if find(conn, &name)?.is_none() {
                return Ok(());
            }
            conn.prepare_cached(
                "INSERT INTO schedule_runs (schedule, since_ms, due_ms, at_ms, outcome, message)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (schedule) DO UPDATE SET since_ms = excluded.since_ms,
                    due_ms = excluded.due_ms, at_ms = excluded.at_ms,
                    outcome = excluded.outcome, message = excluded.message",
            )?
            .execute(params![
                name.as_str(),
                since_ms,
                run.due_ms,
                run.at_ms,
                run.outcome.as_str(),
                run.message.chars().take(1024).collect::<String>(),
            ])?;
            Ok(())
        })
    }
}
