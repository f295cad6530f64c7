//! Recordings of the data streams (decisions §15): capture files in the
//! data directory, beside the configurations and never inside one.
//!
//! ```text
//! <data_dir>/recordings/<net>/<name>.pcap   the capture (classic pcap)
//! <data_dir>/recordings/<net>/<name>.json   what it holds, once it ended
//! ```
//!
//! A capture without its `.json` is being recorded, or was when the server
//! stopped: the listing reads such a file's records, cuts it back to its
//! last whole record (a kill leaves a record half written) and writes what
//! it found (`ended: interrupted`), unless the caller says it is active.

use std::{
    fs::{self, File},
    io::{self, BufReader, BufWriter, Read, Write},
    net::SocketAddr,
    path::{Path, PathBuf},
};

use netcfg_model::{
    ConfigName, Recording, RecordingEnd, RecordingName,
    pcap::{self, FileHeader, PcapError},
};

use crate::{
    error::{BadUpload, ConflictKind, Missing, StoreError},
    files,
    store::Store,
};

/// The directory of the recordings, inside the data directory.
pub(crate) const RECORDINGS_DIR: &str = "recordings";
const CAPTURE: &str = "pcap";
const SUMMARY: &str = "json";
/// How much of a capture is buffered before it goes to the file.
const WRITE_BUFFER: usize = 256 << 10;
/// How much of a capture is read at once when it is scanned.
const READ_BUFFER: usize = 64 << 10;

impl Store {
    fn recordings_dir(&self, net: &ConfigName) -> Result<PathBuf, StoreError> {
        files::child(&self.data_dir().join(RECORDINGS_DIR), net.as_str())
    }

    fn capture_path(&self, net: &ConfigName, name: &RecordingName) -> Result<PathBuf, StoreError> {
        files::child(&self.recordings_dir(net)?, &format!("{name}.{CAPTURE}"))
    }

    /// The capture file of recording `name` of `net`, for a replay or a
    /// download.
    ///
    /// # Errors
    /// `NotFound` (`Missing::Recording`).
    pub fn recording_path(
        &self,
        net: &ConfigName,
        name: &RecordingName,
    ) -> Result<PathBuf, StoreError> {
        let path = self.capture_path(net, name)?;
        if path.is_file() {
            Ok(path)
        } else {
            Err(missing(net, name))
        }
    }

    /// Recording `name` of `net` opened for reading (a download), with its
    /// length now.
    ///
    /// # Errors
    /// `NotFound` (`Missing::Recording`).
    pub fn open_recording(
        &self,
        net: &ConfigName,
        name: &RecordingName,
    ) -> Result<(File, u64), StoreError> {
        let path = self.recording_path(net, name)?;
        let context = || format!("reading recording {name}");
        let file = File::open(&path).map_err(|error| StoreError::file(context(), error))?;
        let length = file
            .metadata()
            .map_err(|error| StoreError::file(context(), error))?
            .len();
        Ok((file, length))
    }

    /// Every recording of `net`, by name. A capture without its summary
    /// that `active` does not name was cut short (a crash, a stop of the
    /// server): it is read and summed up now.
    pub fn recordings(
        &self,
        net: &ConfigName,
        active: &[RecordingName],
    ) -> Result<Vec<Recording>, StoreError> {
        let dir = self.recordings_dir(net)?;
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => {
                return Err(StoreError::file(
                    format!("listing the recordings of {net}"),
                    error,
                ));
            }
        };
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|error| {
                StoreError::file(format!("listing the recordings of {net}"), error)
            })?;
            let file_name = entry.file_name();
            let Some(stem) = file_name
                .to_str()
                .and_then(|name| name.strip_suffix(&format!(".{CAPTURE}")))
            else {
                continue;
            };
            if let Ok(name) = stem.parse::<RecordingName>() {
                names.push(name);
            }
        }
        names.sort();
        let mut recordings = Vec::with_capacity(names.len());
        for name in names {
            if active.contains(&name) {
                continue;
            }
            recordings.push(self.summary(net, &name)?);
        }
        Ok(recordings)
    }

    /// What recording `name` of `net` holds (one that is being recorded is
    /// the caller's to describe).
    ///
    /// # Errors
    /// `NotFound` (`Missing::Recording`).
    pub fn recording(
        &self,
        net: &ConfigName,
        name: &RecordingName,
    ) -> Result<Recording, StoreError> {
        self.recording_path(net, name)?;
        self.summary(net, name)
    }

    fn summary(&self, net: &ConfigName, name: &RecordingName) -> Result<Recording, StoreError> {
        let capture = self.capture_path(net, name)?;
        let summary_path = capture.with_extension(SUMMARY);
        let size = fs::metadata(&capture)
            .map_err(|error| StoreError::file(format!("reading recording {name}"), error))?
            .len();
        if let Ok(bytes) = fs::read(&summary_path)
            && let Ok(mut recording) = serde_json::from_slice::<Recording>(&bytes)
        {
            recording.size = size;
            return Ok(recording);
        }
        let reading = |error| StoreError::file(format!("reading recording {name}"), error);
        let file = File::open(&capture).map_err(reading)?;
        let scan = Scan::read(BufReader::with_capacity(READ_BUFFER, file)).map_err(reading)?;
        let whole = cut_to_whole_records(&capture, &scan, size).map_err(reading)?;
        let recording = scan.recording(name.clone(), whole, RecordingEnd::Interrupted);
        write_summary(&summary_path, &recording)?;
        Ok(recording)
    }

    /// Deletes recording `name` of `net` (the caller stops it first).
    ///
    /// # Errors
    /// `NotFound` (`Missing::Recording`).
    pub fn delete_recording(
        &self,
        net: &ConfigName,
        name: &RecordingName,
    ) -> Result<(), StoreError> {
        let capture = self.recording_path(net, name)?;
        remove_if_present(&capture.with_extension(SUMMARY))?;
        remove_if_present(&capture)?;
        files::sync_dir(&self.recordings_dir(net)?)
    }

    /// Bytes of every recording's capture, of every configuration.
    pub fn recordings_size(&self) -> Result<u64, StoreError> {
        let root = self.data_dir().join(RECORDINGS_DIR);
        let context = "measuring the recordings";
        let nets = match fs::read_dir(&root) {
            Ok(nets) => nets,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(0),
            Err(error) => return Err(StoreError::file(context, error)),
        };
        let mut total = 0;
        for net in nets {
            let net = net.map_err(|error| StoreError::file(context, error))?;
            let Ok(files) = fs::read_dir(net.path()) else {
                continue;
            };
            for file in files.flatten() {
                if file
                    .path()
                    .extension()
                    .is_some_and(|extension| extension == CAPTURE)
                {
                    total += file.metadata().map(|metadata| metadata.len()).unwrap_or(0);
                }
            }
        }
        Ok(total)
    }

    /// Bytes the file system holding the data directory has free for this
    /// user.
    pub fn free_bytes(&self) -> Result<u64, StoreError> {
        let stats = nix::sys::statvfs::statvfs(self.data_dir()).map_err(|error| {
            StoreError::file("measuring the free space", io::Error::from(error))
        })?;
        #[allow(
            clippy::useless_conversion,
            reason = "fsblkcnt_t and c_ulong are narrower than u64 on some targets"
        )]
        let free =
            u64::from(stats.blocks_available()).saturating_mul(u64::from(stats.fragment_size()));
        Ok(free)
    }

    /// Starts recording `name` of `net`: its capture file, with the pcap
    /// header, claimed under its name. Datagrams go in with
    /// [`RecordingWriter::append`] on a blocking thread.
    ///
    /// # Errors
    /// A recording of that name exists (`Conflict`, `Taken`).
    pub fn create_recording(
        &self,
        net: &ConfigName,
        name: &RecordingName,
        started_ms: u64,
    ) -> Result<RecordingWriter, StoreError> {
        let dir = self.recordings_dir(net)?;
        fs::create_dir_all(&dir)
            .map_err(|error| StoreError::file(format!("creating recording {name}"), error))?;
        let path = self.capture_path(net, name)?;
        let file = match File::create_new(&path) {
            Ok(file) => file,
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                return Err(taken(net, name));
            }
            Err(error) => {
                return Err(StoreError::file(
                    format!("creating recording {name}"),
                    error,
                ));
            }
        };
        files::sync_dir(&dir)?;
        let mut writer = RecordingWriter {
            file: BufWriter::with_capacity(WRITE_BUFFER, file),
            path,
            record: Vec::with_capacity(2_048),
            recording: Recording {
                name: name.clone(),
                size: 0,
                started_ms,
                duration_ms: 0,
                datagrams: 0,
                active: true,
                ended: None,
            },
            first_us: None,
        };
        writer.write_bytes(&FileHeader::NETCFG.encode())?;
        Ok(writer)
    }

    /// Starts an uploaded capture: written to `.tmp/` in pieces
    /// ([`RecordingUpload::write`]), checked as it arrives, then published
    /// by [`Store::finish_recording_upload`]. Dropped unfinished, it is
    /// removed.
    pub fn begin_recording_upload(&self) -> Result<RecordingUpload, StoreError> {
        let temp = files::temp_path(&self.dir, "recording");
        let file = File::create_new(&temp)
            .map_err(|error| StoreError::file("creating the uploaded recording", error))?;
        Ok(RecordingUpload {
            file: BufWriter::with_capacity(WRITE_BUFFER, file),
            temp: TempFile(temp),
            scan: Scan::default(),
            pending: Vec::new(),
            length: 0,
        })
    }

    /// Checks an uploaded capture written in full and publishes it as
    /// recording `name` of `net`; a refused file changes nothing.
    ///
    /// # Errors
    /// `BadUpload` (not pcap, truncated, no CDP datagram), `Conflict` (the
    /// name is taken).
    pub fn finish_recording_upload(
        &self,
        net: &ConfigName,
        name: &RecordingName,
        upload: RecordingUpload,
    ) -> Result<Recording, StoreError> {
        let RecordingUpload {
            file,
            temp,
            scan,
            pending,
            length,
        } = upload;
        scan.finish(&pending).map_err(StoreError::BadUpload)?;
        file.into_inner()
            .map_err(|error| {
                StoreError::file("writing the uploaded recording", error.into_error())
            })?
            .sync_all()
            .map_err(|error| StoreError::file("syncing the uploaded recording", error))?;
        let dir = self.recordings_dir(net)?;
        fs::create_dir_all(&dir)
            .map_err(|error| StoreError::file(format!("storing recording {name}"), error))?;
        let target = self.capture_path(net, name)?;
        let recording = scan.recording(name.clone(), length, RecordingEnd::Uploaded);
        match fs::hard_link(&temp.0, &target) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                return Err(taken(net, name));
            }
            Err(error) => {
                return Err(StoreError::file(format!("storing recording {name}"), error));
            }
        }
        write_summary(&target.with_extension(SUMMARY), &recording)?;
        files::sync_dir(&dir)?;
        Ok(recording)
    }

    /// Moves `from`'s recordings to `to` (a rename of the configuration).
    pub(crate) fn move_recordings(
        &self,
        from: &ConfigName,
        to: &ConfigName,
    ) -> Result<(), StoreError> {
        let (old, new) = (self.recordings_dir(from)?, self.recordings_dir(to)?);
        if old.exists() && !new.exists() {
            fs::rename(&old, &new).map_err(|error| {
                StoreError::file(format!("moving the recordings of {from}"), error)
            })?;
            files::sync_dir(&self.data_dir().join(RECORDINGS_DIR))?;
        }
        Ok(())
    }

    /// Removes `net`'s recordings (a deletion of the configuration).
    pub(crate) fn drop_recordings(&self, net: &ConfigName) -> Result<(), StoreError> {
        let dir = self.recordings_dir(net)?;
        if dir.exists() {
            fs::remove_dir_all(&dir).map_err(|error| {
                StoreError::file(format!("deleting the recordings of {net}"), error)
            })?;
        }
        Ok(())
    }
}

/// Cuts an interrupted capture of `size` bytes back to the end of its last
/// whole record, synced (a capture whose header was cut gets it whole);
/// its size then.
fn cut_to_whole_records(capture: &Path, scan: &Scan, size: u64) -> io::Result<u64> {
    if size == scan.whole_len && scan.header.is_some() {
        return Ok(size);
    }
    let mut file = fs::OpenOptions::new().write(true).open(capture)?;
    let whole = if scan.header.is_some() {
        scan.whole_len
    } else {
        file.write_all(&FileHeader::NETCFG.encode())?;
        pcap::FILE_HEADER_LEN as u64
    };
    file.set_len(whole)?;
    file.sync_all()?;
    Ok(whole)
}

fn missing(net: &ConfigName, name: &RecordingName) -> StoreError {
    StoreError::not_found(
        Missing::Recording,
        format!("recording {name} of configuration {net}"),
    )
}

fn taken(net: &ConfigName, name: &RecordingName) -> StoreError {
    StoreError::conflict(
        ConflictKind::Taken,
        format!("recording {name} of configuration {net}"),
        "a recording with this name exists",
    )
}

fn remove_if_present(path: &Path) -> Result<(), StoreError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(StoreError::file(
            format!("removing {}", path.display()),
            error,
        )),
    }
}

fn write_summary(path: &Path, recording: &Recording) -> Result<(), StoreError> {
    let mut summary = recording.clone();
    summary.active = false;
    let bytes = serde_json::to_vec(&summary).expect("a recording serialises");
    let written = (|| {
        let mut file = File::create(path)?;
        file.write_all(&bytes)?;
        file.sync_all()
    })();
    written.map_err(|error| StoreError::file(format!("writing {}", path.display()), error))
}

/// A recording being written: see [`Store::create_recording`]. Blocking:
/// own it on a thread of its own.
#[derive(Debug)]
pub struct RecordingWriter {
    file: BufWriter<File>,
    path: PathBuf,
    /// One record, built before it is written.
    record: Vec<u8>,
    recording: Recording,
    first_us: Option<u64>,
}

impl RecordingWriter {
    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.file
            .write_all(bytes)
            .map_err(|error| StoreError::file(format!("writing {}", self.path.display()), error))?;
        self.recording.size += bytes.len() as u64;
        Ok(())
    }

    /// Appends one datagram as sent.
    ///
    /// # Errors
    /// A write failed (the disk is full, ...): the file holds every
    /// datagram before this one, whole, once [`finish`](Self::finish)ed.
    pub fn append(
        &mut self,
        time_us: u64,
        source: SocketAddr,
        destination: SocketAddr,
        datagram: &[u8],
    ) -> Result<(), StoreError> {
        let mut record = std::mem::take(&mut self.record);
        record.clear();
        pcap::append_record(&mut record, time_us, source, destination, datagram);
        let written = self.append_record(time_us, &record);
        self.record = record;
        written
    }

    /// Appends one record already in the file's format (a record header
    /// and its packet, as [`pcap::append_record`] writes them), sent at
    /// `time_us`.
    ///
    /// # Errors
    /// As [`append`](Self::append).
    pub fn append_record(&mut self, time_us: u64, record: &[u8]) -> Result<(), StoreError> {
        self.write_bytes(record)?;
        let first = *self.first_us.get_or_insert(time_us);
        if self.recording.datagrams == 0 {
            self.recording.started_ms = time_us / 1_000;
        }
        self.recording.datagrams += 1;
        self.recording.duration_ms = time_us.saturating_sub(first) / 1_000;
        Ok(())
    }

    /// Hands what is buffered to the file (not synced): a crash of the
    /// process then loses nothing appended before.
    ///
    /// # Errors
    /// The write failed (the disk is full, ...).
    pub fn flush(&mut self) -> Result<(), StoreError> {
        self.file
            .flush()
            .map_err(|error| StoreError::file(format!("writing {}", self.path.display()), error))
    }

    /// What it holds so far.
    pub fn recording(&self) -> &Recording {
        &self.recording
    }

    /// Ends the recording: the file flushed and synced (cut back to its
    /// last whole record if a write failed part-way), its summary written.
    pub fn finish(mut self, ended: RecordingEnd) -> Result<Recording, StoreError> {
        let flushed = self.file.flush();
        let file = self.file.get_ref();
        if flushed.is_err() {
            // A part of a record may have reached the disk: cut it off, so
            // the capture reads whole.
            let _ = file.set_len(
                self.recording
                    .size
                    .min(file.metadata().map(|metadata| metadata.len()).unwrap_or(0)),
            );
        }
        file.sync_all()
            .map_err(|error| StoreError::file(format!("syncing {}", self.path.display()), error))?;
        let on_disk = file
            .metadata()
            .map(|metadata| metadata.len())
            .unwrap_or(self.recording.size);
        self.recording.size = on_disk;
        self.recording.active = false;
        self.recording.ended = Some(ended);
        write_summary(&self.path.with_extension(SUMMARY), &self.recording)?;
        Ok(self.recording)
    }
}

/// An uploaded capture being written: see [`Store::begin_recording_upload`].
#[derive(Debug)]
pub struct RecordingUpload {
    file: BufWriter<File>,
    temp: TempFile,
    scan: Scan,
    /// Bytes of a header or record not yet whole.
    pending: Vec<u8>,
    length: u64,
}

impl RecordingUpload {
    /// Writes the next piece, checking the records it completes.
    ///
    /// # Errors
    /// The file is not a capture netcfg reads (`BadUpload`), or a write
    /// failed.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.file
            .write_all(bytes)
            .map_err(|error| StoreError::file("writing the uploaded recording", error))?;
        self.length += bytes.len() as u64;
        self.scan
            .feed(&mut self.pending, bytes)
            .map_err(StoreError::BadUpload)
    }
}

#[derive(Debug)]
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

/// What a capture holds, read record by record: as it arrives, or from a
/// file. Holds at most one record's bytes.
#[derive(Debug, Default)]
struct Scan {
    header: Option<FileHeader>,
    /// The record whose data is awaited.
    record: Option<pcap::RecordHeader>,
    records: u64,
    datagrams: u64,
    cdp: u64,
    first_us: Option<u64>,
    last_us: u64,
    /// The bytes of the header and every whole record.
    whole_len: u64,
}

impl Scan {
    /// Reads a whole file; a damaged tail ends it.
    fn read(mut reader: impl Read) -> io::Result<Self> {
        let mut scan = Self::default();
        let mut pending = Vec::new();
        let mut buffer = vec![0u8; READ_BUFFER];
        loop {
            let read = reader.read(&mut buffer)?;
            if read == 0 || scan.feed(&mut pending, &buffer[..read]).is_err() {
                return Ok(scan);
            }
        }
    }

    /// Takes the next bytes; `pending` holds what is not yet whole.
    fn feed(&mut self, pending: &mut Vec<u8>, mut bytes: &[u8]) -> Result<(), BadUpload> {
        while !bytes.is_empty() {
            let wanted = match (self.header, self.record) {
                (None, _) => pcap::FILE_HEADER_LEN,
                (Some(_), None) => pcap::RECORD_HEADER_LEN,
                (Some(_), Some(record)) => record.captured_len as usize,
            };
            let take = wanted.saturating_sub(pending.len()).min(bytes.len());
            pending.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if pending.len() < wanted {
                if self.header.is_none() && pending.len() >= 4 {
                    // Say "not pcap" before the whole header is in.
                    if let Err(error @ (PcapError::NotPcap | PcapError::Pcapng)) =
                        FileHeader::parse(pending)
                    {
                        return Err(BadUpload::NotPcap(error.to_string()));
                    }
                }
                return Ok(());
            }
            self.take(pending)?;
            pending.clear();
        }
        Ok(())
    }

    fn take(&mut self, whole: &[u8]) -> Result<(), BadUpload> {
        let bad = |error: PcapError| BadUpload::NotPcap(error.to_string());
        match (self.header, self.record) {
            (None, _) => {
                self.header = Some(FileHeader::parse(whole).map_err(bad)?);
                self.whole_len = pcap::FILE_HEADER_LEN as u64;
            }
            (Some(header), None) => {
                let bytes: &[u8; pcap::RECORD_HEADER_LEN] =
                    whole.try_into().map_err(|_| bad(PcapError::TooShort))?;
                let record = header.record(self.records, bytes).map_err(bad)?;
                if record.captured_len == 0 {
                    self.records += 1;
                    self.whole_len += pcap::RECORD_HEADER_LEN as u64;
                } else {
                    self.record = Some(record);
                }
            }
            (Some(header), Some(record)) => {
                self.records += 1;
                self.record = None;
                self.whole_len += (pcap::RECORD_HEADER_LEN + whole.len()) as u64;
                if let Some(udp) = header.udp(whole) {
                    self.datagrams += 1;
                    if pcap::is_cdp(udp.payload) {
                        self.cdp += 1;
                        self.first_us.get_or_insert(record.time_us);
                        self.last_us = self.last_us.max(record.time_us);
                    }
                }
            }
        }
        Ok(())
    }

    /// Checks that the capture ended whole and holds CDP.
    fn finish(&self, pending: &[u8]) -> Result<(), BadUpload> {
        if self.header.is_none() {
            return Err(BadUpload::NotPcap(PcapError::TooShort.to_string()));
        }
        if !pending.is_empty() || self.record.is_some() {
            return Err(BadUpload::NotPcap(
                PcapError::Truncated(self.records).to_string(),
            ));
        }
        if self.cdp == 0 {
            return Err(BadUpload::NoCdp {
                records: self.records,
                datagrams: self.datagrams,
            });
        }
        Ok(())
    }

    fn recording(&self, name: RecordingName, size: u64, ended: RecordingEnd) -> Recording {
        let first = self.first_us.unwrap_or(0);
        Recording {
            name,
            size,
            started_ms: first / 1_000,
            duration_ms: self.last_us.saturating_sub(first) / 1_000,
            datagrams: self.cdp,
            active: false,
            ended: Some(ended),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cdp(sequence: u32) -> Vec<u8> {
        let mut datagram = Vec::new();
        datagram.extend_from_slice(&0x3230_434C_u32.to_le_bytes());
        datagram.extend_from_slice(&sequence.to_le_bytes());
        datagram.extend_from_slice(b"CDP0002\0");
        datagram.extend_from_slice(&0u32.to_le_bytes());
        datagram
    }

    fn capture(datagrams: &[(u64, Vec<u8>)]) -> Vec<u8> {
        let mut file = FileHeader::NETCFG.encode().to_vec();
        let from: SocketAddr = "10.0.0.1:4000".parse().unwrap();
        let to: SocketAddr = "239.255.76.67:7667".parse().unwrap();
        for (time, payload) in datagrams {
            pcap::append_record(&mut file, *time, from, to, payload);
        }
        file
    }

    fn scan_in_pieces(file: &[u8], piece: usize) -> Result<Scan, BadUpload> {
        let mut scan = Scan::default();
        let mut pending = Vec::new();
        for chunk in file.chunks(piece) {
            scan.feed(&mut pending, chunk)?;
        }
        scan.finish(&pending)?;
        Ok(scan)
    }

    #[test]
    fn a_capture_is_summed_up_whatever_its_pieces() {
        let file = capture(&[
            (1_000_000, cdp(0)),
            (1_500_000, b"not cdp".to_vec()),
            (3_250_000, cdp(1)),
        ]);
        for piece in [1, 7, 16, 24, 100, file.len()] {
            let scan = scan_in_pieces(&file, piece).unwrap();
            let recording = scan.recording("r".parse().unwrap(), 1, RecordingEnd::Uploaded);
            assert_eq!(
                (
                    recording.datagrams,
                    recording.started_ms,
                    recording.duration_ms
                ),
                (2, 1_000, 2_250),
                "pieces of {piece}"
            );
        }
    }

    #[test]
    fn what_is_not_a_cdp_capture_is_refused_with_its_reason() {
        let sqlite = b"SQLite format 3\0 and then pages".to_vec();
        assert!(
            matches!(scan_in_pieces(&sqlite, 4096), Err(BadUpload::NotPcap(why)) if why.contains("not a pcap"))
        );
        let no_cdp = capture(&[(0, b"hello".to_vec())]);
        assert!(matches!(
            scan_in_pieces(&no_cdp, 4096),
            Err(BadUpload::NoCdp {
                records: 1,
                datagrams: 1
            })
        ));
        let whole = capture(&[(0, cdp(0)), (1, cdp(1))]);
        assert!(matches!(
            scan_in_pieces(&whole[..whole.len() - 3], 4096),
            Err(BadUpload::NotPcap(why)) if why.contains("ends inside record 1")
        ));
        assert!(matches!(scan_in_pieces(&[], 1), Err(BadUpload::NotPcap(_))));
    }
}
