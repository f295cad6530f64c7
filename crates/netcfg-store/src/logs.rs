//! Each configuration's log directory: `<data_dir>/logs/<name>/`.

use std::{
    fs::{self, File},
    path::PathBuf,
};

use netcfg_model::{ConfigName, LogFileName};

use crate::{
    error::{Missing, StoreError},
    files::{self, LOGS_DIR},
    store::Store,
};

impl Store {
    /// The log directory of a configuration, created if needed. `NotFound`
    /// when the configuration does not exist.
    pub fn log_dir(&self, name: &ConfigName) -> Result<PathBuf, StoreError> {
        if !files::config_path(&self.dir, name)?.is_file() {
            return Err(StoreError::not_found(
                Missing::Configuration,
                format!("configuration {name}"),
            ));
        }
        let dir = files::child(&self.dir.join(LOGS_DIR), name)?;
        fs::create_dir_all(&dir)
            .map_err(|error| StoreError::file(format!("creating the logs of {name}"), error))?;
        Ok(dir)
    }

    /// The names of a configuration's log files (regular files only), sorted.
    pub fn log_files(&self, name: &ConfigName) -> Result<Vec<LogFileName>, StoreError> {
        let dir = self.log_dir(name)?;
        let entries = fs::read_dir(&dir)
            .map_err(|error| StoreError::file(format!("listing the logs of {name}"), error))?;
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry
                .map_err(|error| StoreError::file(format!("listing the logs of {name}"), error))?;
            let is_file = entry.file_type().is_ok_and(|kind| kind.is_file());
            if let (true, Some(file)) = (is_file, entry.file_name().to_str())
                && let Ok(file) = file.parse::<LogFileName>()
            {
                names.push(file);
            }
        }
        names.sort();
        Ok(names)
    }

    /// Opens one log file for reading. Only a regular file directly in the
    /// configuration's log directory is opened (not a link, not a directory).
    pub fn open_log(&self, name: &ConfigName, file: &LogFileName) -> Result<File, StoreError> {
        let path = files::child(&self.log_dir(name)?, file)?;
        let not_found =
            || StoreError::not_found(Missing::LogFile, format!("log file {file} of {name}"));
        match fs::symlink_metadata(&path) {
            Ok(metadata) if metadata.file_type().is_file() => File::open(&path)
                .map_err(|error| StoreError::file(format!("opening {}", path.display()), error)),
            _ => Err(not_found()),
        }
    }
}
