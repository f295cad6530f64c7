//! Rendered lists kept between requests: the JSON of a configuration's
//! device list, under the store's generation of that configuration. A list
//! is served from here only while the generation is the one it was read
//! under, so any commit makes the next request read and render it again.

use std::{collections::HashMap, sync::Mutex};

use actix_web::web::Bytes;
use netcfg_model::ConfigName;

/// A rendered list: its JSON and how many items it holds.
#[derive(Debug, Clone)]
pub(crate) struct Rendered {
    pub(crate) json: Bytes,
    pub(crate) count: usize,
}

/// One rendered device list per configuration, the latest one read.
#[derive(Debug, Default)]
pub(crate) struct RenderCache {
    devices: Mutex<HashMap<ConfigName, (u64, Rendered)>>,
}

impl RenderCache {
    /// The device list of `name` rendered under `generation`, if kept.
    pub(crate) fn devices(&self, name: &ConfigName, generation: u64) -> Option<Rendered> {
        let entries = self
            .devices
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        entries
            .get(name)
            .filter(|(kept, _)| *kept == generation)
            .map(|(_, rendered)| rendered.clone())
    }

    /// Keeps the device list of `name` read under `generation`, replacing an
    /// older one.
    pub(crate) fn keep_devices(&self, name: ConfigName, generation: u64, rendered: Rendered) {
        let mut entries = self
            .devices
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let newer_kept = entries
            .get(&name)
            .is_some_and(|(kept, _)| *kept > generation);
        if !newer_kept {
            entries.insert(name, (generation, rendered));
        }
    }
}
