//! Recordings and replays (decisions §15): a running configuration's
//! datagrams to a capture file, written by a thread of each recording's
//! own (`writer`); the replay's controls.

use std::{
    collections::HashMap,
    io::Read as _,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use netcfg_engine::DatagramSink;
use netcfg_model::{
    ConfigName, Recording, RecordingEnd, RecordingName, ReplayControl, ReplayState,
};
use netcfg_store::{RecordingUpload, Store, StoreError};
use tokio::sync::mpsc as async_mpsc;

use self::writer::{Active, FREE_CHECK_BYTES, Writer};
use crate::{Service, ServiceError, live::wall_clock_ms};
use netcfg_model::sync::lock;

mod writer;

pub use writer::RECORDING_PENDING_BYTES;

/// The least room a recording starts with: a few datagrams.
const MIN_ROOM: u64 = 4 << 10;
/// A download is read in pieces of this size.
const DOWNLOAD_CHUNK: usize = 256 << 10;

/// How large recordings may grow (the server's settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordingLimits {
    /// One recording, bytes.
    pub per_recording: u64,
    /// Every recording of every configuration together, bytes.
    pub total: u64,
    /// A recording stops when the disk has less than this free, bytes.
    pub keep_free: u64,
}

impl Default for RecordingLimits {
    fn default() -> Self {
        Self {
            per_recording: 1 << 30,
            total: 10 << 30,
            keep_free: 256 << 20,
        }
    }
}

/// What a recording is asked for (`recording_post_body`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordingRequest {
    /// Its name; the start's UTC time when absent.
    pub name: Option<RecordingName>,
    /// How long it records, seconds; until stopped when absent.
    pub duration_s: Option<u32>,
}

/// The recordings being made, and what all of them use.
#[derive(Debug, Default)]
pub(crate) struct Recorders {
    active: Mutex<HashMap<(ConfigName, RecordingName), Arc<Active>>>,
    limits: Mutex<RecordingLimits>,
    /// Bytes of every recording, once measured (None until then).
    used: Mutex<Option<Arc<AtomicU64>>>,
}

/// `2026-11-26T10-43-00Z`: a start's UTC time as a recording's name.
fn default_name(ms: u64) -> RecordingName {
    let text = netcfg_model::utc_text(i64::try_from(ms).unwrap_or(i64::MAX));
    // "2026-11-26 10:43:00 UTC"
    let name: String = text
        .trim_end_matches(" UTC")
        .chars()
        .map(|c| match c {
            ' ' => 'T',
            ':' => '-',
            other => other,
        })
        .chain(std::iter::once('Z'))
        .collect();
    name.parse()
        .unwrap_or_else(|_| format!("recording-{ms}").parse().expect("a plain name"))
}

impl Service {
    /// Sets how large recordings may grow; recordings started after use it.
    pub fn set_recording_limits(&self, limits: RecordingLimits) {
        *lock(&self.inner.recorders.limits) = limits;
    }

    /// Bytes of every recording, measured once, then counted.
    async fn recording_budget(&self) -> Result<Arc<AtomicU64>, ServiceError> {
        if let Some(used) = lock(&self.inner.recorders.used).clone() {
            return Ok(used);
        }
        let measured = self.blocking(|store| store.recordings_size()).await?;
        Ok(Arc::clone(
            lock(&self.inner.recorders.used)
                .get_or_insert_with(|| Arc::new(AtomicU64::new(measured))),
        ))
    }

    /// Starts recording the running configuration `net`'s data streams.
    ///
    /// # Errors
    /// `Stopped` when it does not run; `Conflict` when the name is taken
    /// (`Taken`) or the disk or the total limit leaves no room (`NoRoom`).
    pub async fn start_recording(
        &self,
        net: &ConfigName,
        request: RecordingRequest,
    ) -> Result<Recording, ServiceError> {
        self.require_running(net, "record it").await?;
        let started_ms = wall_clock_ms();
        let name = request.name.unwrap_or_else(|| default_name(started_ms));
        let limits = *lock(&self.inner.recorders.limits);
        let used = self.recording_budget().await?;
        if used.load(Ordering::Relaxed) + MIN_ROOM > limits.total {
            return Err(no_room(format!(
                "the recordings use {} of their {} bytes: delete some first",
                used.load(Ordering::Relaxed),
                limits.total
            )));
        }
        let (net_name, file_name) = (net.clone(), name.clone());
        let (file, free) = self
            .blocking(move |store| {
                let free = store.free_bytes()?;
                // The writer's own test: a recording that would stop at once
                // does not start.
                if free < limits.keep_free + FREE_CHECK_BYTES {
                    return Ok((None, free));
                }
                Ok((
                    Some(store.create_recording(&net_name, &file_name, started_ms)?),
                    free,
                ))
            })
            .await?;
        let Some(file) = file else {
            return Err(no_room(format!(
                "the disk has {free} bytes free, too little above the {} a recording leaves free",
                limits.keep_free
            )));
        };
        let recording = file.recording().clone();
        // Its header counts too.
        used.fetch_add(recording.size, Ordering::Relaxed);
        let active = Arc::new(Active::new(recording.clone()));
        let key = (net.clone(), name.clone());
        lock(&self.inner.recorders.active).insert(key.clone(), Arc::clone(&active));
        let writer = Writer {
            active: Arc::clone(&active),
            file,
            store: Arc::clone(self.store()),
            limits,
            used,
            deadline: request
                .duration_s
                .map(|seconds| Instant::now() + Duration::from_secs(u64::from(seconds))),
            next_free_check: 0,
        };
        self.spawn_writer(key, writer);
        if let Err(error) = self
            .engine()
            .record(net, Arc::clone(&active) as Arc<dyn DatagramSink>)
        {
            // It stopped meanwhile: the recording ends empty.
            active.ask_to_stop(RecordingEnd::NetworkStopped);
            return Err(error.into());
        }
        Ok(recording)
    }

    fn spawn_writer(&self, key: (ConfigName, RecordingName), writer: Writer) {
        let inner = Arc::clone(&self.inner);
        let spawned = std::thread::Builder::new()
            .name(format!("recording {}", key.1))
            .spawn(move || {
                let name = format!("{} of {}", key.1, key.0);
                let active = Arc::clone(&writer.active);
                writer.run(&name);
                // Gone from the list once its summary is on the disk.
                lock(&inner.recorders.active).remove(&key);
                drop(active);
            });
        if let Err(error) = spawned {
            log::error!("cannot start a recording's writer: {error}");
        }
    }

    fn active_recording(&self, net: &ConfigName, name: &RecordingName) -> Option<Arc<Active>> {
        lock(&self.inner.recorders.active)
            .get(&(net.clone(), name.clone()))
            .cloned()
    }

    fn active_names(&self, net: &ConfigName) -> Vec<(RecordingName, Recording)> {
        lock(&self.inner.recorders.active)
            .iter()
            .filter(|((of, _), _)| of == net)
            .map(|((_, name), active)| (name.clone(), lock(&active.now).clone()))
            .collect()
    }

    /// Every recording of `net`, by name, the active ones as they are now.
    pub async fn recordings(&self, net: &ConfigName) -> Result<Vec<Recording>, ServiceError> {
        self.require_net(net).await?;
        let active = self.active_names(net);
        let names: Vec<RecordingName> = active.iter().map(|(name, _)| name.clone()).collect();
        let net_name = net.clone();
        let mut recordings = self
            .blocking(move |store| store.recordings(&net_name, &names))
            .await?;
        recordings.extend(active.into_iter().map(|(_, recording)| recording));
        recordings.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(recordings)
    }

    /// One recording of `net`.
    pub async fn recording(
        &self,
        net: &ConfigName,
        name: &RecordingName,
    ) -> Result<Recording, ServiceError> {
        self.require_net(net).await?;
        if let Some(active) = self.active_recording(net, name) {
            return Ok(lock(&active.now).clone());
        }
        let (net, name) = (net.clone(), name.clone());
        self.blocking(move |store| store.recording(&net, &name))
            .await
    }

    /// Stops an active recording (its file kept, returned as it ended) or
    /// deletes a finished one (`None`).
    pub async fn delete_recording(
        &self,
        net: &ConfigName,
        name: &RecordingName,
    ) -> Result<Option<Recording>, ServiceError> {
        self.require_net(net).await?;
        if let Some(active) = self.active_recording(net, name) {
            active.ask_to_stop(RecordingEnd::Stopped);
            let mut done = active.done.subscribe();
            let finished = done
                .wait_for(Option::is_some)
                .await
                .map_err(|error| ServiceError::Worker(error.to_string()))?
                .clone();
            return match finished {
                Some(Ok(recording)) => Ok(Some(recording)),
                Some(Err(error)) => Err(ServiceError::Worker(error)),
                None => Err(ServiceError::Worker("the recording did not end".to_owned())),
            };
        }
        let (net_name, file_name) = (net.clone(), name.clone());
        let size = self
            .blocking(move |store| {
                let size = store.recording(&net_name, &file_name)?.size;
                store.delete_recording(&net_name, &file_name)?;
                Ok(size)
            })
            .await?;
        if let Some(used) = lock(&self.inner.recorders.used).as_ref() {
            let _ = used.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |now| {
                Some(now.saturating_sub(size))
            });
        }
        Ok(None)
    }

    /// A recording's capture file in pieces, read on a blocking thread as
    /// the receiver takes them; with its length.
    pub async fn download_recording(
        &self,
        net: &ConfigName,
        name: &RecordingName,
    ) -> Result<(u64, async_mpsc::Receiver<std::io::Result<Vec<u8>>>), ServiceError> {
        self.require_net(net).await?;
        let (net, name) = (net.clone(), name.clone());
        let (file, length) = self
            .blocking(move |store| store.open_recording(&net, &name))
            .await?;
        let (sender, receiver) = async_mpsc::channel(4);
        tokio::task::spawn_blocking(move || {
            // The length said now is what is sent, even if an active
            // recording grows meanwhile.
            let mut reader = file.take(length);
            loop {
                let mut chunk = vec![0u8; DOWNLOAD_CHUNK];
                match reader.read(&mut chunk) {
                    Ok(0) => return,
                    Ok(read) => {
                        chunk.truncate(read);
                        if sender.blocking_send(Ok(chunk)).is_err() {
                            return;
                        }
                    }
                    Err(error) => {
                        let _ = sender.blocking_send(Err(error));
                        return;
                    }
                }
            }
        });
        Ok((length, receiver))
    }

    /// Writes an uploaded capture that arrives in `chunks` to `.tmp/`,
    /// checking it as it comes, on a blocking thread; then
    /// [`Service::finish_recording_upload`].
    pub fn receive_recording<C>(
        &self,
        chunks: async_mpsc::Receiver<C>,
    ) -> impl Future<Output = Result<RecordingUpload, ServiceError>> + use<C>
    where
        C: AsRef<[u8]> + Send + 'static,
    {
        self.write_arriving(
            chunks,
            Store::begin_recording_upload,
            RecordingUpload::write,
        )
    }

    /// Checks an uploaded capture and adds it as recording `name` of `net`.
    pub async fn finish_recording_upload(
        &self,
        net: &ConfigName,
        name: &RecordingName,
        upload: RecordingUpload,
    ) -> Result<Recording, ServiceError> {
        self.require_net(net).await?;
        let (net, name) = (net.clone(), name.clone());
        let recording = self
            .blocking(move |store| store.finish_recording_upload(&net, &name, upload))
            .await?;
        if let Some(used) = lock(&self.inner.recorders.used).as_ref() {
            used.fetch_add(recording.size, Ordering::Relaxed);
        }
        Ok(recording)
    }

    /// Where the replay running as `net` stands.
    pub async fn replay_state(&self, net: &ConfigName) -> Result<ReplayState, ServiceError> {
        self.require_running(net, "replay").await?;
        Ok(self.engine().replay_state(net)?)
    }

    /// Pauses, resumes, speeds up or moves the replay running as `net`.
    pub async fn control_replay(
        &self,
        net: &ConfigName,
        control: ReplayControl,
    ) -> Result<ReplayState, ServiceError> {
        self.require_running(net, "replay").await?;
        Ok(self.engine().replay_control(net, control)?)
    }
}

fn no_room(why: String) -> ServiceError {
    ServiceError::Store(StoreError::Conflict {
        kind: netcfg_store::ConflictKind::NoRoom,
        what: "the recordings' room".to_owned(),
        why,
    })
}
