//! The measuring client: many SSE subscribers read by one thread.
//!
//! The subscribers stand for browsers on other machines, so on the bench's
//! machine they must cost as little as they can: the CPU they take comes out
//! of what the server and wrk share. One thread runs every connection on an
//! event loop (tokio's, over epoll): a frame sent to a connection whose
//! reader is already awake costs the server no wake-up of a sleeping thread,
//! and the reader takes each connection's bytes in one read. (A thread per
//! connection, blocked in `read`, made the server wake 10,000 threads a
//! second and cost about 0.3 of a core of its own.)
//!
//! Each connection sends a raw HTTP/1.1 GET, checks the status line, then
//! counts `event: position` lines in the bytes as they come (a pattern
//! split between two reads is counted once) and reads each batch's key.
//! The keys say which batches a subscriber received, whenever it read
//! them: counting by the clock alone, a subscriber that read a batch a few
//! milliseconds after a window's edge (a 35 kB objects batch to each of
//! 1,000 connections on one thread) counted one fewer than it received,
//! and the worst subscriber's share read 98.2% though none was lost.

use std::{
    collections::{HashMap, HashSet},
    io::BufRead,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    thread::{self, JoinHandle},
    time::{Duration, Instant},
};

use anyhow::{Context, Result, bail};
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
    sync::oneshot,
};

/// The pattern that starts a position batch in the stream's bytes.
pub(crate) const BATCH_PATTERN: &[u8] = b"\nevent: position\n";
/// The most bytes one read takes from one connection.
const READ_BYTES: usize = 64 * 1024;
/// How long a subscriber waits for the answer's head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
/// The frames the server cuts each second.
const FRAMES_PER_SECOND: u32 = 10;

/// Counts a pattern in a byte stream read in pieces: the pattern's last
/// bytes but one are carried from each piece to the next, so that a pattern
/// split between two reads is counted (once).
pub(crate) struct Counter {
    pattern: &'static [u8],
    carried: Vec<u8>,
    pub(crate) count: u64,
}

impl Counter {
    pub(crate) fn new(pattern: &'static [u8]) -> Counter {
        Counter {
            pattern,
            carried: Vec::with_capacity(2 * pattern.len()),
            count: 0,
        }
    }

    /// Counts the patterns that end in `bytes` and returns how many.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> u64 {
        let keep = self.pattern.len() - 1;
        // The carried bytes are fewer than the pattern's, and so are the
        // first `keep` of these: every match in the joint starts in the
        // former and ends in the latter, so it is counted here only.
        let mut joint = std::mem::take(&mut self.carried);
        joint.extend_from_slice(&bytes[..keep.min(bytes.len())]);
        let found = count_in(&joint, self.pattern) + count_in(bytes, self.pattern);
        if bytes.len() >= keep {
            joint.clear();
            joint.extend_from_slice(&bytes[bytes.len() - keep..]);
        } else {
            joint.drain(..joint.len().saturating_sub(keep));
        }
        self.carried = joint;
        self.count += found;
        found
    }
}

/// The bytes after a batch's pattern searched for its key at most.
const KEY_LOOKAHEAD: usize = 1_024;
/// What precedes a batch's key: its first `network_time` (the compact
/// form's batch time, the objects form's first position's). Frames are
/// shared bytes, so every subscriber finds the same key in the same frame,
/// and two frames never share one (each holds the beacons of its own
/// tenth of a second).
const KEY_FIELD: &[u8] = b"\"network_time\":";

/// Reads each position batch's key from a stream read in pieces: the
/// bytes from a batch's pattern on are kept until its key is whole.
#[derive(Default)]
pub(crate) struct KeyReader {
    /// From the last pattern whose key is not whole yet (or the last bytes
    /// that may start a pattern).
    carried: Vec<u8>,
}

impl KeyReader {
    /// The keys of the batches whose key ends in `bytes`, in order. A batch
    /// whose key cannot be read within [`KEY_LOOKAHEAD`] bytes gives none.
    pub(crate) fn feed(&mut self, bytes: &[u8], keys: &mut Vec<u64>) {
        let mut joint = std::mem::take(&mut self.carried);
        joint.extend_from_slice(bytes);
        let mut at = 0;
        let mut keep_from = joint.len().saturating_sub(BATCH_PATTERN.len() - 1);
        while let Some(found) = find_pattern(&joint[at..], BATCH_PATTERN) {
            let start = at + found;
            let after = start + BATCH_PATTERN.len();
            match batch_key(&joint[after..]) {
                Some(Some(key)) => keys.push(key),
                Some(None) => {}
                None => {
                    keep_from = start;
                    break;
                }
            }
            at = after;
        }
        self.carried = joint.split_off(keep_from.min(joint.len()));
    }
}

/// The first index of `pattern` in `haystack`.
fn find_pattern(haystack: &[u8], pattern: &[u8]) -> Option<usize> {
    let first = *pattern.first()?;
    let mut at = 0;
    while let Some(found) = find_byte(&haystack[at..], first) {
        let start = at + found;
        if haystack[start..].starts_with(pattern) {
            return Some(start);
        }
        at = start + 1;
    }
    None
}

/// A batch's key from the bytes after its pattern: `Some(Some(key))`,
/// `Some(None)` when there is none within [`KEY_LOOKAHEAD`] bytes, `None`
/// when more bytes are needed. The chunked encoding's size lines
/// (`\r\n` hex `\r\n`) may cut the data anywhere and are left out first
/// (an SSE data line holds no `\r`).
fn batch_key(bytes: &[u8]) -> Option<Option<u64>> {
    let window = &bytes[..bytes.len().min(KEY_LOOKAHEAD)];
    let mut data = Vec::with_capacity(window.len());
    let mut at = 0;
    while at < window.len() {
        if window[at..].starts_with(b"\r\n") {
            let hex = window[at + 2..]
                .iter()
                .take_while(|byte| byte.is_ascii_hexdigit())
                .count();
            if window[at + 2 + hex..].starts_with(b"\r\n") {
                at += hex + 4;
                continue;
            }
            if at + 2 + hex == window.len() {
                break;
            }
        }
        data.push(window[at]);
        at += 1;
    }
    let Some(field) = find_pattern(&data, KEY_FIELD) else {
        return (window.len() == KEY_LOOKAHEAD).then_some(None);
    };
    let digits = &data[field + KEY_FIELD.len()..];
    let length = digits
        .iter()
        .take_while(|byte| byte.is_ascii_digit())
        .count();
    if length == digits.len() {
        // The number may go on in the next bytes.
        return (window.len() == KEY_LOOKAHEAD).then_some(None);
    }
    Some(
        std::str::from_utf8(&digits[..length])
            .ok()
            .and_then(|text| text.parse().ok()),
    )
}

/// Occurrences of `pattern` in `haystack`.
pub(crate) fn count_in(haystack: &[u8], pattern: &[u8]) -> u64 {
    let Some(&first) = pattern.first() else {
        return 0;
    };
    let (mut count, mut at) = (0, 0);
    while let Some(found) = find_byte(&haystack[at..], first) {
        let start = at + found;
        if haystack[start..].starts_with(pattern) {
            count += 1;
        }
        at = start + 1;
    }
    count
}

/// The index of the first `byte` in `bytes`. `BufRead::skip_until` on a
/// slice runs the standard library's memchr, which is built optimised
/// whatever the profile.
pub(crate) fn find_byte(bytes: &[u8], byte: u8) -> Option<usize> {
    let mut rest = bytes;
    let skipped = rest.skip_until(byte).ok()?;
    (skipped > 0 && bytes[skipped - 1] == byte).then(|| skipped - 1)
}

/// What one subscriber has counted so far.
#[derive(Default)]
struct Tally {
    batches: AtomicU64,
    bytes: AtomicU64,
    /// Nanoseconds from the subscribers' epoch to the last read that held a
    /// batch.
    last_batch_ns: AtomicU64,
    /// Each batch's key, with the nanoseconds from the epoch to its read.
    keys: Mutex<Vec<(u64, u64)>>,
    opened: AtomicBool,
    ended: AtomicBool,
    error: Mutex<Option<String>>,
}

impl Tally {
    fn fail(&self, error: &anyhow::Error) {
        *crate::sync::lock(&self.error) = Some(format!("{error:#}"));
        self.ended.store(true, Ordering::Relaxed);
    }
}

/// The subscribers, all on one thread.
pub(crate) struct Subscribers {
    tallies: Vec<Arc<Tally>>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
    epoch: Instant,
}

/// Where a measured window starts.
pub(crate) struct Window {
    at: Instant,
    batches: Vec<u64>,
    bytes: u64,
}

/// What the subscribers received over a window.
pub(crate) struct Counted {
    /// Frames the server cut over the window (ten a second).
    pub(crate) frames: u32,
    /// Batches each subscriber received over it.
    pub(crate) batches: Vec<u64>,
    /// The frames cut within the window (by their keys, which at least half
    /// the subscribers read: not catch-up batches), and how many of them
    /// each subscriber received, then or
    /// within a second after: a batch read a little late at the window's
    /// edge still counts, one never received does not.
    pub(crate) window_batches: u64,
    pub(crate) received: Vec<u64>,
    /// Bytes all received over it.
    pub(crate) bytes: u64,
}

impl Subscribers {
    /// Opens `count` streams of `GET {path}` on `port`, one after the other
    /// (the server's listen queue is not flooded); each is read as soon as
    /// it is open.
    pub(crate) fn connect(port: u16, path: &str, count: usize) -> Result<Subscribers> {
        let epoch = Instant::now();
        let tallies: Vec<Arc<Tally>> = (0..count).map(|_| Arc::default()).collect();
        let (stop, stopped) = oneshot::channel();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .context("could not build the subscribers' event loop")?;
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n"
        );
        let thread_tallies = tallies.clone();
        let thread = thread::Builder::new()
            .name("subscribers".to_owned())
            .spawn(move || {
                runtime.block_on(async move {
                    for (number, tally) in thread_tallies.into_iter().enumerate() {
                        match open(port, &request).await {
                            Ok(stream) => {
                                tokio::spawn(subscribe(stream, tally, epoch));
                            }
                            Err(error) => {
                                tally.fail(&error.context(format!("subscriber {number}")));
                                break;
                            }
                        }
                    }
                    let _ = stopped.await;
                });
                // Dropping the runtime drops every connection: they close.
            })
            .context("could not start the subscribers' thread")?;
        Ok(Subscribers {
            tallies,
            stop: Some(stop),
            thread: Some(thread),
            epoch,
        })
    }

    /// The first error of a subscriber that ended, if one did.
    fn first_error(&self) -> Option<String> {
        self.tallies.iter().enumerate().find_map(|(number, tally)| {
            let error = crate::sync::lock(&tally.error);
            error
                .as_ref()
                .map(|error| format!("subscriber {number}: {error}"))
        })
    }

    /// Waits until every stream answered 200 and brought a position batch.
    pub(crate) fn wait_for_first_batches(&self, timeout: Duration) -> Result<()> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(error) = self.first_error() {
                bail!("{error}");
            }
            let waiting = self
                .tallies
                .iter()
                .filter(|tally| {
                    !tally.opened.load(Ordering::Relaxed)
                        || tally.batches.load(Ordering::Relaxed) == 0
                })
                .count();
            if waiting == 0 {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!(
                    "{waiting} of {} subscribers had no position batch after {timeout:?}",
                    self.tallies.len()
                );
            }
            thread::sleep(Duration::from_millis(50));
        }
    }

    /// Starts a window halfway between two frames, as the first subscriber
    /// receives them: every subscriber that gets each frame within 50 ms of
    /// it then counts exactly the frames cut in a window of whole tenths of
    /// a second.
    pub(crate) fn start_window(&self) -> Result<Window> {
        let last_ns = self.tallies[0].last_batch_ns.load(Ordering::Relaxed);
        let period_ns = 1_000_000_000 / u64::from(FRAMES_PER_SECOND);
        let now_ns = u64::try_from(self.epoch.elapsed().as_nanos())?;
        let mut at_ns = last_ns + period_ns / 2;
        while at_ns <= now_ns {
            at_ns += period_ns;
        }
        let at = self.epoch + Duration::from_nanos(at_ns);
        thread::sleep(at.saturating_duration_since(Instant::now()));
        let (batches, bytes) = self.snapshot();
        Ok(Window { at, batches, bytes })
    }

    /// Ends `window` at its first whole tenth of a second from now.
    pub(crate) fn end_window(&self, window: Window) -> Counted {
        let period = Duration::from_secs(1) / FRAMES_PER_SECOND;
        let mut frames = 1;
        while window.at + period * frames <= Instant::now() {
            frames += 1;
        }
        let end = window.at + period * frames;
        thread::sleep(end.saturating_duration_since(Instant::now()));
        let (batches, bytes) = self.snapshot();
        thread::sleep(Duration::from_secs(1));
        let (window_batches, received) = self.received_between(window.at, end);
        Counted {
            frames,
            window_batches,
            received,
            batches: batches
                .iter()
                .zip(&window.batches)
                .map(|(now, then)| now - then)
                .collect(),
            bytes: bytes - window.bytes,
        }
    }

    /// The frames cut between `start` and `end` (the keys some subscriber
    /// first read then, which at least half the subscribers read), and how
    /// many of them each subscriber read at any time.
    ///
    /// Why half: a frame as cut is the same bytes to every subscriber, so
    /// (nearly) all of them read its key; a catch-up batch stands for
    /// several frames of one subscriber that fell behind and has a key of
    /// its own, which only that one read. Counted as frames, catch-up keys
    /// made the window larger than the frames cut (60 to 98 keys where 56
    /// frames were cut), so that no subscriber could read all of them; a
    /// subscriber that got a catch-up batch instead of frames misses them.
    fn received_between(&self, start: Instant, end: Instant) -> (u64, Vec<u64>) {
        let ns = |at: Instant| u64::try_from(at.duration_since(self.epoch).as_nanos()).unwrap_or(0);
        let keys: Vec<Vec<(u64, u64)>> = self
            .tallies
            .iter()
            .map(|tally| crate::sync::lock(&tally.keys).clone())
            .collect();
        frames_received(&keys, ns(start)..ns(end))
    }

    fn snapshot(&self) -> (Vec<u64>, u64) {
        let batches = self
            .tallies
            .iter()
            .map(|tally| tally.batches.load(Ordering::Relaxed))
            .collect();
        let bytes = self
            .tallies
            .iter()
            .map(|tally| tally.bytes.load(Ordering::Relaxed))
            .sum();
        (batches, bytes)
    }

    /// Closes every connection and returns how many had ended before, with
    /// their first error printed.
    pub(crate) fn stop(mut self) -> usize {
        let ended_early = self
            .tallies
            .iter()
            .filter(|tally| tally.ended.load(Ordering::Relaxed))
            .count();
        if let Some(error) = self.first_error() {
            eprintln!("    {ended_early} subscribers ended early; {error}");
        }
        self.join();
        ended_early
    }

    fn join(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Subscribers {
    fn drop(&mut self) {
        self.join();
    }
}

/// A new connection with the request sent.
async fn open(port: u16, request: &str) -> Result<TcpStream> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))
        .await
        .with_context(|| format!("could not connect to port {port}"))?;
    stream.set_nodelay(true)?;
    stream.write_all(request.as_bytes()).await?;
    Ok(stream)
}

/// One subscriber: the head, then reads until its connection is dropped.
async fn subscribe(mut stream: TcpStream, tally: Arc<Tally>, epoch: Instant) {
    let mut buffer = vec![0; READ_BYTES];
    let read = async {
        let body = tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut stream, &mut buffer))
            .await
            .context("no answer's head in time")??;
        tally.opened.store(true, Ordering::Relaxed);
        let mut counter = Counter::new(BATCH_PATTERN);
        let mut reader = KeyReader::default();
        let mut keys = Vec::new();
        let mut record = |bytes: &[u8]| {
            let found = counter.feed(bytes);
            reader.feed(bytes, &mut keys);
            let ns = u64::try_from(epoch.elapsed().as_nanos()).unwrap_or(u64::MAX);
            if found > 0 {
                tally.batches.fetch_add(found, Ordering::Relaxed);
                tally.last_batch_ns.store(ns, Ordering::Relaxed);
            }
            if !keys.is_empty() {
                crate::sync::lock(&tally.keys).extend(keys.drain(..).map(|key| (key, ns)));
            }
            tally.bytes.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        };
        record(&body);
        loop {
            let read = stream.read(&mut buffer).await?;
            if read == 0 {
                bail!("the server ended the stream");
            }
            record(&buffer[..read]);
        }
    };
    let result: Result<()> = read.await;
    if let Err(error) = result {
        tally.fail(&error);
    }
}

/// Reads the answer's head; fails unless it is a 200 of
/// `text/event-stream`. Returns the body's first bytes, from the newline
/// that ends the head.
async fn read_head(stream: &mut TcpStream, buffer: &mut [u8]) -> Result<Vec<u8>> {
    let mut head = Vec::new();
    loop {
        let read = stream
            .read(buffer)
            .await
            .context("reading the answer's head")?;
        if let Some(body) = super::extend_head(&mut head, &buffer[..read])? {
            return Ok(body);
        }
    }
}

/// [`Subscribers::received_between`] on each subscriber's keys, each with
/// when it was read (ns): the frames of the window, and how many of them
/// each subscriber read.
fn frames_received(keys: &[Vec<(u64, u64)>], window_ns: std::ops::Range<u64>) -> (u64, Vec<u64>) {
    let mut first_read: HashMap<u64, (u64, usize)> = HashMap::new();
    for read in keys {
        for &(key, read_ns) in read {
            let (first, readers) = first_read.entry(key).or_insert((read_ns, 0));
            *first = (*first).min(read_ns);
            *readers += 1;
        }
    }
    let shared_by = keys.len().div_ceil(2);
    let window: HashSet<u64> = first_read
        .into_iter()
        .filter(|(_, (first, readers))| window_ns.contains(first) && *readers >= shared_by)
        .map(|(key, _)| key)
        .collect();
    let received = keys
        .iter()
        .map(|read| read.iter().filter(|(key, _)| window.contains(key)).count() as u64)
        .collect();
    (window.len() as u64, received)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STREAM: &[u8] = b"HTTP/1.1 200 OK\r\n\r\n1d\r\n: netcfg events\nretry: 3000\n\n\r\n40\r\nevent: position\ndata: {\"net\":\"live\",\"positions\":[]}\n\nevent: position\ndata: {}\n\n\r\n";

    #[test]
    fn counts_every_pattern_however_the_stream_is_cut() {
        let whole = count_in(STREAM, BATCH_PATTERN);
        assert_eq!(whole, 2);
        for piece in 1..STREAM.len() {
            let mut counter = Counter::new(BATCH_PATTERN);
            let found: u64 = STREAM.chunks(piece).map(|bytes| counter.feed(bytes)).sum();
            assert_eq!((found, counter.count), (2, 2), "pieces of {piece} bytes");
        }
    }

    #[test]
    fn counts_back_to_back_patterns_and_nothing_else() {
        assert_eq!(
            count_in(b"\nevent: position\nevent: position\n", BATCH_PATTERN),
            2
        );
        assert_eq!(count_in(b"\nevent: positions\n", BATCH_PATTERN), 0);
        assert_eq!(count_in(b"event: position\n", BATCH_PATTERN), 0);
        assert_eq!(count_in(b"", BATCH_PATTERN), 0);
    }

    #[test]
    fn reads_each_batchs_key_however_the_stream_is_cut() {
        let stream: &[u8] = b"\r\n1d\r\n: netcfg events\n\nevent: position\ndata: {\"net\":\"live\",\"positions\":[{\"serial_number\":\"01:05:0001\",\"network_time\":12345,\"x\":1}]}\n\n\r\n10\r\nevent: position\ndata: {\"net\":\"live\",\"network_t\r\n8\r\nime\":678}\n\nevent: state\ndata: {}\n\n";
        for piece in 1..stream.len() {
            let mut reader = KeyReader::default();
            let mut keys = Vec::new();
            for bytes in stream.chunks(piece) {
                reader.feed(bytes, &mut keys);
            }
            assert_eq!(keys, [12_345, 678], "pieces of {piece} bytes");
        }
    }

    #[test]
    fn a_catch_up_batch_is_no_frame_of_the_window_and_the_frames_it_stands_for_are_missed() {
        // Frames 1 to 4 are read by all three; the third subscriber fell
        // behind on 2 and 3 and read a catch-up batch (key 20) instead.
        let keys = vec![
            vec![(1, 10), (2, 20), (3, 30), (4, 40)],
            vec![(1, 11), (2, 21), (3, 31), (4, 41)],
            vec![(1, 12), (20, 35), (4, 42)],
        ];
        assert_eq!(frames_received(&keys, 0..100), (4, vec![4, 4, 2]));
        // The window is the frames first read within it; a frame read a
        // little after its end still counts.
        assert_eq!(frames_received(&keys, 15..35), (2, vec![2, 2, 0]));
    }

    #[test]
    fn finds_bytes() {
        assert_eq!(find_byte(b"abc\n", b'\n'), Some(3));
        assert_eq!(find_byte(b"\nabc", b'\n'), Some(0));
        assert_eq!(find_byte(b"abc", b'\n'), None);
        assert_eq!(find_byte(b"", b'\n'), None);
    }
}
