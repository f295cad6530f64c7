//! Reads a recording on a thread of its own (file reads never run on the
//! engine's async workers), record by record through a buffer, and hands
//! each CDP datagram to the player through a bounded channel: however
//! large the file, what is held is the buffer, one record, the channel's
//! datagrams and a small seek index.
//!
//! Records that are not a UDP datagram, or whose payload is not a CDP
//! packet, are skipped and counted; a damaged or cut tail ends the
//! recording where the last whole record ends.

use std::{
    fs::File,
    io::{BufReader, ErrorKind, Read, Seek, SeekFrom},
    path::{Path, PathBuf},
    sync::mpsc::{Receiver, Sender, TryRecvError},
};

use netcfg_model::pcap::{FILE_HEADER_LEN, FileHeader, RECORD_HEADER_LEN};
use tokio::sync::{mpsc, oneshot};

use crate::{
    cdp::{Item, Packet},
    error::EngineError,
};

/// Datagrams read ahead of the player at most.
pub(super) const CHANNEL: usize = 64;
/// Bytes read from the file at a time.
const BUFFER: usize = 64 * 1024;
/// Seek marks kept at most; past it every other is dropped and the marks
/// are spaced twice as far (a week's recording: one every 16 s).
const MAX_MARKS: usize = 65_536;
/// The recording time one seek mark covers at first.
const MARK_STEP_US: u64 = 1_000_000;

/// What the reader hands the player.
#[derive(Debug)]
pub(super) enum Reading {
    /// A datagram to play.
    Datagram(Datagram),
    /// The recording ends here (its last whole record was read).
    End {
        /// The seek this answers.
        epoch: u64,
        /// The last datagram's time, µs from the first; `None`: no datagram.
        last_us: Option<u64>,
    },
}

/// One recorded CDP datagram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Datagram {
    /// The seek it was read after: the player drops those of earlier seeks.
    pub(super) epoch: u64,
    /// When it was sent, µs from the recording's first datagram.
    pub(super) at_us: u64,
    /// Its items.
    pub(super) items: Vec<Item>,
}

/// What the player asks of the reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Command {
    /// Read from the first datagram at or after `to_us`, tagged `epoch`.
    Seek {
        /// The seek's number.
        epoch: u64,
        /// Where to, µs from the first datagram.
        to_us: u64,
    },
}

/// The player's end of a reader.
#[derive(Debug)]
pub(super) struct Feed {
    pub(super) records: mpsc::Receiver<Reading>,
    pub(super) commands: Sender<Command>,
}

/// Opens `path` as a capture on a new thread and starts reading it.
///
/// # Errors
/// `EngineError::Replay` when the file cannot be opened or is not pcap.
pub(super) async fn open(path: PathBuf) -> Result<Feed, EngineError> {
    let (opened_tx, opened) = oneshot::channel();
    let (records_tx, records) = mpsc::channel(CHANNEL);
    let (commands, commands_rx) = std::sync::mpsc::channel();
    let thread_path = path.clone();
    let spawned = std::thread::Builder::new()
        .name("netcfg-replay".to_owned())
        .spawn(move || match open_file(&thread_path) {
            Err(reason) => {
                let _ = opened_tx.send(Err(reason));
            }
            Ok(reader) => {
                if opened_tx.send(Ok(())).is_ok() {
                    reader.run(&records_tx, &commands_rx);
                }
            }
        });
    let failed = |reason: String| EngineError::Replay {
        path: path.clone(),
        reason,
    };
    spawned.map_err(|error| failed(format!("cannot start its reader: {error}")))?;
    match opened.await {
        Ok(Ok(())) => Ok(Feed { records, commands }),
        Ok(Err(reason)) => Err(failed(reason)),
        Err(_) => Err(failed("its reader stopped".to_owned())),
    }
}

fn open_file(path: &Path) -> Result<Reader<BufReader<File>>, String> {
    let file = File::open(path).map_err(|error| format!("cannot open it: {error}"))?;
    Reader::new(BufReader::with_capacity(BUFFER, file))
}

/// Reads until `buffer` is full or the input ends; the bytes read.
fn read_full(input: &mut impl Read, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match input.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(filled)
}

/// Where a record starts: its file offset, its number, its time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mark {
    at_us: u64,
    offset: u64,
    number: u64,
}

/// The first datagram of each step of recording time (a second at first),
/// noted as the file is first read: a seek starts at the mark before its
/// target instead of at the file's start.
#[derive(Debug)]
struct SeekIndex {
    step_us: u64,
    marks: Vec<Mark>,
    max: usize,
}

impl SeekIndex {
    fn new(max: usize) -> Self {
        Self {
            step_us: MARK_STEP_US,
            marks: Vec::new(),
            max: max.max(2),
        }
    }

    fn note(&mut self, mark: Mark) {
        let step = |index: &Self, at_us: u64| at_us / index.step_us;
        if let Some(last) = self.marks.last()
            && step(self, last.at_us) >= step(self, mark.at_us)
        {
            return;
        }
        if self.marks.len() >= self.max {
            let mut index = 0;
            self.marks.retain(|_| {
                index += 1;
                index % 2 == 1
            });
            self.step_us = self.step_us.saturating_mul(2);
            return self.note(mark);
        }
        self.marks.push(mark);
    }

    /// The last mark at or before `to_us`.
    fn before(&self, to_us: u64) -> Option<Mark> {
        let after = self.marks.partition_point(|mark| mark.at_us <= to_us);
        after.checked_sub(1).map(|last| self.marks[last])
    }
}

/// One step of reading.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Step {
    Datagram { at_us: u64, items: Vec<Item> },
    Skipped,
    End,
}

/// A capture read record by record.
#[derive(Debug)]
pub(super) struct Reader<R> {
    input: R,
    header: FileHeader,
    /// The next record's offset and number.
    offset: u64,
    number: u64,
    /// The end of the furthest record read: records before it were seen
    /// (counted, indexed) already.
    frontier: u64,
    /// Until a seek: the input is past a damaged record.
    ended: bool,
    first_us: Option<u64>,
    last_us: Option<u64>,
    index: SeekIndex,
    /// The record being read (reused: never larger than a record may be).
    buffer: Vec<u8>,
    /// Records skipped (not UDP, not CDP), each counted once.
    skipped: u64,
}

impl<R: Read + Seek> Reader<R> {
    /// Reads the file header.
    ///
    /// # Errors
    /// Why the input is not a capture netcfg reads.
    pub(super) fn new(mut input: R) -> Result<Self, String> {
        let mut bytes = [0u8; FILE_HEADER_LEN];
        let read = read_full(&mut input, &mut bytes)
            .map_err(|error| format!("cannot read it: {error}"))?;
        let header = FileHeader::parse(&bytes[..read]).map_err(|error| error.to_string())?;
        let start = FILE_HEADER_LEN as u64;
        Ok(Self {
            input,
            header,
            offset: start,
            number: 0,
            frontier: start,
            ended: false,
            first_us: None,
            last_us: None,
            index: SeekIndex::new(MAX_MARKS),
            buffer: Vec::new(),
            skipped: 0,
        })
    }

    /// Reads the next record.
    pub(super) fn next(&mut self) -> Step {
        if self.ended {
            return Step::End;
        }
        let start = self.offset;
        let number = self.number;
        let time_us = match self.read_record() {
            Ok(Some(time_us)) => time_us,
            Ok(None) => return Step::End,
            Err(reason) => {
                if start >= self.frontier {
                    log::warn!("replay: {reason}; the recording ends before it");
                }
                self.ended = true;
                return Step::End;
            }
        };
        let fresh = start >= self.frontier;
        self.frontier = self.frontier.max(self.offset);
        let Some(items) = self.cdp_items() else {
            if fresh {
                self.skipped += 1;
            }
            return Step::Skipped;
        };
        let first = *self.first_us.get_or_insert(time_us);
        let at_us = time_us.saturating_sub(first);
        self.last_us = Some(self.last_us.map_or(at_us, |last| last.max(at_us)));
        if fresh {
            self.index.note(Mark {
                at_us,
                offset: start,
                number,
            });
        }
        Step::Datagram { at_us, items }
    }

    /// The record's time, µs since the epoch; `None` at the clean end of
    /// the file.
    fn read_record(&mut self) -> Result<Option<u64>, String> {
        let mut head = [0u8; RECORD_HEADER_LEN];
        match read_full(&mut self.input, &mut head) {
            Ok(0) => return Ok(None),
            Ok(read) if read < RECORD_HEADER_LEN => {
                return Err(format!("the file ends inside record {}", self.number));
            }
            Ok(_) => {}
            Err(error) => return Err(format!("record {}: {error}", self.number)),
        }
        let record = self
            .header
            .record(self.number, &head)
            .map_err(|error| error.to_string())?;
        // At most MAX_RECORD_LEN: `record` refuses longer ones.
        let length = record.captured_len as usize;
        self.buffer.resize(length, 0);
        match read_full(&mut self.input, &mut self.buffer) {
            Ok(read) if read == length => {}
            Ok(_) => return Err(format!("the file ends inside record {}", self.number)),
            Err(error) => return Err(format!("record {}: {error}", self.number)),
        }
        self.offset += (RECORD_HEADER_LEN + length) as u64;
        self.number += 1;
        Ok(Some(record.time_us))
    }

    /// The items of the record just read, if it is a CDP datagram.
    fn cdp_items(&self) -> Option<Vec<Item>> {
        let udp = self.header.udp(&self.buffer)?;
        Packet::decode(udp.payload).ok().map(|packet| packet.items)
    }

    /// Moves to the seek mark at or before `to_us` (the file's first record
    /// when none is): the caller skips what comes before `to_us`.
    pub(super) fn seek(&mut self, to_us: u64) {
        let mark = self.index.before(to_us).unwrap_or(Mark {
            at_us: 0,
            offset: FILE_HEADER_LEN as u64,
            number: 0,
        });
        match self.input.seek(SeekFrom::Start(mark.offset)) {
            Ok(_) => {
                self.offset = mark.offset;
                self.number = mark.number;
                self.ended = false;
            }
            Err(error) => {
                log::warn!("replay: cannot seek in the recording: {error}");
                self.ended = true;
            }
        }
    }

    /// Reads and sends until the player is gone: from the start, then from
    /// wherever the player seeks; at the end, waits for a seek.
    fn run(mut self, records: &mpsc::Sender<Reading>, commands: &Receiver<Command>) {
        let mut epoch = 0;
        let mut from_us = 0;
        let mut told_skipped = false;
        loop {
            let mut latest = None;
            loop {
                match commands.try_recv() {
                    Ok(command) => latest = Some(command),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => return,
                }
            }
            if let Some(Command::Seek { epoch: e, to_us }) = latest {
                (epoch, from_us) = (e, to_us);
                self.seek(to_us);
            }
            let read = match self.next() {
                Step::Datagram { at_us, items } if at_us >= from_us => {
                    Reading::Datagram(Datagram {
                        epoch,
                        at_us,
                        items,
                    })
                }
                Step::Datagram { .. } | Step::Skipped => continue,
                Step::End => {
                    if !told_skipped {
                        told_skipped = true;
                        self.tell_skipped();
                    }
                    let end = Reading::End {
                        epoch,
                        last_us: self.last_us,
                    };
                    if records.blocking_send(end).is_err() {
                        return;
                    }
                    // Nothing more to read until the player seeks.
                    let Ok(Command::Seek { epoch: e, to_us }) = commands.recv() else {
                        return;
                    };
                    (epoch, from_us) = (e, to_us);
                    self.seek(to_us);
                    continue;
                }
            };
            if records.blocking_send(read).is_err() {
                return;
            }
        }
    }

    fn tell_skipped(&self) {
        let skipped = self.skipped;
        if skipped > 0 {
            log::info!("replay: {skipped} record(s) skipped: not UDP, or not a CDP datagram");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::{io::Cursor, net::SocketAddr};

    use netcfg_model::{SerialNumber, pcap};

    use super::*;
    use crate::{cdp, replay::test_position};

    fn address(text: &str) -> SocketAddr {
        text.parse().unwrap()
    }

    /// A CDP datagram holding one position whose x is `x`.
    fn datagram(x: i32) -> Vec<u8> {
        let item = test_position(x, u64::try_from(x).unwrap());
        cdp::pack(SerialNumber::from_u32(1), &[item])
            .unwrap()
            .remove(0)
    }

    fn record(file: &mut Vec<u8>, time_us: u64, payload: &[u8]) {
        pcap::append_record(
            file,
            time_us,
            address("10.0.0.1:5000"),
            address("239.1.1.1:7667"),
            payload,
        );
    }

    /// A capture of `count` datagrams, one every `every_us`, x = 0, 1, 2...
    fn capture(count: u64, every_us: u64) -> Vec<u8> {
        let mut file = FileHeader::NETCFG.encode().to_vec();
        for index in 0..count {
            record(
                &mut file,
                1_700_000_000_000_000 + index * every_us,
                &datagram(i32::try_from(index).unwrap()),
            );
        }
        file
    }

    fn reader(file: Vec<u8>) -> Reader<Cursor<Vec<u8>>> {
        Reader::new(Cursor::new(file)).unwrap()
    }

    /// The x and time of every datagram until the end.
    fn drain(reader: &mut Reader<Cursor<Vec<u8>>>) -> Vec<(i32, u64)> {
        let mut read = Vec::new();
        loop {
            match reader.next() {
                Step::Datagram { at_us, items } => match &items[..] {
                    [Item::PositionV3(position)] => read.push((position.x, at_us)),
                    other => panic!("{other:?}"),
                },
                Step::Skipped => {}
                Step::End => return read,
            }
        }
    }

    #[test]
    fn datagrams_come_in_order_with_their_time_from_the_first() {
        let mut reader = reader(capture(3, 250_000));
        assert_eq!(drain(&mut reader), [(0, 0), (1, 250_000), (2, 500_000)]);
        assert_eq!(reader.next(), Step::End, "and stays at the end");
        assert_eq!(reader.last_us, Some(500_000));
    }

    #[test]
    fn what_is_not_a_cdp_datagram_is_skipped_and_counted_once() {
        let mut file = FileHeader::NETCFG.encode().to_vec();
        record(&mut file, 10, b"not CDP at all");
        record(&mut file, 20, &datagram(7));
        // A record that is no IP packet.
        let mut raw = Vec::new();
        record(&mut raw, 30, b"x");
        raw[RECORD_HEADER_LEN] = 0x00;
        file.extend_from_slice(&raw);
        record(&mut file, 40, &datagram(8));
        let mut reader = reader(file);
        assert_eq!(drain(&mut reader), [(7, 0), (8, 20)]);
        assert_eq!(reader.skipped, 2);
        reader.seek(0);
        assert_eq!(drain(&mut reader), [(7, 0), (8, 20)]);
        assert_eq!(reader.skipped, 2, "counted once");
    }

    #[test]
    fn a_cut_or_damaged_tail_ends_the_recording_at_the_last_whole_record() {
        let whole = capture(4, 1_000);
        let last = pcap::record_len(
            address("10.0.0.1:5000"),
            address("239.1.1.1:7667"),
            datagram(3).len(),
        );
        for cut in [1, RECORD_HEADER_LEN - 3, RECORD_HEADER_LEN + 5, last - 1] {
            let file = whole[..whole.len() - cut].to_vec();
            let xs: Vec<i32> = drain(&mut reader(file)).iter().map(|r| r.0).collect();
            assert_eq!(xs, [0, 1, 2], "cut {cut} bytes");
        }
        // A record header claiming more than any record holds.
        let mut file = capture(2, 1_000);
        let mut huge = [0u8; RECORD_HEADER_LEN];
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        file.extend_from_slice(&huge);
        file.extend_from_slice(&capture(1, 1)[FILE_HEADER_LEN..]);
        assert_eq!(drain(&mut reader(file)).len(), 2);
    }

    #[test]
    fn what_is_not_pcap_says_why() {
        let error = Reader::new(Cursor::new(b"hello".to_vec())).unwrap_err();
        assert!(error.contains("not a pcap"), "{error}");
        let error = Reader::new(Cursor::new(Vec::new())).unwrap_err();
        assert!(error.contains("shorter"), "{error}");
    }

    #[test]
    fn a_seek_starts_at_the_mark_before_it_and_skips_ahead_past_what_was_read() {
        // 10 s, a datagram every 100 ms.
        let mut reader = reader(capture(101, 100_000));
        for _ in 0..35 {
            reader.next();
        }
        // Back to 2.5 s: from the mark of second 2, not from the start.
        reader.seek(2_500_000);
        assert_eq!(reader.number, 20);
        assert!(reader.offset > FILE_HEADER_LEN as u64);
        // Ahead to 7.25 s, past what was read: from the last mark (second 3).
        reader.seek(7_250_000);
        assert_eq!(reader.number, 30);
        let rest = drain(&mut reader);
        assert_eq!(rest.first(), Some(&(30, 3_000_000)));
        assert_eq!(rest.last(), Some(&(100, 10_000_000)));
        reader.seek(7_250_000);
        assert_eq!(reader.number, 70, "now indexed");
    }

    #[test]
    fn the_seek_index_stays_small() {
        let mut index = SeekIndex::new(8);
        for second in 0..1_000 {
            index.note(Mark {
                at_us: second * 1_000_000,
                offset: second,
                number: second,
            });
        }
        assert!(index.marks.len() <= 8);
        assert_eq!(index.before(0).unwrap().offset, 0);
        let mark = index.before(999_000_000).unwrap();
        assert!(mark.offset <= 999 && mark.offset >= 999 - index.step_us / 1_000_000);
        assert!(
            index
                .marks
                .windows(2)
                .all(|pair| pair[0].at_us < pair[1].at_us)
        );
    }

    #[tokio::test]
    async fn the_thread_reads_the_file_and_follows_seeks() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("r.pcap");
        std::fs::write(&path, capture(5, 1_000)).unwrap();
        let mut feed = open(path).await.unwrap();
        let mut times = Vec::new();
        while let Some(Reading::Datagram(datagram)) = feed.records.recv().await {
            times.push((datagram.epoch, datagram.at_us));
        }
        assert_eq!(
            times,
            [(0, 0), (0, 1_000), (0, 2_000), (0, 3_000), (0, 4_000)]
        );
        feed.commands
            .send(Command::Seek {
                epoch: 1,
                to_us: 2_500,
            })
            .unwrap();
        let mut again = Vec::new();
        loop {
            match feed.records.recv().await.unwrap() {
                Reading::Datagram(datagram) => again.push((datagram.epoch, datagram.at_us)),
                Reading::End { epoch, last_us } => {
                    assert_eq!((epoch, last_us), (1, Some(4_000)));
                    break;
                }
            }
        }
        assert_eq!(again, [(1, 3_000), (1, 4_000)]);
        let missing = open(directory.path().join("none.pcap")).await.unwrap_err();
        assert!(
            matches!(&missing, EngineError::Replay { reason, .. } if reason.contains("cannot open")),
            "{missing}"
        );
    }
}
