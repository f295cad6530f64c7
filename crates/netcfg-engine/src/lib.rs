//! The netcfg engine: it runs configurations on their networks.
//!
//! - [`Engine`]: the API the HTTP layer holds as `Arc<dyn Engine>`;
//!   [`NetcfgEngine`] implements it (and `MockEngine`, with the `mock`
//!   feature, stands in for it in tests).
//! - [`NetworkPlan`]: the plain value a start runs from.
//! - [`protocol`]: the framed, checksummed, versioned wire protocol between
//!   the manager and the network interface device (a pure codec).
//! - [`driver`]: requests and replies over any async byte stream.
//! - [`sim`]: the device simulator, served on a pseudo-terminal for `sim`.
//! - [`ReplayPlan`]: the recording a `replay:` instance plays; a player
//!   answers as the device on an in-memory link and reports what the
//!   recording's CDP datagrams say, at its pace times the speed.
//! - [`cdp`]: the vendor's data protocol (CDP) of the data streams (a pure codec).
//! - [`identity`]: the serial number in the CDP header of each configuration.
//!
//! ```no_run
//! # async fn example() -> Result<(), netcfg_engine::EngineError> {
//! use std::sync::Arc;
//! use netcfg_engine::{Engine, EngineOptions, NetcfgEngine, NetworkPlan};
//! let engine: Arc<dyn Engine> =
//!     Arc::new(NetcfgEngine::new(EngineOptions::default(), tokio::runtime::Handle::current()));
//! let plan = NetworkPlan::new("site".parse().unwrap(), "sim".parse().unwrap(), "/tmp/logs".into());
//! engine.start(plan).await?;
//! # Ok(()) }
//! ```

mod api;
pub mod cdp;
mod counters;
pub mod driver;
mod engine;
mod error;
#[doc(hidden)]
pub mod fixture;
pub mod identity;
mod journal;
mod link;
mod live;
mod locator;
mod plan;
pub mod protocol;
mod replay;
mod session;
pub mod sim;
mod streams;

#[cfg(any(test, feature = "mock"))]
pub use api::MockEngine;
pub use api::{
    BeaconCounts, DatagramSink, DeviceChange, DeviceCommandResult, DeviceLink, Engine,
    EngineCommand, EngineEvent, EngineFuture, EngineNotification, LiveEvent, NetworkChange,
    NetworkStatus, StartOutcome, StopOutcome, ZoneEvent,
};
pub use counters::{EngineCounters, counters};
pub use engine::{EngineOptions, NetcfgEngine};
pub use error::EngineError;
pub use plan::{NetworkPlan, PlanChange, ReplayPlan};
