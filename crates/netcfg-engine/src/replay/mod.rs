//! A recording played as a network (decisions §15): a player on the device
//! end of an in-memory link answers the session as a network interface
//! device would and reports what the recording's CDP datagrams say, at the
//! recording's pace times the speed. The driver and the session run as for
//! any network: the replay's positions, zones and streams are its own
//! configuration's.
//!
//! - `reader`: the capture file, read on a thread of its own through a
//!   bounded channel, with a seek index;
//! - `clock`: when each datagram plays;
//! - `control`: pause, speed, seek, loop, and where the replay stands;
//! - `translate`: CDP items back into the wire protocol's reports;
//! - `player`: the device end of the link.

mod clock;
mod control;
mod player;
mod reader;
mod translate;

use std::{path::PathBuf, sync::Arc, time::Duration};

use netcfg_model::ReplaySource;

use crate::plan::ReplayPlan;
use tokio::{io::DuplexStream, runtime::Handle, task::JoinHandle};

pub(crate) use control::ReplayHandle;

use crate::error::EngineError;

/// Bytes the in-memory link buffers each way.
const LINK_BUFFER: usize = 64 * 1024;
/// How long the player sleeps when it has nothing timed to wait for (it
/// is woken by the link, the reader or a control long before).
const IDLE: Duration = Duration::from_secs(3_600);

/// For the replay's tests: one tag's position item, `x` mm along a line at
/// `units` of network time.
#[cfg(test)]
fn test_position(x: i32, units: u64) -> crate::cdp::Item {
    crate::cdp::Item::PositionV3(crate::cdp::PositionV3 {
        serial_number: netcfg_model::SerialNumber::from_u32(0x0105_0001),
        network_time: crate::cdp::ticks_from_units(units),
        x,
        y: 0,
        z: 0,
        quality: 1,
        anchor_count: 4,
        flags: 0,
        smoothing: 0,
    })
}

/// A replay the engine started for a `replay:` instance.
#[derive(Debug)]
pub(crate) struct ReplayRun {
    pub(crate) handle: ReplayHandle,
    pub(crate) task: JoinHandle<()>,
}

/// Opens the recording of `plan` and starts its player on `runtime`, at
/// the speed and looping `source` asks for; the host's end of the link.
///
/// # Errors
/// `EngineError::Replay`: no recording was found for the instance, or its
/// file cannot be opened or is not a pcap capture.
pub(crate) async fn start(
    source: &ReplaySource,
    plan: Option<&ReplayPlan>,
    runtime: &Handle,
) -> Result<(DuplexStream, ReplayRun), EngineError> {
    let Some(plan) = plan else {
        return Err(EngineError::Replay {
            path: PathBuf::from(format!("replay:{source}")),
            reason: "no recording file was found for it".to_owned(),
        });
    };
    let feed = reader::open(plan.path.clone()).await?;
    let shared = Arc::new(control::Shared::new(
        source,
        plan.duration_ms,
        feed.commands,
    ));
    let (host_end, device_end) = tokio::io::duplex(LINK_BUFFER);
    let task = runtime.spawn(player::serve(device_end, feed.records, Arc::clone(&shared)));
    Ok((
        host_end,
        ReplayRun {
            handle: ReplayHandle { shared },
            task,
        },
    ))
}
