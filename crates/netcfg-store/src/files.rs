//! Paths inside the data directory, temporary files, and the file-system
//! steps that make a new file appear whole or not at all.

use std::{
    fs::{self, File},
    io,
    path::{Component, Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
};

use netcfg_model::ConfigName;

use crate::error::{ConflictKind, StoreError};

/// The extension of configuration files.
pub(crate) const EXTENSION: &str = "sqlite";
/// The directory of temporary files, inside the data directory. Its name
/// starts with `.`, which no configuration name can.
pub(crate) const TEMP_DIR: &str = ".tmp";
/// The directory of the configurations' log directories.
pub(crate) const LOGS_DIR: &str = "logs";

/// `<dir>/<name>.sqlite`, checked to be a plain child of `dir`.
pub(crate) fn config_path(dir: &Path, name: &ConfigName) -> Result<PathBuf, StoreError> {
    child(dir, &format!("{name}.{EXTENSION}"))
}

/// `<dir>/<file>`, refused unless `file` is one plain path component.
pub(crate) fn child(dir: &Path, file: &str) -> Result<PathBuf, StoreError> {
    let mut components = Path::new(file).components();
    match (components.next(), components.next()) {
        (Some(Component::Normal(_)), None) if !file.starts_with('.') => Ok(dir.join(file)),
        _ => Err(StoreError::invalid(
            "name",
            format!("{file:?} is not a plain file name"),
        )),
    }
}

/// The SQLite side files of a database file.
pub(crate) fn side_files(path: &Path) -> [PathBuf; 2] {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let mut shm = path.as_os_str().to_owned();
    shm.push("-shm");
    [PathBuf::from(wal), PathBuf::from(shm)]
}

/// A fresh path in the temporary directory.
pub(crate) fn temp_path(dir: &Path, label: &str) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    dir.join(TEMP_DIR).join(format!(
        "{label}-{}-{count}.{EXTENSION}",
        std::process::id()
    ))
}

/// Removes a database file and its side files, ignoring those that are absent.
pub(crate) fn remove_database(path: &Path) -> io::Result<()> {
    for file in side_files(path) {
        remove_if_present(&file)?;
    }
    remove_if_present(path)
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}

/// Syncs a directory, so that a name created, renamed or removed in it
/// survives a power cut.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir)
        .and_then(|handle| handle.sync_all())
        .map_err(|error| StoreError::file(format!("syncing {}", dir.display()), error))
}

/// Syncs a file's contents.
pub(crate) fn sync_file(path: &Path) -> Result<(), StoreError> {
    File::open(path)
        .and_then(|handle| handle.sync_all())
        .map_err(|error| StoreError::file(format!("syncing {}", path.display()), error))
}

/// Moves a finished temporary file (already synced with [`sync_file`]) to
/// `target` atomically, refusing to replace an existing file (a hard link
/// fails when the name exists), then removes the temporary name and syncs
/// the directory.
pub(crate) fn publish(temp: &Path, target: &Path, what: &str) -> Result<(), StoreError> {
    if !target.exists() {
        // Side files without their database are left over from a crash
        // during a deletion; SQLite must never pair them with a new file.
        for file in side_files(target) {
            remove_if_present(&file)
                .map_err(|error| StoreError::file("removing a stale side file", error))?;
        }
    }
    match fs::hard_link(temp, target) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            let _ = remove_database(temp);
            return Err(StoreError::conflict(
                ConflictKind::Taken,
                what,
                "a configuration with this name exists",
            ));
        }
        Err(error) => {
            let _ = remove_database(temp);
            return Err(StoreError::file(format!("publishing {what}"), error));
        }
    }
    remove_database(temp).map_err(|error| StoreError::file("removing a temporary file", error))?;
    if let Some(dir) = target.parent() {
        sync_dir(dir)?;
    }
    Ok(())
}

/// Removes a temporary database on every exit path.
#[derive(Debug)]
pub(crate) struct TempDatabase(pub(crate) PathBuf);

impl TempDatabase {
    /// A fresh, empty file in the temporary directory, for SQLite to fill
    /// (an empty file is an empty database). Created here rather than by
    /// SQLite so that a full or read-only data directory is reported as
    /// such: SQLite says only "unable to open database file".
    pub(crate) fn create(dir: &Path, label: &str) -> Result<Self, crate::StoreError> {
        let path = temp_path(dir, label);
        fs::File::create_new(&path).map_err(|error| {
            crate::StoreError::file("creating a file in the data directory", error)
        })?;
        Ok(Self(path))
    }
}

impl Drop for TempDatabase {
    fn drop(&mut self) {
        if let Err(error) = remove_database(&self.0) {
            log::warn!("could not remove {}: {error}", self.0.display());
        }
    }
}
