//! A device simulator: it plays a network interface device and the network
//! behind it, over any async byte stream (in practice a pseudo-terminal, so
//! the engine reaches it through its real serial code path).
//!
//! The simulated world holds every device of the configuration the engine
//! pushes, plus the extra devices of [`SimOptions::extra_devices`] (which the
//! configuration does not hold, so they show up as unconfigured devices).
//! Once started it reports status periodically, walks tags over the area
//! the anchors cover, reports what the anchors measured of each beacon
//! (arrival times or ranges, with the radio's errors: [`radio`]) and the
//! tags' sensor data at their roles' rates, answers every device action and
//! survey, and injects [`SimFault`]s on command. Reference tags (tags with a
//! configured position) stand still there.

mod motion;
pub mod radio;
mod truth;
mod world;

pub use truth::TruthBoard;

use std::{
    io,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use netcfg_model::SerialNumber;
use tokio::{
    io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt},
    sync::mpsc,
    time::MissedTickBehavior,
};

use crate::protocol::FrameDecoder;
use radio::RadioOptions;
use world::World;

/// How the simulator behaves.
#[derive(Debug, Clone, PartialEq)]
pub struct SimOptions {
    /// Devices the network hears that no configuration holds.
    pub extra_devices: Vec<SerialNumber>,
    /// How often every device reports its status (and extras are heard).
    pub status_period: Duration,
    /// How long after a device falls silent the network reports it lost.
    pub lost_after: Duration,
    /// The simulation step: reports due within a step are sent together.
    pub tick: Duration,
    /// The radio's error sources (the instance's `sim?...` parameters).
    pub radio: RadioOptions,
}

impl Default for SimOptions {
    fn default() -> Self {
        Self {
            extra_devices: Vec::new(),
            status_period: Duration::from_secs(1),
            lost_after: Duration::from_millis(500),
            tick: Duration::from_millis(10),
            radio: RadioOptions::default(),
        }
    }
}

/// A scenario name that the simulator does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown simulator scenario `{0}`: use default, strangers or quiet")]
pub struct UnknownScenario(pub String);

impl SimOptions {
    /// The scenarios `sim:<scenario>` names:
    /// - `default` (or plain `sim`): the configuration's devices, status every second;
    /// - `strangers`: also two devices the configuration does not hold
    ///   (`01:0D:F001`, `01:0D:F002`), heard every second;
    /// - `quiet`: status only every minute.
    ///
    /// # Errors
    /// Any other name.
    pub fn for_scenario(scenario: Option<&str>) -> Result<Self, UnknownScenario> {
        match scenario {
            None | Some("default") => Ok(Self::default()),
            Some("strangers") => Ok(Self {
                extra_devices: vec![
                    SerialNumber::from_u32(0x010D_F001),
                    SerialNumber::from_u32(0x010D_F002),
                ],
                ..Self::default()
            }),
            Some("quiet") => Ok(Self {
                status_period: Duration::from_secs(60),
                ..Self::default()
            }),
            Some(other) => Err(UnknownScenario(other.to_owned())),
        }
    }
}

/// A fault to inject into a running simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimFault {
    /// The device stops answering and reporting; the network reports it lost.
    Silence(SerialNumber),
    /// A silenced device comes back and joins again.
    Revive(SerialNumber),
    /// An anchor or seeder loses network time synchronisation (until a resync).
    LoseSync(SerialNumber),
    /// The link to the host drops: the simulator closes its end of the stream.
    DropLink,
}

/// Counters of what the simulator sent, for tests and benchmarks.
#[derive(Debug, Default)]
pub struct SimStats {
    positions: AtomicU64,
    frames: AtomicU64,
    commands: AtomicU64,
}

impl SimStats {
    /// Tag beacons measured and reported so far (each becomes a position
    /// once the engine solves it).
    pub fn positions(&self) -> u64 {
        self.positions.load(Ordering::Relaxed)
    }
    /// Frames written so far.
    pub fn frames(&self) -> u64 {
        self.frames.load(Ordering::Relaxed)
    }
    /// Device commands answered so far.
    pub fn commands(&self) -> u64 {
        self.commands.load(Ordering::Relaxed)
    }
}

/// Controls a simulator from outside: fault injection and counters.
#[derive(Debug, Clone)]
pub struct SimHandle {
    control: mpsc::UnboundedSender<SimFault>,
    stats: Arc<SimStats>,
    truth: TruthBoard,
}

impl SimHandle {
    /// Injects `fault`; false when the simulator has stopped.
    pub fn inject(&self, fault: SimFault) -> bool {
        self.control.send(fault).is_ok()
    }

    /// The simulator's counters.
    pub fn stats(&self) -> &SimStats {
        &self.stats
    }

    /// Where its tags truly were at their latest beacons (for the accuracy
    /// tally only).
    pub fn truth(&self) -> TruthBoard {
        self.truth.clone()
    }
}

/// Why [`Simulator::serve`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimExit {
    /// The host closed its end of the stream.
    HostClosed,
    /// A [`SimFault::DropLink`] was injected.
    LinkDropped,
}

/// The simulator: create it, take a [`SimHandle`], then [`serve`](Self::serve) a stream.
#[derive(Debug)]
pub struct Simulator {
    options: SimOptions,
    control: mpsc::UnboundedReceiver<SimFault>,
    handle: SimHandle,
}

impl Simulator {
    /// A simulator with `options`.
    pub fn new(options: SimOptions) -> Self {
        let (control_tx, control) = mpsc::unbounded_channel();
        Self {
            options,
            control,
            handle: SimHandle {
                control: control_tx,
                stats: Arc::new(SimStats::default()),
                truth: TruthBoard::default(),
            },
        }
    }

    /// A handle to inject faults and read counters.
    pub fn handle(&self) -> SimHandle {
        self.handle.clone()
    }

    /// Plays the network over `stream` until the host closes it or the
    /// link is dropped on purpose.
    ///
    /// # Errors
    /// A write to the stream failed for another reason than the host closing it.
    pub async fn serve<S>(self, mut stream: S) -> io::Result<SimExit>
    where
        S: AsyncRead + AsyncWrite + Unpin,
    {
        let Self {
            options,
            control,
            handle,
        } = self;
        let stats = Arc::clone(&handle.stats);
        let truth = handle.truth();
        // Only outside handles keep the control channel open.
        drop(handle);
        let mut control = Some(control);
        let mut world = World::new(options.clone(), truth);
        let mut decoder = FrameDecoder::new();
        let mut ticker = tokio::time::interval(options.tick);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Skip);
        let mut buffer = vec![0u8; 8_192];
        let mut out = world::Outbox::default();
        loop {
            tokio::select! {
                read = stream.read(&mut buffer) => match read {
                    // On a pseudo-terminal, a closed host end reads as an error (EIO).
                    Ok(0) | Err(_) => return Ok(SimExit::HostClosed),
                    Ok(read) => {
                        decoder.extend(&buffer[..read]);
                        while let Some(frame) = decoder.next_frame() {
                            // Damaged frames are dropped, as a device would.
                            if let Ok(frame) = frame {
                                world.handle(frame, &mut out);
                            }
                        }
                    }
                },
                _ = ticker.tick() => world.tick(&mut out),
                fault = async { match control.as_mut() {
                    Some(control) => control.recv().await,
                    None => std::future::pending().await,
                } } => match fault {
                    Some(SimFault::DropLink) => return Ok(SimExit::LinkDropped),
                    Some(fault) => world.inject(fault, &mut out),
                    None => control = None,
                },
            }
            if !out.bytes.is_empty() {
                stats.frames.fetch_add(out.frames, Ordering::Relaxed);
                stats.positions.fetch_add(out.positions, Ordering::Relaxed);
                stats.commands.fetch_add(out.commands, Ordering::Relaxed);
                let written = stream.write_all(&out.bytes).await;
                out.clear();
                match written {
                    Ok(()) => {}
                    Err(error) if error.raw_os_error() == Some(5) => {
                        return Ok(SimExit::HostClosed);
                    }
                    Err(error) => return Err(error),
                }
            }
        }
    }
}
