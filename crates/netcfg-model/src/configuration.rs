//! Configurations ("nets") and the engine instance that runs them.

use crate::schema::fixed_schema;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use std::{fmt, str::FromStr};

use crate::{
    names::ConfigName, network_mode::NetworkMode, recording::ReplaySource,
    sim_parameters::SimParameters,
};

/// Which engine runs a configuration: `network_body.instance`.
///
/// ```
/// use netcfg_model::Instance;
/// assert_eq!("".parse::<Instance>().unwrap(), Instance::ServerDefault);
/// assert!(matches!("sim".parse::<Instance>().unwrap(), Instance::Simulator { scenario: None, .. }));
/// assert!(matches!("sim?toa_noise_mm=30".parse::<Instance>().unwrap(), Instance::Simulator { .. }));
/// assert!("sim?colour=red".parse::<Instance>().is_err());
/// assert!(matches!("sim:warehouse".parse::<Instance>().unwrap(), Instance::Simulator { scenario: Some(_), .. }));
/// assert!(matches!("/dev/ttyUSB0".parse::<Instance>().unwrap(), Instance::SerialPort(_)));
/// assert!("ttyUSB0".parse::<Instance>().is_err());
/// assert!(matches!("replay:site/night?speed=10".parse::<Instance>().unwrap(), Instance::Replay(_)));
/// ```
#[derive(
    Debug,
    Clone,
    PartialEq,
    Eq,
    Hash,
    Default,
    serde_with::SerializeDisplay,
    serde_with::DeserializeFromStr,
)]
pub enum Instance {
    /// The empty string: whatever the server is configured to use.
    #[default]
    ServerDefault,
    /// `sim` or `sim:<scenario>`: the built-in device simulator.
    Simulator {
        /// The named scenario, if any.
        scenario: Option<String>,
        /// The radio's parameters after `?` (empty when none are given).
        parameters: SimParameters,
    },
    /// The absolute path of the serial port of the network interface device.
    SerialPort(String),
    /// `replay:<net_name>/<recording>`: a recording played as if live.
    Replay(ReplaySource),
}

/// Text that names no engine instance.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not an instance: {reason}")]
pub struct InstanceError {
    text: String,
    reason: String,
}

impl Instance {
    /// Plain `sim`: the simulator with its defaults.
    pub fn simulator() -> Self {
        Self::Simulator {
            scenario: None,
            parameters: SimParameters::default(),
        }
    }
}

impl FromStr for Instance {
    type Err = InstanceError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let error = |reason: String| InstanceError {
            text: text.chars().take(80).collect(),
            reason,
        };
        if text.is_empty() {
            return Ok(Self::ServerDefault);
        }
        if text == "sim" || text.starts_with("sim:") || text.starts_with("sim?") {
            let (head, query) = match text.split_once('?') {
                Some((head, query)) => (head, Some(query)),
                None => (text, None),
            };
            let scenario = match head.strip_prefix("sim:") {
                None => None,
                Some(scenario) => {
                    let plain = scenario
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
                    if scenario.is_empty() || scenario.len() > 64 || !plain {
                        return Err(error(
                            "a scenario name has 1 to 64 characters of A-Z a-z 0-9 _ -".to_owned(),
                        ));
                    }
                    Some(scenario.to_owned())
                }
            };
            let parameters = match query {
                None => SimParameters::default(),
                Some(query) => {
                    SimParameters::parse(query).map_err(|problems| error(problems.join("; ")))?
                }
            };
            return Ok(Self::Simulator {
                scenario,
                parameters,
            });
        }
        if let Some(source) = text.strip_prefix("replay:") {
            return ReplaySource::parse(source).map(Self::Replay).map_err(error);
        }
        if !text.starts_with('/') {
            return Err(error(
                "give the absolute path of a serial port, `sim`, `sim:<scenario>`, `sim?<parameters>`, `replay:<net_name>/<recording>`, or an empty string".to_owned(),
            ));
        }
        if text.len() > 4096 || text.chars().any(char::is_control) {
            return Err(error(
                "a serial port path has at most 4096 bytes and no control characters".to_owned(),
            ));
        }
        Ok(Self::SerialPort(text.to_owned()))
    }
}

impl fmt::Display for Instance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ServerDefault => Ok(()),
            Self::Simulator {
                scenario,
                parameters,
            } => {
                f.write_str("sim")?;
                if let Some(scenario) = scenario {
                    write!(f, ":{scenario}")?;
                }
                if !parameters.is_empty() {
                    write!(f, "?{parameters}")?;
                }
                Ok(())
            }
            Self::SerialPort(path) => f.write_str(path),
            Self::Replay(source) => write!(f, "replay:{source}"),
        }
    }
}

fixed_schema!(Instance, {
    "type": "string",
    "maxLength": 4096,
    "pattern": "^(sim(:[A-Za-z0-9_-]{1,64})?(\\?((toa_noise_mm|nlos|nlos_bias_mm|range_mm|miss|seed)=[0-9.]{1,12}|survey_error=[0-9A-Fa-f:;-]{1,400})(&((toa_noise_mm|nlos|nlos_bias_mm|range_mm|miss|seed)=[0-9.]{1,12}|survey_error=[0-9A-Fa-f:;-]{1,400})){0,6})?|replay:[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}/[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}(\\?(speed=[0-9.]{1,12}|loop=[01])(&(speed=[0-9.]{1,12}|loop=[01]))?)?|/[^\\x00-\\x1f\\x7f-\\x9f]*)?$",
    "description": "The engine instance: the absolute path of the serial port of the network interface device, `sim` or `sim:<scenario>` for the built-in simulator, optionally with the radio's parameters (`sim?toa_noise_mm=30&nlos=0.05&nlos_bias_mm=500&range_mm=40000&miss=0.01&survey_error=SERIAL:DX:DY:DZ&seed=1`), `replay:<net_name>/<recording>` (optionally `?speed=0.1..50&loop=1`) to play a recording as if live, or an empty string for the server's default.",
    "examples": ["sim", "sim?toa_noise_mm=30&nlos=0.05", "/dev/ttyUSB0", "replay:site/night?speed=10", ""]
});

/// Whether a configuration's network is running.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RunState {
    /// Not running.
    #[default]
    Stopped,
    /// Running on its engine instance.
    Running,
}

/// A network configuration.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Configuration {
    /// The configuration's name, which is also its file's name.
    pub name: ConfigName,
    /// The engine instance that runs it.
    pub instance: Instance,
    /// Its operating mode.
    pub network_mode: NetworkMode,
    /// Whether it is running.
    pub state: RunState,
    /// 5.1 (absent in 5.0): true while the saved configuration holds a change
    /// that its running network takes only when it is restarted or reloaded
    /// (devices, interfaces, pairs, roles, streams, settings); names, zones
    /// and outputs are taken at once and never make it true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_needed: Option<bool>,
}

/// What `action_body` asks of a configuration.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(tag = "action", rename_all = "lowercase")]
pub enum ConfigurationAction {
    /// Duplicate the configuration under a new name.
    Copy {
        /// The name of the copy.
        name: ConfigName,
    },
    /// Delete the configuration.
    Delete,
    /// Start its network.
    Start,
    /// Stop its network.
    Stop,
    /// 5.1: stop its network, then start it from the saved configuration
    /// (start it when it was not running).
    Restart,
    /// 5.1: push the saved configuration to the running network.
    Reload,
}
