//! The handlers: one function per operation, shared by every version that
//! serves it. A handler reads the path, the body and the query, calls one
//! function of the service (`netcfg-service`) and renders its result: the
//! lifecycle of a configuration, the store and the engine are the
//! service's.

pub(crate) mod alert_rules;
pub(crate) mod cache;
pub(crate) mod commands;
pub(crate) mod devices;
pub(crate) mod events;
pub(crate) mod history;
pub(crate) mod interfaces;
pub(crate) mod limits;
pub(crate) mod logs;
pub(crate) mod max_tags;
pub(crate) mod misc;
pub(crate) mod nets;
pub(crate) mod notifications;
pub(crate) mod outputs;
pub(crate) mod pairs;
pub(crate) mod people;
pub(crate) mod recordings;
pub(crate) mod rf;
pub(crate) mod roles;
pub(crate) mod schedules;
pub(crate) mod settings;
pub(crate) mod single_sign_on;
pub(crate) mod site;
pub(crate) mod streams;
pub(crate) mod zones;

/// "1 device", "3 devices".
pub(crate) fn count(number: usize, noun: &str) -> String {
    if number == 1 {
        format!("1 {noun}")
    } else {
        format!("{number} {noun}s")
    }
}
