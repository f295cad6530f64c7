//! Where a replay stands, shared by its player and its handle: the pace,
//! the seek number (epoch), pause, speed, loop, what was played.
//!
//! The handle changes it at once and wakes the player; a seek or a loop
//! bumps the epoch and tells the reader, so that datagrams read before it
//! (still in the channel) are dropped.

use std::{
    sync::{Arc, Mutex, mpsc::Sender},
    time::Duration,
};

use netcfg_model::{
    ConfigName, RecordingName, ReplayControl, ReplaySource, ReplaySpeed, ReplayState,
};
use tokio::{sync::Notify, time::Instant};

use netcfg_model::sync::lock;

use super::{
    clock::Clock,
    reader::{Command, Datagram},
};

/// Recording time between a loop's last datagram and the next loop's
/// first: a recording of one datagram loops at a pace, not in a spin.
const LOOP_GAP: Duration = Duration::from_millis(100);

/// What the player should wait for with a datagram in hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wait {
    /// It is from before a seek: drop it.
    Stale,
    /// The play head stands still.
    Hold,
    /// Play it then.
    Until(Instant),
}

/// Whether a datagram was played.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Played {
    Yes,
    NotYet,
    Stale,
}

#[derive(Debug)]
struct Playback {
    net: ConfigName,
    recording: RecordingName,
    speed: ReplaySpeed,
    clock: Clock,
    /// Between StartNetwork and StopNetwork.
    running: bool,
    paused: bool,
    looping: bool,
    finished: bool,
    /// The current seek's number.
    epoch: u64,
    /// The last datagram played (or the seek's target), µs from the first.
    position_us: u64,
    /// The plan's length, until the end is read.
    planned_ms: u64,
    /// The last datagram's time, once the end was read.
    end_us: Option<u64>,
    datagrams: u64,
    loops: u64,
}

impl Playback {
    fn moving(&self) -> bool {
        self.running && !self.paused && !self.finished
    }

    /// Anchors the pace where the play head is, after a change of state.
    fn hold(&mut self, now: Instant) {
        let moving = self.moving();
        self.clock.hold(now, moving);
    }

    fn seek(&mut self, to_us: u64, now: Instant) -> Command {
        // Past the end: to the end (once it is known; else the reader
        // finds it).
        let to_us = self.end_us.map_or(to_us, |end| to_us.min(end));
        self.epoch += 1;
        self.finished = false;
        self.position_us = to_us;
        let moving = self.moving();
        self.clock.jump(to_us, now, moving);
        Command::Seek {
            epoch: self.epoch,
            to_us,
        }
    }

    fn restart(&mut self, now: Instant) -> Command {
        self.loops += 1;
        self.epoch += 1;
        self.finished = false;
        self.position_us = 0;
        let moving = self.moving();
        let gap = LOOP_GAP.div_f64(self.clock.speed());
        self.clock.jump(0, now + gap, moving);
        Command::Seek {
            epoch: self.epoch,
            to_us: 0,
        }
    }

    fn state(&self) -> ReplayState {
        ReplayState {
            net: self.net.clone(),
            recording: self.recording.clone(),
            speed: self.speed,
            paused: self.paused,
            looping: self.looping,
            position_ms: self.position_us / 1_000,
            duration_ms: self.end_us.map_or(self.planned_ms, |end| end / 1_000),
            finished: self.finished,
            datagrams: self.datagrams,
            loops: self.loops,
        }
    }
}

/// The state the player and the handle share.
#[derive(Debug)]
pub(super) struct Shared {
    playback: Mutex<Playback>,
    /// Wakes the player after a change.
    pub(super) wake: Notify,
    /// To the reader; sent under the lock, so seeks reach it in epoch order.
    commands: Sender<Command>,
}

impl Shared {
    pub(super) fn new(source: &ReplaySource, planned_ms: u64, commands: Sender<Command>) -> Self {
        Self {
            playback: Mutex::new(Playback {
                net: source.net.clone(),
                recording: source.recording.clone(),
                speed: source.speed,
                clock: Clock::new(source.speed.factor()),
                running: false,
                paused: false,
                looping: source.looping,
                finished: false,
                epoch: 0,
                position_us: 0,
                planned_ms,
                end_us: None,
                datagrams: 0,
                loops: 0,
            }),
            wake: Notify::new(),
            commands,
        }
    }

    fn tell_reader(&self, command: Command) {
        // The reader gone (a broken file): nothing more to play anyway.
        let _ = self.commands.send(command);
    }

    /// StartNetwork (true) or StopNetwork (false): the play head moves only
    /// while the network runs.
    pub(super) fn set_running(&self, running: bool, now: Instant) {
        let mut playback = lock(&self.playback);
        playback.running = running;
        playback.hold(now);
    }

    /// What to do with `datagram` in hand.
    pub(super) fn wait_for(&self, datagram: &Datagram) -> Wait {
        let playback = lock(&self.playback);
        if datagram.epoch != playback.epoch {
            return Wait::Stale;
        }
        match playback.clock.due(datagram.at_us) {
            Some(due) if playback.moving() => Wait::Until(due),
            _ => Wait::Hold,
        }
    }

    /// Counts `datagram` played if it is due at `now`.
    pub(super) fn play(&self, datagram: &Datagram, now: Instant) -> Played {
        let mut playback = lock(&self.playback);
        if datagram.epoch != playback.epoch {
            return Played::Stale;
        }
        let due = playback.clock.due(datagram.at_us);
        if !playback.moving() || due.is_none_or(|due| due > now) {
            return Played::NotYet;
        }
        playback.position_us = datagram.at_us;
        playback.datagrams += 1;
        Played::Yes
    }

    /// The reader reached the end after seek `epoch`: start again when
    /// looping (and there is something to play), else stand at the end.
    pub(super) fn at_end(&self, epoch: u64, last_us: Option<u64>, now: Instant) {
        let mut playback = lock(&self.playback);
        if epoch != playback.epoch {
            return;
        }
        playback.end_us = Some(last_us.unwrap_or(0));
        playback.position_us = last_us.unwrap_or(0);
        if playback.looping && last_us.is_some() {
            let command = playback.restart(now);
            self.tell_reader(command);
        } else {
            playback.finished = true;
            playback.hold(now);
        }
    }

    /// The reader stopped for good: nothing more will play.
    pub(super) fn reader_gone(&self, now: Instant) {
        let mut playback = lock(&self.playback);
        playback.finished = true;
        playback.hold(now);
    }

    pub(super) fn state(&self) -> ReplayState {
        lock(&self.playback).state()
    }

    fn control(&self, control: ReplayControl, now: Instant) -> ReplayState {
        let mut playback = lock(&self.playback);
        if let Some(paused) = control.paused {
            playback.paused = paused;
            playback.hold(now);
        }
        if let Some(speed) = control.speed {
            playback.speed = speed;
            playback.clock.set_speed(now, speed.factor());
        }
        if let Some(position_ms) = control.position_ms {
            let command = playback.seek(position_ms.saturating_mul(1_000), now);
            self.tell_reader(command);
        }
        if let Some(looping) = control.looping {
            playback.looping = looping;
            // Looping asked for at the end: the end is where it starts again.
            if looping && playback.finished {
                let command = playback.restart(now);
                self.tell_reader(command);
            }
        }
        let state = playback.state();
        drop(playback);
        self.wake.notify_one();
        state
    }
}

/// Controls a running replay and reads where it stands.
#[derive(Debug, Clone)]
pub(crate) struct ReplayHandle {
    pub(super) shared: Arc<Shared>,
}

impl ReplayHandle {
    /// Where the replay stands.
    pub(crate) fn state(&self) -> ReplayState {
        self.shared.state()
    }

    /// Applies `control`; where the replay stands after.
    pub(crate) fn control(&self, control: ReplayControl) -> ReplayState {
        self.shared.control(control, Instant::now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    fn shared(source: &str) -> (Shared, std::sync::mpsc::Receiver<Command>) {
        let (commands, heard) = std::sync::mpsc::channel();
        let source = ReplaySource::parse(source).unwrap();
        (Shared::new(&source, 2_000, commands), heard)
    }

    fn datagram(epoch: u64, at_us: u64) -> Datagram {
        Datagram {
            epoch,
            at_us,
            items: Vec::new(),
        }
    }

    #[test]
    fn nothing_plays_before_the_network_starts_nor_while_paused() {
        let (shared, _) = shared("site/r?speed=2");
        let start = Instant::now();
        assert_eq!(shared.wait_for(&datagram(0, 0)), Wait::Hold);
        shared.set_running(true, start);
        assert_eq!(
            shared.wait_for(&datagram(0, 1_000_000)),
            Wait::Until(start + 500 * MS)
        );
        assert_eq!(shared.play(&datagram(0, 1_000_000), start), Played::NotYet);
        assert_eq!(
            shared.play(&datagram(0, 1_000_000), start + 500 * MS),
            Played::Yes
        );
        let paused = ReplayControl {
            paused: Some(true),
            ..ReplayControl::default()
        };
        let state = shared.control(paused, start + 600 * MS);
        assert!(state.paused);
        assert_eq!((state.position_ms, state.datagrams), (1_000, 1));
        assert_eq!(shared.wait_for(&datagram(0, 1_300_000)), Wait::Hold);
        let resumed = ReplayControl {
            paused: Some(false),
            ..ReplayControl::default()
        };
        shared.control(resumed, start + 10_000 * MS);
        // The play head stood at 1.2 s: 0.1 s more at twice the pace.
        assert_eq!(
            shared.wait_for(&datagram(0, 1_300_000)),
            Wait::Until(start + 10_050 * MS)
        );
    }

    #[test]
    fn a_seek_drops_what_was_read_before_it_and_tells_the_reader() {
        let (shared, heard) = shared("site/r");
        let start = Instant::now();
        shared.set_running(true, start);
        let seek = ReplayControl {
            position_ms: Some(1_500),
            ..ReplayControl::default()
        };
        let state = shared.control(seek, start);
        assert_eq!(state.position_ms, 1_500);
        assert_eq!(
            heard.try_recv(),
            Ok(Command::Seek {
                epoch: 1,
                to_us: 1_500_000
            })
        );
        assert_eq!(shared.wait_for(&datagram(0, 1_600_000)), Wait::Stale);
        assert_eq!(
            shared.wait_for(&datagram(1, 1_600_000)),
            Wait::Until(start + 100 * MS)
        );
    }

    #[test]
    fn the_end_finishes_or_starts_again() {
        let (shared, heard) = shared("site/r?loop=1");
        let start = Instant::now();
        shared.set_running(true, start);
        shared.at_end(0, Some(1_234_000), start);
        let state = shared.state();
        assert_eq!(
            (state.loops, state.duration_ms, state.position_ms),
            (1, 1_234, 0)
        );
        assert_eq!(heard.try_recv(), Ok(Command::Seek { epoch: 1, to_us: 0 }));
        // The next loop starts after the gap.
        assert_eq!(
            shared.wait_for(&datagram(1, 0)),
            Wait::Until(start + LOOP_GAP)
        );
        let no_loop = ReplayControl {
            looping: Some(false),
            ..ReplayControl::default()
        };
        shared.control(no_loop, start);
        shared.at_end(0, Some(1_234_000), start);
        assert!(
            !shared.state().finished,
            "an end of an old seek is not the end"
        );
        shared.at_end(1, Some(1_234_000), start);
        let state = shared.state();
        assert!(state.finished);
        assert_eq!(state.position_ms, 1_234);
        // Past the end is the end.
        let far = ReplayControl {
            position_ms: Some(99_000),
            ..ReplayControl::default()
        };
        let state = shared.control(far, start);
        assert_eq!((state.position_ms, state.finished), (1_234, false));
    }

    #[test]
    fn a_new_speed_does_not_move_the_play_head() {
        let (shared, _) = shared("site/r");
        let start = Instant::now();
        shared.set_running(true, start);
        let faster = ReplayControl {
            speed: Some(ReplaySpeed::from_factor(4.0).unwrap()),
            ..ReplayControl::default()
        };
        let state = shared.control(faster, start + 1_000 * MS);
        assert_eq!(state.speed.factor(), 4.0);
        assert_eq!(
            shared.wait_for(&datagram(0, 2_000_000)),
            Wait::Until(start + 1_250 * MS)
        );
    }
}
