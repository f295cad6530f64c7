//! The replay's pace: when each record plays, on tokio's clock.
//!
//! A record `t` microseconds into the recording plays at
//! `anchor + (t − at) ÷ speed`. Every change of pace (pause, resume, a new
//! speed, the network starting) first reads where the play head is, then
//! anchors there: the play head never jumps.

use std::time::Duration;

use tokio::time::Instant;

const YEAR: Duration = Duration::from_secs(365 * 24 * 3_600);

/// The anchor of the pace: recording time `at_us` is, or was, at `anchor`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Clock {
    /// `None` while the play head stands still (paused, finished, the
    /// network not started).
    anchor: Option<Instant>,
    /// Microseconds into the recording at the anchor.
    at_us: u64,
    /// Times the recording's pace.
    speed: f64,
}

impl Clock {
    /// A play head standing at the start.
    pub(super) fn new(speed: f64) -> Self {
        Self {
            anchor: None,
            at_us: 0,
            speed,
        }
    }

    /// Where the play head is at `now`, microseconds into the recording.
    pub(super) fn head(&self, now: Instant) -> u64 {
        match self.anchor {
            None => self.at_us,
            Some(anchor) => {
                let played = now.saturating_duration_since(anchor).as_secs_f64() * self.speed;
                // Saturates: a recording is far shorter than 2^64 µs.
                self.at_us.saturating_add((played * 1e6) as u64)
            }
        }
    }

    /// When the record `t_us` into the recording is due; `None` while the
    /// play head stands still.
    pub(super) fn due(&self, t_us: u64) -> Option<Instant> {
        let anchor = self.anchor?;
        let ahead = t_us.saturating_sub(self.at_us) as f64 / 1e6 / self.speed;
        // A wait longer than a year is as good as never.
        let ahead = Duration::try_from_secs_f64(ahead).unwrap_or(YEAR).min(YEAR);
        Some(anchor + ahead)
    }

    /// Anchors where the play head is at `now`, moving or not from now on.
    pub(super) fn hold(&mut self, now: Instant, moving: bool) {
        self.at_us = self.head(now);
        self.anchor = moving.then_some(now);
    }

    /// Changes the speed without moving the play head.
    pub(super) fn set_speed(&mut self, now: Instant, speed: f64) {
        let moving = self.anchor.is_some();
        self.hold(now, false);
        self.speed = speed;
        if moving {
            self.anchor = Some(now);
        }
    }

    /// Puts the play head at `at_us`, moving from `from` (which may be
    /// later than now: a pause before it moves) or standing.
    pub(super) fn jump(&mut self, at_us: u64, from: Instant, moving: bool) {
        self.at_us = at_us;
        self.anchor = moving.then_some(from);
    }

    pub(super) fn speed(&self) -> f64 {
        self.speed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn records_are_due_at_the_recording_pace_times_the_speed() {
        let start = Instant::now();
        let mut clock = Clock::new(10.0);
        assert_eq!(clock.due(0), None, "standing still");
        clock.hold(start, true);
        assert_eq!(clock.due(2_000_000), Some(start + 200 * MS));
        assert_eq!(clock.head(start + 100 * MS), 1_000_000);
    }

    #[test]
    fn a_pause_or_a_new_speed_keeps_the_play_head_where_it_is() {
        let start = Instant::now();
        let mut clock = Clock::new(1.0);
        clock.hold(start, true);
        clock.hold(start + 500 * MS, false);
        assert_eq!(clock.head(start + 5_000 * MS), 500_000, "paused");
        clock.hold(start + 5_000 * MS, true);
        assert_eq!(clock.due(1_000_000), Some(start + 5_500 * MS));
        clock.set_speed(start + 5_250 * MS, 5.0);
        assert_eq!(clock.head(start + 5_250 * MS), 750_000);
        assert_eq!(clock.due(1_000_000), Some(start + 5_300 * MS));
        // A record behind the play head is due at once.
        assert_eq!(clock.due(0), Some(start + 5_250 * MS));
    }

    #[test]
    fn a_jump_may_wait_before_it_moves() {
        let start = Instant::now();
        let mut clock = Clock::new(2.0);
        clock.jump(0, start + 50 * MS, true);
        assert_eq!(clock.head(start), 0);
        assert_eq!(clock.due(100_000), Some(start + 100 * MS));
    }
}
