//! Saved-state files of netcfg configurations: one SQLite database per
//! configuration, in a data directory.
//!
//! - [`Store`]: the data directory and the lifecycle of configurations
//!   (list, create, get, update, copy, delete, download, upload, logs).
//! - [`Net`]: one configuration's resources (devices, interfaces, pairs,
//!   streams, roles, RF settings, position limits, settings, group image,
//!   network mode, magnetometer calibration, notifications, cached data).
//! - [`StoreError`]: every failure, one variant per answer the HTTP layer
//!   gives.
//!
//! A change is acknowledged (its call returns `Ok`) only after SQLite
//! committed it to the write-ahead log and the log was synced to the disk,
//! so it survives a crash of the process and a power cut. Concurrent changes to one
//! configuration run one after the other on its writer thread, grouped into
//! shared commits; none is lost.
//!
//! ```
//! # fn main() -> Result<(), netcfg_store::StoreError> {
//! # let dir = std::env::temp_dir().join(format!("netcfg-store-doc-{}", std::process::id()));
//! use netcfg_model::{ConfigName, Instance, NetworkMode};
//! use netcfg_store::Store;
//!
//! let store = Store::open(&dir)?;
//! let name: ConfigName = "site-a".parse().unwrap();
//! let configuration = store.create(&name, Instance::ServerDefault)?;
//! assert_eq!(configuration.network_mode, NetworkMode::MultiTime);
//! let net = store.net(&name)?;
//! assert_eq!(net.roles()?.len(), 4);
//! # drop(net);
//! # store.delete(&name)?;
//! # drop(store);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok(())
//! # }
//! ```

mod counters;
mod database;
mod error;
mod files;
mod history;
mod history_words;
mod logs;
mod net;
mod people;
mod recordings;
mod retention;
mod schema;
mod secrets;
mod sql;
mod stamps;
mod store;
mod surveys;
mod transfer;
mod wal_room;
mod wal_sync;

pub use counters::{StoreCounters, counters};
pub use error::{BadUpload, ConflictKind, IoFault, Missing, StoreError};
pub use net::{
    ACTIVE_RF_SETTING_KEY, DevicePatchOutcome, MAX_ZONES, Net, NewNotification, PairOutcome,
    SettingDeletion, SettingWrite, StreamDeletion,
};
pub use people::{PEOPLE_DIR, PEOPLE_FILE, People, Signature, StoredKey, StoredUser, UserChange};
pub use recordings::{RecordingUpload, RecordingWriter};
pub use retention::Retention;
pub use schema::{APPLICATION_ID, SCHEMA_VERSION};
pub use stamps::StampKind;
pub use store::{Store, StoreOptions};
pub use transfer::Upload;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_and_a_net_can_be_shared_between_threads() {
        fn shareable<T: Send + Sync>() {}
        shareable::<Store>();
        shareable::<Net>();
        shareable::<StoreError>();
    }
}
