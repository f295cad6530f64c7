//! One recording being made: the engine hands each datagram to its
//! [`Active`] sink, which appends it, as a pcap record, to a pending
//! buffer; the recording's own thread takes the buffer every
//! [`WRITER_TICK`] and writes it. The engine's side is one short lock and
//! one copy per datagram; the thread wakes ten times a second whatever the
//! rate (a thread woken per datagram cost the server a tenth of a core at
//! 33,000 positions a second).

use std::{
    net::SocketAddr,
    sync::{
        Arc, Mutex, OnceLock,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    thread::Thread,
    time::{Duration, Instant},
};

use netcfg_engine::DatagramSink;
use netcfg_model::{Recording, RecordingEnd, pcap, sync::lock};
use netcfg_store::{RecordingWriter, Store};
use tokio::sync::watch;

use super::RecordingLimits;

/// How often a recording's thread writes what came.
pub(super) const WRITER_TICK: Duration = Duration::from_millis(100);
/// The most bytes waiting for a recording's thread: seconds of a busy
/// configuration; past it, datagrams are left out and counted.
pub const RECORDING_PENDING_BYTES: usize = 8 << 20;
/// How often (bytes written) a writer asks the disk how much room is left.
pub(super) const FREE_CHECK_BYTES: u64 = 256 << 10;

/// One recording being made: the engine's sink, and what its writer says.
#[derive(Debug)]
pub(super) struct Active {
    /// Whole pcap records not yet written.
    pending: Mutex<Vec<u8>>,
    open: AtomicBool,
    /// Why it should end, once asked (by a DELETE or the network's stop);
    /// the writer writes what came before the ask first.
    stop: Mutex<Option<RecordingEnd>>,
    /// What it holds, as the writer last said.
    pub(super) now: Mutex<Recording>,
    /// The finished recording, once finished.
    pub(super) done: watch::Sender<Option<Result<Recording, String>>>,
    /// Datagrams left out because the writer fell behind.
    refused: AtomicU64,
    /// The writer's thread, to wake it for a stop.
    thread: OnceLock<Thread>,
}

impl DatagramSink for Active {
    fn datagram(
        &self,
        time_us: u64,
        source: SocketAddr,
        destination: SocketAddr,
        datagram: &[u8],
    ) -> bool {
        if !self.open.load(Ordering::Acquire) {
            return false;
        }
        let length = pcap::record_len(source, destination, datagram.len());
        let mut pending = lock(&self.pending);
        if pending.len() + length > RECORDING_PENDING_BYTES {
            self.refused.fetch_add(1, Ordering::Relaxed);
        } else {
            pcap::append_record(&mut pending, time_us, source, destination, datagram);
        }
        true
    }

    fn is_open(&self) -> bool {
        self.open.load(Ordering::Acquire)
    }

    fn ended(&self) {
        self.ask_to_stop(RecordingEnd::NetworkStopped);
    }
}

impl Active {
    pub(super) fn new(recording: Recording) -> Self {
        Self {
            pending: Mutex::new(Vec::new()),
            open: AtomicBool::new(true),
            stop: Mutex::new(None),
            now: Mutex::new(recording),
            done: watch::channel(None).0,
            refused: AtomicU64::new(0),
            thread: OnceLock::new(),
        }
    }

    /// Asks the writer to end the recording (the first reason stands).
    pub(super) fn ask_to_stop(&self, why: RecordingEnd) {
        lock(&self.stop).get_or_insert(why);
        if let Some(thread) = self.thread.get() {
            thread.unpark();
        }
    }
}

/// The writer's side of one recording.
pub(super) struct Writer {
    pub(super) active: Arc<Active>,
    pub(super) file: RecordingWriter,
    pub(super) store: Arc<Store>,
    pub(super) limits: RecordingLimits,
    /// Bytes of every recording.
    pub(super) used: Arc<AtomicU64>,
    pub(super) deadline: Option<Instant>,
    pub(super) next_free_check: u64,
}

impl Writer {
    /// Writes on the current thread until the recording ends; then
    /// finishes the file and says so.
    pub(super) fn run(mut self, name: &str) {
        let _ = self.active.thread.set(std::thread::current());
        let end = self.write_until_the_end();
        let Self { active, file, .. } = self;
        active.open.store(false, Ordering::Release);
        let refused = active.refused.load(Ordering::Relaxed);
        if refused > 0 {
            log::warn!(
                "recording {name}: {refused} datagram(s) came faster than the disk took them and are missing"
            );
        }
        let finished = file.finish(end).map_err(|error| error.to_string());
        active.done.send_replace(Some(finished));
    }

    fn write_until_the_end(&mut self) -> RecordingEnd {
        let mut batch = Vec::new();
        loop {
            std::thread::park_timeout(WRITER_TICK);
            // Read the ask first: whatever came before it is in the batch.
            let asked = *lock(&self.active.stop);
            std::mem::swap(&mut batch, &mut *lock(&self.active.pending));
            if let Some(end) = self.write(&batch) {
                return end;
            }
            // Each tick's records reach the file (a kill loses at most the
            // last tick's), not only when the file's buffer fills: a quiet
            // configuration's records otherwise waited for minutes.
            if !batch.is_empty()
                && let Err(error) = self.file.flush()
            {
                log::warn!("a recording stopped: {error}");
                return RecordingEnd::Disk;
            }
            batch.clear();
            *lock(&self.active.now) = self.file.recording().clone();
            if let Some(end) = asked {
                return end;
            }
            if self
                .deadline
                .is_some_and(|deadline| Instant::now() >= deadline)
            {
                return RecordingEnd::Duration;
            }
        }
    }

    /// Writes the whole records of `batch`, or says why the recording ends
    /// before one of them.
    fn write(&mut self, batch: &[u8]) -> Option<RecordingEnd> {
        let mut at = 0;
        while let Some(header) = batch.get(at..at + pcap::RECORD_HEADER_LEN) {
            let header: &[u8; pcap::RECORD_HEADER_LEN] = header.try_into().ok()?;
            let record = pcap::FileHeader::NETCFG.record(0, header).ok()?;
            let length = pcap::RECORD_HEADER_LEN + record.captured_len as usize;
            if let Some(end) = self.room_for(length as u64) {
                return Some(end);
            }
            let bytes = batch.get(at..at + length)?;
            if let Err(error) = self.file.append_record(record.time_us, bytes) {
                log::warn!("a recording stopped: {error}");
                return Some(RecordingEnd::Disk);
            }
            self.used.fetch_add(length as u64, Ordering::Relaxed);
            at += length;
        }
        None
    }

    /// Why a record of `length` bytes would break a limit, if it would.
    fn room_for(&mut self, length: u64) -> Option<RecordingEnd> {
        let size = self.file.recording().size;
        if size + length > self.limits.per_recording {
            return Some(RecordingEnd::RecordingLimit);
        }
        if self.used.load(Ordering::Relaxed) + length > self.limits.total {
            return Some(RecordingEnd::TotalLimit);
        }
        if size >= self.next_free_check {
            self.next_free_check = size + FREE_CHECK_BYTES;
            let low = self
                .store
                .free_bytes()
                .is_ok_and(|free| free < self.limits.keep_free + FREE_CHECK_BYTES);
            if low {
                return Some(RecordingEnd::Disk);
            }
        }
        None
    }
}
