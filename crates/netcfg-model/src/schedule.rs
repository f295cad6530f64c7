//! Schedules (decisions.md §16): a cron expression in an IANA time zone
//! that starts, stops, restarts or reloads a configuration's network, and
//! the pure arithmetic of when a schedule is due.
//!
//! Time is passed in as milliseconds since the Unix epoch: the model reads
//! no clock. The time zones are chrono-tz's compiled-in IANA database, so
//! reading one opens no file.

use std::{fmt, str::FromStr};

use chrono::{DateTime, TimeZone as _, Utc};
use croner::{
    Cron,
    parser::{CronParser, Seconds, Year},
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::names::ItemName;

/// The longest cron expression taken (characters).
pub const MAX_CRON_LENGTH: usize = 200;

/// A scheduled run found this late (ms) still runs; a later one is missed
/// (the server was down at its time) and reported, not run.
pub const LATE_RUN_GRACE_MS: i64 = 60_000;

/// At most this many missed runs are counted one by one (a per-second
/// schedule and a server down for a week).
const MAX_COUNTED: u32 = 10_000;

/// `ms` since the Unix epoch as `2026-11-25 06:00:00 UTC`, for messages.
pub fn utc_text(ms: i64) -> String {
    use chrono::{Datelike as _, Timelike as _};
    match DateTime::<Utc>::from_timestamp_millis(ms) {
        Some(at) => format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
            at.year(),
            at.month(),
            at.day(),
            at.hour(),
            at.minute(),
            at.second()
        ),
        None => format!("{ms} ms"),
    }
}

/// What a scheduled run does to the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScheduleAction {
    /// Starts the network (nothing when it runs).
    Start,
    /// Stops the network (nothing when it is stopped).
    Stop,
    /// Restarts a running network (skipped when it is stopped).
    Restart,
    /// Reloads a running network's configuration (skipped when it is
    /// stopped).
    Reload,
}

impl ScheduleAction {
    /// Every action.
    pub const ALL: [Self; 4] = [Self::Start, Self::Stop, Self::Restart, Self::Reload];

    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Start => "start",
            Self::Stop => "stop",
            Self::Restart => "restart",
            Self::Reload => "reload",
        }
    }
}

impl fmt::Display for ScheduleAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ScheduleAction {
    type Err = UnknownScheduleWord;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|action| action.as_str() == text)
            .ok_or_else(|| UnknownScheduleWord::new("a schedule action", text))
    }
}

/// A word that is not one of a closed list's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{word}` is not {what}")]
pub struct UnknownScheduleWord {
    what: &'static str,
    word: String,
}

impl UnknownScheduleWord {
    fn new(what: &'static str, word: &str) -> Self {
        Self {
            what,
            word: word.chars().take(40).collect(),
        }
    }
}

/// Why a cron expression is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadCron {
    /// Not 5 or 6 fields.
    #[error(
        "a cron expression has 5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first; this one has {0}"
    )]
    Fields(usize),
    /// Longer than [`MAX_CRON_LENGTH`].
    #[error("a cron expression has at most {MAX_CRON_LENGTH} characters")]
    TooLong,
    /// The parser's words.
    #[error("the cron expression does not parse: {0}")]
    Parse(String),
    /// It names no time that exists (the 30th of February).
    #[error("the cron expression never fires")]
    NeverFires,
}

/// A cron expression: 5 fields, or 6 with seconds first, as croner reads
/// them (names of months and days, ranges, steps, `L`, `W` and `#`).
#[derive(Clone)]
pub struct CronExpr {
    text: String,
    cron: Cron,
}

impl CronExpr {
    /// The expression as given (trimmed).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The first time after `after_ms` (exclusive) that the expression
    /// names in `zone`, in ms since the Unix epoch; `None` when there is
    /// none within the parser's search (a year of seconds).
    pub fn next_after(&self, after_ms: i64, zone: TimeZoneName) -> Option<i64> {
        let start = DateTime::<Utc>::from_timestamp_millis(after_ms)?.with_timezone(&zone.0);
        // Croner works in whole seconds: a start within a second would
        // otherwise name that second again.
        let next = self.cron.find_next_occurrence(&start, false).ok()?;
        let next_ms = next.timestamp_millis();
        if next_ms > after_ms {
            Some(next_ms)
        } else {
            let later = self
                .cron
                .find_next_occurrence(&(start + chrono::TimeDelta::seconds(1)), false)
                .ok()?;
            Some(later.timestamp_millis())
        }
    }
}

impl CronExpr {
    /// The last time at or before `until_ms` that the expression names in
    /// `zone`.
    fn last_at_or_before(&self, until_ms: i64, zone: TimeZoneName) -> Option<i64> {
        let until = DateTime::<Utc>::from_timestamp_millis(until_ms)?.with_timezone(&zone.0);
        let last = self.cron.find_previous_occurrence(&until, true).ok()?;
        Some(last.timestamp_millis()).filter(|last| *last <= until_ms)
    }
}

impl FromStr for CronExpr {
    type Err = BadCron;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        if text.len() > MAX_CRON_LENGTH {
            return Err(BadCron::TooLong);
        }
        let fields = text.split_whitespace().count();
        if !(5..=6).contains(&fields) {
            return Err(BadCron::Fields(fields));
        }
        let cron = CronParser::builder()
            .seconds(Seconds::Optional)
            .year(Year::Disallowed)
            .build()
            .parse(text)
            .map_err(|error| BadCron::Parse(error.to_string()))?;
        let expr = Self {
            text: text.split_whitespace().collect::<Vec<_>>().join(" "),
            cron,
        };
        // From the start of a leap year, every date that exists comes
        // within the search; one that never comes does not exist.
        let leap_year_start = Utc
            .with_ymd_and_hms(2028, 1, 1, 0, 0, 0)
            .single()
            .map(|start| start.timestamp_millis() - 1);
        match leap_year_start.and_then(|start| expr.next_after(start, TimeZoneName::UTC)) {
            Some(_) => Ok(expr),
            None => Err(BadCron::NeverFires),
        }
    }
}

impl fmt::Debug for CronExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("CronExpr").field(&self.text).finish()
    }
}

impl fmt::Display for CronExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl PartialEq for CronExpr {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for CronExpr {}

impl Serialize for CronExpr {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for CronExpr {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for CronExpr {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CronExpr".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "minLength": 9,
            "maxLength": MAX_CRON_LENGTH,
            "description": "A cron expression: 5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first. Names (MON, JAN), ranges, lists, steps, L, W and # are taken; an expression that never fires is refused.",
            "examples": ["0 6 * * MON-FRI", "30 0 3 * * *"]
        })
    }
}

/// An IANA time zone (`Europe/Berlin`, `UTC`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimeZoneName(chrono_tz::Tz);

impl TimeZoneName {
    /// Coordinated Universal Time, the default.
    pub const UTC: Self = Self(chrono_tz::Tz::UTC);

    /// The IANA name.
    pub fn as_str(&self) -> &'static str {
        self.0.name()
    }
}

impl Default for TimeZoneName {
    fn default() -> Self {
        Self::UTC
    }
}

impl FromStr for TimeZoneName {
    type Err = UnknownScheduleWord;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        text.parse::<chrono_tz::Tz>()
            .map(Self)
            .map_err(|_| UnknownScheduleWord::new("an IANA time zone (like Europe/Berlin)", text))
    }
}

impl fmt::Display for TimeZoneName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for TimeZoneName {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for TimeZoneName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for TimeZoneName {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "TimeZoneName".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        // Every name the server takes, so the schema says exactly what is
        // valid (chrono-tz's compiled-in IANA database).
        let names: Vec<&str> = chrono_tz::TZ_VARIANTS
            .iter()
            .map(|zone| zone.name())
            .collect();
        schemars::json_schema!({
            "type": "string",
            "enum": names,
            "description": "An IANA time zone name; daylight-saving changes follow it.",
            "examples": ["UTC", "Europe/Berlin", "America/New_York"]
        })
    }
}

/// A schedule of a configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Schedule {
    /// Unique name within the configuration.
    pub name: ItemName,
    /// When it runs.
    pub cron: CronExpr,
    /// The time zone `cron` is read in.
    pub timezone: TimeZoneName,
    /// What it does.
    pub action: ScheduleAction,
    /// Whether it runs.
    pub enabled: bool,
}

impl Schedule {
    /// The first run after `after_ms` (exclusive); `None` when disabled.
    pub fn next_after(&self, after_ms: i64) -> Option<i64> {
        if self.enabled {
            self.cron.next_after(after_ms, self.timezone)
        } else {
            None
        }
    }

    /// What is due at `now_ms` for a schedule whose runs up to `since_ms`
    /// (inclusive) are accounted for: the runs the server missed (older
    /// than [`LATE_RUN_GRACE_MS`]) and the one to run now.
    pub fn due(&self, since_ms: i64, now_ms: i64) -> Due {
        let mut due = Due::default();
        let mut cursor = since_ms;
        while let Some(at) = self.next_after(cursor).filter(|at| *at <= now_ms) {
            cursor = at;
            // Of several runs within the grace, the newest runs; the older
            // ones are missed like those before the grace.
            let missed_at = if now_ms - at > LATE_RUN_GRACE_MS {
                Some(at)
            } else {
                due.run_ms.replace(at)
            };
            let Some(missed_at) = missed_at else { continue };
            let missed = due.missed.get_or_insert(Missed {
                count: 0,
                first_ms: missed_at,
                last_ms: missed_at,
            });
            missed.count = (missed.count + 1).min(MAX_COUNTED);
            missed.last_ms = missed_at;
            if missed.count == MAX_COUNTED && due.run_ms.is_none() {
                // Past the count, the runs before the grace are missed
                // together: skip to the newest of them.
                let before_grace = now_ms - LATE_RUN_GRACE_MS - 1;
                if let Some(last) = self
                    .cron
                    .last_at_or_before(before_grace, self.timezone)
                    .filter(|last| *last > cursor)
                {
                    missed.last_ms = last;
                    cursor = last;
                }
            }
        }
        due
    }
}

/// Runs the server missed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Missed {
    /// How many (counted up to 10,000: more are reported as 10,000).
    pub count: u32,
    /// The first one's time (ms).
    pub first_ms: i64,
    /// The last one's time (ms).
    pub last_ms: i64,
}

/// What [`Schedule::due`] found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Due {
    /// Runs missed, if any.
    pub missed: Option<Missed>,
    /// The time of the run to make now, if any.
    pub run_ms: Option<i64>,
}

impl Due {
    /// The newest time accounted for after this: runs up to it are done or
    /// reported.
    pub fn accounted_until(&self, since_ms: i64) -> i64 {
        self.run_ms
            .or(self.missed.map(|missed| missed.last_ms))
            .map_or(since_ms, |at| at.max(since_ms))
    }
}

/// How a scheduled run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunOutcome {
    /// It is running now (or the server stopped while it ran).
    Running,
    /// The action was done.
    Ok,
    /// There was nothing to do: a restart or reload of a stopped network.
    Skipped,
    /// The action failed.
    Failed,
    /// The server was not running at its time.
    Missed,
}

impl RunOutcome {
    /// Every outcome.
    pub const ALL: [Self; 5] = [
        Self::Running,
        Self::Ok,
        Self::Skipped,
        Self::Failed,
        Self::Missed,
    ];

    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Ok => "ok",
            Self::Skipped => "skipped",
            Self::Failed => "failed",
            Self::Missed => "missed",
        }
    }
}

impl fmt::Display for RunOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RunOutcome {
    type Err = UnknownScheduleWord;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|outcome| outcome.as_str() == text)
            .ok_or_else(|| UnknownScheduleWord::new("a run outcome", text))
    }
}

/// A schedule's last run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ScheduleRun {
    /// The time it was due (ms since the Unix epoch).
    pub due_ms: i64,
    /// When it ended, or was found missed (ms).
    pub at_ms: i64,
    /// How it ended.
    pub outcome: RunOutcome,
    /// What happened, in words.
    pub message: String,
}

/// Where a schedule stands: its runs up to `since_ms` are done or reported,
/// and its last run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScheduleLedger {
    /// Runs due up to this time (ms) are accounted for: the schedule's
    /// creation or last change, or its last run.
    pub since_ms: i64,
    /// Its last run, if it ran.
    pub last: Option<ScheduleRun>,
}

/// A schedule as a GET shows it: its fields, its next run and its last
/// outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ScheduleStatus {
    /// The schedule.
    #[serde(flatten)]
    pub schedule: Schedule,
    /// Its next run (ms since the Unix epoch); null when disabled.
    pub next_run_ms: Option<i64>,
    /// Its last run, or null before the first.
    pub last_run: Option<ScheduleRun>,
}

impl ScheduleStatus {
    /// `schedule` with what its ledger says.
    pub fn new(schedule: Schedule, ledger: ScheduleLedger) -> Self {
        Self {
            next_run_ms: schedule.next_after(ledger.since_ms),
            schedule,
            last_run: ledger.last,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(zone: chrono_tz::Tz, y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> i64 {
        zone.with_ymd_and_hms(y, mo, d, h, mi, s)
            .earliest()
            .unwrap()
            .timestamp_millis()
    }

    fn schedule(cron: &str, zone: &str) -> Schedule {
        Schedule {
            name: "nightly".parse().unwrap(),
            cron: cron.parse().unwrap(),
            timezone: zone.parse().unwrap(),
            action: ScheduleAction::Restart,
            enabled: true,
        }
    }

    #[test]
    fn a_cron_expression_has_5_or_6_fields_and_must_fire() {
        assert!("0 6 * * MON-FRI".parse::<CronExpr>().is_ok());
        assert!("*/5 0 6 * * *".parse::<CronExpr>().is_ok());
        assert!("0 0 29 2 *".parse::<CronExpr>().is_ok(), "leap days exist");
        assert_eq!(
            "0 6 * *".parse::<CronExpr>().unwrap_err(),
            BadCron::Fields(4)
        );
        assert_eq!(
            "0 0 6 * * * 2030".parse::<CronExpr>().unwrap_err(),
            BadCron::Fields(7)
        );
        assert!(matches!(
            "61 * * * *".parse::<CronExpr>(),
            Err(BadCron::Parse(_))
        ));
        assert_eq!(
            "0 0 30 2 *".parse::<CronExpr>().unwrap_err(),
            BadCron::NeverFires
        );
        assert_eq!(
            "0 0 31 4 *".parse::<CronExpr>().unwrap_err(),
            BadCron::NeverFires
        );
        assert_eq!(
            "  0   6 * * *".parse::<CronExpr>().unwrap().as_str(),
            "0 6 * * *"
        );
    }

    #[test]
    fn times_read_as_utc_text() {
        assert_eq!(
            utc_text(ms(chrono_tz::UTC, 2026, 11, 25, 6, 0, 9)),
            "2026-11-25 06:00:09 UTC"
        );
    }

    #[test]
    fn time_zones_are_iana_names() {
        assert_eq!(
            "Europe/Berlin".parse::<TimeZoneName>().unwrap().as_str(),
            "Europe/Berlin"
        );
        assert!("Mars/Olympus".parse::<TimeZoneName>().is_err());
        assert_eq!(TimeZoneName::default().as_str(), "UTC");
    }

    #[test]
    fn the_next_run_follows_the_zone_across_daylight_saving() {
        let berlin = chrono_tz::Europe::Berlin;
        let daily = schedule("0 6 * * *", "Europe/Berlin");
        // 2026-03-29: clocks go from 02:00 to 03:00 in Berlin.
        let before = ms(berlin, 2026, 3, 28, 7, 0, 0);
        let next = daily.next_after(before).unwrap();
        assert_eq!(next, ms(berlin, 2026, 3, 29, 6, 0, 0));
        assert_eq!(
            next - ms(berlin, 2026, 3, 28, 6, 0, 0),
            23 * 3_600_000,
            "a day of 23 hours"
        );
        // A run in the skipped hour runs right after the gap.
        let in_gap = schedule("30 2 * * *", "Europe/Berlin");
        let gap_run = in_gap.next_after(ms(berlin, 2026, 3, 29, 0, 0, 0)).unwrap();
        assert_eq!(gap_run, ms(berlin, 2026, 3, 29, 3, 0, 0));
        // A run in the repeated hour runs once.
        let in_overlap = schedule("30 2 * * *", "Europe/Berlin");
        let first = in_overlap
            .next_after(ms(berlin, 2026, 10, 25, 0, 0, 0))
            .unwrap();
        let second = in_overlap.next_after(first).unwrap();
        assert_eq!(second - first, 24 * 3_600_000 + 3_600_000);
    }

    #[test]
    fn a_disabled_schedule_has_no_next_run() {
        let mut off = schedule("* * * * * *", "UTC");
        off.enabled = false;
        assert_eq!(off.next_after(0), None);
        assert_eq!(off.due(0, 10_000), Due::default());
    }

    #[test]
    fn a_run_on_time_runs_and_an_old_one_is_missed() {
        let hourly = schedule("0 * * * *", "UTC");
        let ten = ms(chrono_tz::UTC, 2026, 11, 25, 10, 0, 0);
        let due = hourly.due(ten - 1, ten + 500);
        assert_eq!(
            due,
            Due {
                missed: None,
                run_ms: Some(ten)
            }
        );
        assert_eq!(due.accounted_until(ten - 1), ten);
        // Down from 9:30 to 12:00:30: 10:00 and 11:00 missed, 12:00 runs.
        let noon = ten + 2 * 3_600_000;
        let due = hourly.due(ten - 1_800_000, noon + 30_000);
        assert_eq!(
            due.missed,
            Some(Missed {
                count: 2,
                first_ms: ten,
                last_ms: ten + 3_600_000
            })
        );
        assert_eq!(due.run_ms, Some(noon));
        // Down past the grace: noon is missed too, nothing runs.
        let due = hourly.due(ten - 1_800_000, noon + LATE_RUN_GRACE_MS + 1);
        assert_eq!(due.missed.unwrap().count, 3);
        assert_eq!(due.run_ms, None);
        assert_eq!(hourly.due(noon, noon + 1_000), Due::default());
    }

    #[test]
    fn a_long_outage_of_a_fast_schedule_is_counted_in_bounded_work() {
        let every_second = schedule("* * * * * *", "UTC");
        let day = 86_400_000;
        let due = every_second.due(0, day);
        let missed = due.missed.unwrap();
        assert_eq!(missed.count, MAX_COUNTED, "counted up to the bound");
        assert_eq!(missed.first_ms, 1_000);
        assert_eq!(
            missed.last_ms,
            day - 1_000,
            "the runs of the grace but the newest"
        );
        assert_eq!(due.run_ms, Some(day));
    }

    #[test]
    fn the_next_run_is_after_the_time_given_even_within_a_second() {
        let every_second = schedule("* * * * * *", "UTC");
        assert_eq!(every_second.next_after(1_000), Some(2_000));
        assert_eq!(every_second.next_after(1_500), Some(2_000));
        assert_eq!(every_second.next_after(999), Some(1_000));
    }
}
