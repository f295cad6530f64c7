//! Rendered lists kept between requests: the JSON of a configuration's
//! device list, under the store's generation of that configuration. A list
//! is served from here only while the generation is the one it was read
//! under, so any commit makes the next request read and render it again.
//!
//! With each list it keeps the answers sent for it (the envelope around the
//! list and the answer's `ETag`, one per API version: `conditional::SentMemo`),
//! so a read of an unchanged list sends kept bytes, as a static file would be.
//!
//! The cache holds at most [`BUDGET_BYTES`], counting each list three times
//! (the list and its answer in both versions): past it, the lists used least
//! recently go. A deleted or renamed configuration's list goes at once.

use std::sync::{Arc, Mutex, MutexGuard};

use netcfg_model::sync::lock;

use actix_web::web::Bytes;
use lru::LruCache;
use netcfg_model::ConfigName;

use crate::etag::SentMemo;

/// The bytes the cache may hold: about thirty lists of a thousand devices,
/// each with its answer in both versions.
const BUDGET_BYTES: usize = 12 << 20;

/// A rendered list: its JSON, how many items it holds, and the answers sent
/// for it.
#[derive(Debug, Clone)]
pub(crate) struct Rendered {
    pub(crate) json: Bytes,
    pub(crate) count: usize,
    pub(crate) sent: Arc<SentMemo>,
}

impl Rendered {
    /// A list not sent yet.
    pub(crate) fn new(json: Bytes, count: usize) -> Self {
        Self {
            json,
            count,
            sent: Arc::default(),
        }
    }

    /// What the list takes in the budget: itself, and its answer in each
    /// of the two versions once sent (the envelope adds a few bytes).
    fn cost(&self) -> usize {
        self.json.len().saturating_mul(3)
    }
}

#[derive(Debug)]
struct Entry {
    generation: u64,
    rendered: Rendered,
}

/// The lists in order of use (`lru`: constant-time lookups and eviction of
/// the least recently used), and the bytes they hold.
#[derive(Debug)]
struct Entries {
    map: LruCache<ConfigName, Entry>,
    bytes: usize,
}

impl Default for Entries {
    fn default() -> Self {
        Self {
            // Bounded by bytes, not by count.
            map: LruCache::unbounded(),
            bytes: 0,
        }
    }
}

impl Entries {
    fn remove(&mut self, name: &ConfigName) {
        if let Some(entry) = self.map.pop(name) {
            self.bytes -= entry.rendered.cost();
        }
    }

    /// Removes the least recently used entries until the rest fit `budget`.
    fn shrink_to(&mut self, budget: usize) {
        while self.bytes > budget {
            let Some((_, entry)) = self.map.pop_lru() else {
                return;
            };
            self.bytes -= entry.rendered.cost();
        }
    }
}

/// One rendered device list per configuration, the latest one read.
#[derive(Debug)]
pub(crate) struct RenderCache {
    budget: usize,
    devices: Mutex<Entries>,
}

impl Default for RenderCache {
    fn default() -> Self {
        Self::with_budget(BUDGET_BYTES)
    }
}

impl RenderCache {
    fn with_budget(budget: usize) -> Self {
        Self {
            budget,
            devices: Mutex::default(),
        }
    }

    fn entries(&self) -> MutexGuard<'_, Entries> {
        lock(&self.devices)
    }

    /// The device list of `name` rendered under `generation`, if kept.
    pub(crate) fn devices(&self, name: &ConfigName, generation: u64) -> Option<Rendered> {
        let mut entries = self.entries();
        let entry = entries
            .map
            .get(name)
            .filter(|entry| entry.generation == generation)?;
        Some(entry.rendered.clone())
    }

    /// Keeps the device list of `name` read under `generation`, replacing an
    /// older one. A list larger than the whole budget is not kept.
    pub(crate) fn keep_devices(&self, name: ConfigName, generation: u64, rendered: Rendered) {
        let mut entries = self.entries();
        if entries
            .map
            .peek(&name)
            .is_some_and(|entry| entry.generation > generation)
        {
            return;
        }
        entries.remove(&name);
        let size = rendered.cost();
        if size > self.budget {
            return;
        }
        entries.shrink_to(self.budget - size);
        entries.bytes += size;
        entries.map.put(
            name,
            Entry {
                generation,
                rendered,
            },
        );
    }

    /// Drops what is kept for `name` (deleted or renamed).
    pub(crate) fn forget(&self, name: &ConfigName) {
        self.entries().remove(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list that costs `cost` bytes of the budget.
    fn list(cost: usize) -> Rendered {
        Rendered::new(Bytes::from(vec![b' '; cost / 3]), 0)
    }

    fn name(text: &str) -> ConfigName {
        text.parse().unwrap()
    }

    fn kept(cache: &RenderCache) -> Vec<String> {
        let mut names: Vec<String> = cache
            .entries()
            .map
            .iter()
            .map(|(name, _)| name.to_string())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn serves_only_the_generation_it_was_read_under() {
        let cache = RenderCache::with_budget(300);
        cache.keep_devices(name("a"), 7, list(30));
        assert!(cache.devices(&name("a"), 7).is_some());
        assert!(cache.devices(&name("a"), 8).is_none());
        // An older read never replaces a newer list.
        cache.keep_devices(name("a"), 6, list(180));
        assert_eq!(cache.devices(&name("a"), 7).unwrap().json.len(), 10);
    }

    #[test]
    fn past_the_budget_the_least_recently_used_lists_go() {
        let cache = RenderCache::with_budget(300);
        cache.keep_devices(name("a"), 1, list(120));
        cache.keep_devices(name("b"), 1, list(120));
        assert!(cache.devices(&name("a"), 1).is_some());
        cache.keep_devices(name("c"), 1, list(120));
        assert_eq!(kept(&cache), ["a", "c"]);
        assert_eq!(cache.entries().bytes, 240);

        // Replacing a list counts its new size only.
        cache.keep_devices(name("c"), 2, list(180));
        assert_eq!(kept(&cache), ["a", "c"]);
        assert_eq!(cache.entries().bytes, 300);

        // A list larger than the budget is not kept, and evicts nothing.
        cache.keep_devices(name("d"), 1, list(303));
        assert_eq!(kept(&cache), ["a", "c"]);
    }

    #[test]
    fn forgetting_frees_the_budget() {
        let cache = RenderCache::with_budget(300);
        cache.keep_devices(name("a"), 1, list(210));
        cache.forget(&name("a"));
        cache.forget(&name("never-kept"));
        assert_eq!(cache.entries().bytes, 0);
        assert!(cache.devices(&name("a"), 1).is_none());
    }
}
