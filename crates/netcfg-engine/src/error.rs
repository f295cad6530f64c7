//! The engine's one error type.

use std::{io, path::PathBuf, time::Duration};

use netcfg_model::{ConfigName, DeviceActionName, SerialNumber};

use crate::protocol::{EncodeError, NackReason};
use crate::sim::UnknownScenario;

/// Everything an engine operation can fail with. The HTTP layer maps each
/// variant to a status in one place; the comment on each says which fits.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The configuration is not running (400 for commands).
    #[error("configuration `{0}` is not running")]
    NotRunning(ConfigName),
    /// The device is not in the running configuration, or is disabled (404).
    #[error("device {serial_number} is not in the running configuration `{configuration}`")]
    UnknownDevice {
        /// The configuration.
        configuration: ConfigName,
        /// The device.
        serial_number: SerialNumber,
    },
    /// The device did not answer in time (504 or 500 with this message).
    #[error("device {serial_number} did not answer {action} within {} ms", waited.as_millis())]
    DeviceTimeout {
        /// The device.
        serial_number: SerialNumber,
        /// What it was asked.
        action: DeviceActionName,
        /// How long the engine waited.
        waited: Duration,
    },
    /// The network interface device did not answer a step in time.
    #[error("the network of `{configuration}` did not answer {step} within {} ms", waited.as_millis())]
    NetworkTimeout {
        /// The configuration.
        configuration: ConfigName,
        /// What was asked (`ping`, `configuration push`, `start`, `resync`…).
        step: &'static str,
        /// How long the engine waited.
        waited: Duration,
    },
    /// The link to the network interface device is down.
    #[error("the link to the network of `{configuration}` is down: {reason}")]
    LinkDown {
        /// The configuration.
        configuration: ConfigName,
        /// Why it went down.
        reason: String,
    },
    /// The network refused a request.
    #[error("the network refused {what}: {reason}")]
    Refused {
        /// What was asked.
        what: String,
        /// Why it was refused.
        reason: NackReason,
    },
    /// The network answered with something that does not fit the request.
    #[error("unexpected answer to {what}: {answer}")]
    UnexpectedReply {
        /// What was asked.
        what: String,
        /// What came back.
        answer: String,
    },
    /// The instance is the server default and the engine has none.
    #[error("the configuration names no instance and the server has no default instance")]
    NoDefaultInstance,
    /// `sim:<scenario>` names an unknown scenario.
    #[error(transparent)]
    UnknownScenario(#[from] UnknownScenario),
    /// The serial port could not be opened.
    #[error("cannot open serial port {path}: {reason}")]
    SerialPort {
        /// The port's path.
        path: String,
        /// What the operating system said.
        reason: String,
    },
    /// A data stream's socket could not be opened.
    #[error("cannot open data stream `{stream}`: {source}")]
    StreamSocket {
        /// The stream's name.
        stream: String,
        /// The socket error.
        source: io::Error,
    },
    /// The log file of a start could not be created or written.
    #[error("cannot write log file {}: {source}", path.display())]
    LogFile {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// A message could not be encoded (a configuration too large for a frame).
    #[error("cannot encode a message for the network: {0}")]
    Encode(#[from] EncodeError),
    /// The running configuration does not replay a recording.
    #[error("configuration `{0}` is not a replay (its instance is not `replay:...`)")]
    NotReplaying(ConfigName),
    /// The recording a replay plays cannot be read.
    #[error("cannot replay {}: {reason}", path.display())]
    Replay {
        /// The recording's file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// An engine task failed (a bug, or the engine's runtime shut down).
    #[error("engine task failed: {0}")]
    Internal(String),
}
