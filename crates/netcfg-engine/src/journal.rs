//! A start's log file, the recent lines of each configuration, and the feed.
//!
//! The file is written by a thread of its own: a line is handed to it
//! through a channel, and the thread writes every line queued, then flushes
//! once the queue is empty (no sync per line). The engine's runtime never
//! waits for the disk; the ring of recent lines and the feed are updated at
//! once, as before. [`Journal::close`] resolves once every line given
//! before it is in the file.

use std::{
    collections::{HashMap, VecDeque},
    fs::{self, OpenOptions},
    future::Future,
    io::{BufWriter, Write},
    path::{Path, PathBuf},
    sync::{Arc, Mutex, mpsc},
};

use netcfg_model::{ConfigName, Level, SerialNumber};
use tokio::sync::{broadcast, oneshot};

use netcfg_model::time::clock::{utc_file_stamp, utc_timestamp, wall_clock_ms};

use crate::{
    api::{EngineEvent, EngineNotification},
    error::EngineError,
};

/// The recent log lines of every configuration, kept after a stop.
pub(crate) type Rings = Arc<Mutex<HashMap<ConfigName, VecDeque<String>>>>;

/// What the file's thread is given.
enum Entry {
    /// One line, without its line break.
    Line(String),
    /// Flush, answer, and stop.
    Close(oneshot::Sender<()>),
}

/// Where a running configuration writes what happens.
#[derive(Debug)]
pub(crate) struct Journal {
    configuration: ConfigName,
    path: PathBuf,
    /// The way to the file's thread; `None` once closed.
    file: Mutex<Option<mpsc::Sender<Entry>>>,
    events: broadcast::Sender<EngineEvent>,
    rings: Rings,
    ring_lines: usize,
}

/// The file's thread: writes every queued line, flushes when the queue is
/// empty, and stops when told to close (after a flush) or when the journal
/// is gone (after writing what was queued).
fn write_lines(writer: impl Write, entries: &mpsc::Receiver<Entry>, path: &Path) {
    let mut writer = BufWriter::new(writer);
    let report = |error: std::io::Error| {
        // A log write that fails must not stop the network.
        log::warn!("log file {} cannot be written: {error}", path.display());
    };
    while let Ok(first) = entries.recv() {
        let mut next = Some(first);
        while let Some(entry) = next {
            match entry {
                Entry::Line(line) => {
                    if let Err(error) = writer
                        .write_all(line.as_bytes())
                        .and_then(|()| writer.write_all(b"\n"))
                    {
                        report(error);
                    }
                }
                Entry::Close(closed) => {
                    if let Err(error) = writer.flush() {
                        report(error);
                    }
                    let _ = closed.send(());
                    return;
                }
            }
            next = entries.try_recv().ok();
        }
        if let Err(error) = writer.flush() {
            report(error);
        }
    }
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
        let stamp = utc_file_stamp(wall_clock_ms());
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
        Self::with_writer(configuration, path, file, events, rings, ring_lines).map_err(|source| {
            EngineError::LogFile {
                path: directory.to_owned(),
                source,
            }
        })
    }

    /// A journal whose lines go to `writer`, on a thread of its own.
    fn with_writer(
        configuration: &ConfigName,
        path: PathBuf,
        writer: impl Write + Send + 'static,
        events: broadcast::Sender<EngineEvent>,
        rings: Rings,
        ring_lines: usize,
    ) -> std::io::Result<Self> {
        let (lines, entries) = mpsc::channel();
        let thread_path = path.clone();
        std::thread::Builder::new()
            .name(format!("journal {configuration}"))
            .spawn(move || write_lines(writer, &entries, &thread_path))?;
        Ok(Self {
            configuration: configuration.clone(),
            path,
            file: Mutex::new(Some(lines)),
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
            utc_timestamp(wall_clock_ms()),
            level_word(level)
        );
        if let Ok(file) = self.file.lock()
            && let Some(lines) = file.as_ref()
        {
            // The thread only stops after a close, which takes the sender.
            let _ = lines.send(Entry::Line(line.clone()));
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
                timestamp_ms: wall_clock_ms(),
            }));
    }

    /// Closes the file; later lines go to the ring and the feed only. The
    /// future resolves once every earlier line is written and flushed; it
    /// waits without blocking its runtime.
    pub(crate) fn close(&self) -> impl Future<Output = ()> + Send + 'static {
        let lines = self.file.lock().ok().and_then(|mut file| file.take());
        let closed = lines.and_then(|lines| {
            let (done, closed) = oneshot::channel();
            lines.send(Entry::Close(done)).ok().map(|()| closed)
        });
        async move {
            if let Some(closed) = closed {
                // An error means the thread is gone; nothing is left to wait for.
                let _ = closed.await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Condvar;

    use netcfg_model::sync::lock;

    use super::*;

    /// Whether the gate is open, and what went through it.
    type Passage = Mutex<(bool, Vec<u8>)>;

    /// A writer that blocks in `write` until it is opened, and keeps what it
    /// was given.
    #[derive(Clone, Default)]
    struct Gate {
        state: Arc<(Passage, Condvar)>,
    }

    impl Gate {
        fn open(&self) {
            let (state, changed) = &*self.state;
            lock(state).0 = true;
            changed.notify_all();
        }

        fn text(&self) -> String {
            let state = lock(&self.state.0);
            String::from_utf8(state.1.clone()).unwrap()
        }
    }

    impl Write for Gate {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            let (state, changed) = &*self.state;
            let mut state = lock(state);
            while !state.0 {
                state = netcfg_model::sync::wait(changed, state);
            }
            state.1.extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_are_written_off_the_callers_thread_and_all_are_in_the_file_after_close() {
        let gate = Gate::default();
        let (events, mut feed) = broadcast::channel(64);
        let rings = Rings::default();
        let name: ConfigName = "site".parse().unwrap();
        let journal = Journal::with_writer(
            &name,
            PathBuf::from("site.log"),
            gate.clone(),
            events,
            Arc::clone(&rings),
            2,
        )
        .unwrap();
        // The file cannot be written yet; a line must not wait for it (this
        // would hang if it did). A line longer than the buffer forces a write.
        let long = "x".repeat(20_000);
        journal.line(Level::Information, "first");
        journal.line(Level::Warning, &long);
        journal.notify(Level::Error, "third".to_owned(), None);
        assert_eq!(gate.text(), "");
        // The ring and the feed have the lines at once.
        assert_eq!(rings.lock().unwrap()[&name].len(), 2);
        assert!(matches!(feed.try_recv(), Ok(EngineEvent::LogLine { .. })));

        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let closed = journal.close();
        gate.open();
        runtime.block_on(closed);
        let text = gate.text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[0].ends_with("INFO  first"));
        assert!(lines[1].ends_with(&format!("WARN  {long}")));
        assert!(lines[2].ends_with("ERROR third"));
        // After the close, lines reach the ring and the feed only.
        journal.line(Level::Information, "late");
        assert_eq!(gate.text(), text);
        assert!(
            rings.lock().unwrap()[&name]
                .back()
                .unwrap()
                .ends_with("late")
        );
    }
}
