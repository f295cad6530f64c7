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

pub(crate) fn remove_if_present(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}

/// Writes `bytes` as the file `path` in `dir` (a directory of the data
/// directory `data_dir`, created if missing) so that a crash leaves the
/// old file or the new one whole: written to the temporary directory,
/// synced, renamed over `path`, the directory synced. `private` files are
/// readable by their owner only. `what` names it in an error.
pub(crate) fn replace_file(
    data_dir: &Path,
    dir: &Path,
    path: &Path,
    bytes: &[u8],
    private: bool,
    what: &str,
) -> Result<(), StoreError> {
    use std::io::Write as _;
    fs::create_dir_all(dir).map_err(|error| StoreError::file(what, error))?;
    // Named by the directory and the file: files of one name live in
    // several directories (secrets/site.json, surveys/site.json).
    let label = |path: &Path| {
        path.file_name()
            .map_or_else(String::new, |name| name.to_string_lossy().into_owned())
    };
    // And by a number of its own: two writers of one file never share
    // a temporary one (the last rename wins, whole).
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let write = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let temp = data_dir.join(TEMP_DIR).join(format!(
        "{}-{}-{}-{write}",
        label(dir),
        label(path),
        std::process::id()
    ));
    let written = (|| {
        let mut options = fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        if private {
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        }
        let mut file = options.open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if let Err(error) = written {
        let _ = fs::remove_file(&temp);
        return Err(StoreError::file(what, error));
    }
    sync_dir(dir)
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
