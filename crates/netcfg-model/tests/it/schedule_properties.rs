//! Properties of schedules: any text a client sends as a cron expression
//! is taken or refused, never a panic; a taken one's runs come in order,
//! each after the time asked from, in any zone.

use netcfg_model::{CronExpr, Schedule, ScheduleAction, TimeZoneName};
use proptest::prelude::*;

/// One field of cron-looking text: digits, names and cron's punctuation.
fn field() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[0-9*/,?LW#-]{1,6}|MON|FRI|JAN|DEC|[A-Z]{1,4}")
        .expect("a valid regex")
}

const ZONES: [&str; 5] = [
    "UTC",
    "Europe/Berlin",
    "America/New_York",
    "Australia/Lord_Howe",
    "Asia/Kathmandu",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_cron_text_is_taken_or_refused_and_a_taken_one_runs_in_order(
        fields in proptest::collection::vec(field(), 4..=7),
        zone in 0..ZONES.len(),
        start in 1_600_000_000_000_i64..2_100_000_000_000,
    ) {
        let text = fields.join(" ");
        let Ok(cron) = text.parse::<CronExpr>() else { return Ok(()) };
        let schedule = Schedule {
            name: "any".parse().unwrap(),
            cron,
            timezone: ZONES[zone].parse::<TimeZoneName>().unwrap(),
            action: ScheduleAction::Restart,
            enabled: true,
        };
        let mut after = start;
        for _ in 0..3 {
            let Some(next) = schedule.next_after(after) else { break };
            prop_assert!(next > after, "{text}: {next} is not after {after}");
            after = next;
        }
    }
}
