//! A start's log file, the recent lines of each configuration, and the feed.

use std::{
    collections::{HashMap, VecDeque},
    fs::{self, File, OpenOptions},
    io::{BufWriter, Write},
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
};

use netcfg_model::{ConfigName, Level, SerialNumber};
use tokio::sync::broadcast;

use crate::{
    api::{EngineEvent, EngineNotification},
    error::EngineError,
    util::{file_stamp, iso_timestamp, now_ms},
};

/// The recent log lines of every configuration, kept after a stop.
pub(crate) type Rings = Arc<Mutex<HashMap<ConfigName, VecDeque<String>>>>;

/// Where a running configuration writes what happens.
#[derive(Debug)]
pub(crate) struct Journal {
    configuration: ConfigName,
    path: PathBuf,
    file: Mutex<Option<BufWriter<File>>>,
    events: broadcast::Sender<EngineEvent>,
    rings: Rings,
    ring_lines: usize,
}

fn level_word(level: Level) -> &'static str {
    match level {
        Level::Error => "ERROR",
        Level::Warning => "WARN",
        Level::Information => "INFO",
        Level::Debug => "DEBUG",
    }
}

impl Journal {
    /// Creates this start's log file `<configuration>_<UTC stamp>[_n].log` in `directory`.
    pub(crate) fn create(
        configuration: &ConfigName,
        directory: &Path,
        events: broadcast::Sender<EngineEvent>,
        rings: Rings,
        ring_lines: usize,
    ) -> Result<Self, EngineError> {
        let fail = |path: &Path, source| EngineError::LogFile {
            path: path.to_owned(),
            source,
        };
        fs::create_dir_all(directory).map_err(|source| fail(directory, source))?;
        let stamp = file_stamp(now_ms());
        let mut attempt = 0u32;
        let (path, file) = loop {
            let name = if attempt == 0 {
                format!("{configuration}_{stamp}.log")
            } else {
                format!("{configuration}_{stamp}_{attempt}.log")
            };
            let path = directory.join(name);
            match OpenOptions::new().write(true).create_new(true).open(&path) {
                Ok(file) => break (path, file),
                Err(error)
                    if error.kind() == std::io::ErrorKind::AlreadyExists && attempt < 1_000 =>
                {
                    attempt += 1;
                }
                Err(error) => return Err(fail(&path, error)),
            }
        };
        Ok(Self {
            configuration: configuration.clone(),
            path,
            file: Mutex::new(Some(BufWriter::new(file))),
            events,
            rings,
            ring_lines,
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Writes a line to the file, the recent lines and the feed.
    pub(crate) fn line(&self, level: Level, text: &str) {
        let line = format!(
            "{} {:<5} {text}",
            iso_timestamp(now_ms()),
            level_word(level)
        );
        if let Ok(mut file) = self.file.lock()
            && let Some(writer) = file.as_mut()
        {
            // A log write that fails must not stop the network; it is
            // reported through the feed instead.
            if let Err(error) = writeln!(writer, "{line}").and_then(|()| writer.flush()) {
                log::warn!(
                    "log file {} cannot be written: {error}",
                    self.path.display()
                );
            }
        }
        if let Ok(mut rings) = self.rings.lock() {
            let ring = rings.entry(self.configuration.clone()).or_default();
            if ring.len() >= self.ring_lines {
                ring.pop_front();
            }
            ring.push_back(line.clone());
        }
        // Nobody listening is fine.
        let _ = self.events.send(EngineEvent::LogLine {
            configuration: self.configuration.clone(),
            line,
        });
    }

    /// Raises a notification: a log line and a feed item.
    pub(crate) fn notify(
        &self,
        level: Level,
        message: String,
        serial_number: Option<SerialNumber>,
    ) {
        self.line(level, &message);
        let _ = self
            .events
            .send(EngineEvent::Notification(EngineNotification {
                configuration: self.configuration.clone(),
                level,
                message,
                serial_number,
                timestamp_ms: now_ms(),
            }));
    }

    /// Flushes and closes the file; later lines go to the feed only.
    pub(crate) fn close(&self) {
        if let Ok(mut file) = self.file.lock()
            && let Some(mut writer) = file.take()
        {
            let _ = writer.flush();
        }
    }
}
