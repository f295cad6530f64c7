//! The engine's integration tests, one binary (each binary links the crate
//! again; on two cores that is what a test run spends most on).

mod support;

mod cdp;
mod cdp_py;
mod codec;
mod driver_sim;
mod replay;
mod streams;
mod zones;
