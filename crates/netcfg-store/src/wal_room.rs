//! Room in the write-ahead log ahead of the commits: the log is lengthened
//! with zeros, a chunk at a time, before SQLite's frames reach its end, so
//! that a commit overwrites blocks the file already has instead of
//! appending to it.
//!
//! Why: the `fdatasync` that makes a commit durable ([`crate::wal_sync`])
//! must also make a longer file's size and new blocks durable when the
//! commit appended, a journal commit of the filesystem's own. On the
//! benchmarks' ext4 disk a sync after a 12 KiB append took 0.12 to 0.38 ms,
//! after the same write into blocks already there 0.08 ms (a 4 KiB block
//! alone: 0.04 to 0.05 ms). SQLite writes its log from the start again after
//! a checkpoint and leaves the file as long as it was (no
//! `journal_size_limit`), so once a log has grown to its checkpoint's
//! length every commit overwrites; this module makes the first pass
//! overwrite too.
//!
//! Safe because SQLite reads a log only up to its last valid frame: a frame
//! of zeros has page number 0 and neither the header's salt nor a checksum
//! that matches, and recovery stops at the first such frame (as it does at
//! the stale frames a restarted log leaves after its newest). The zeros are
//! written past the file's end, where no frame is, by the writer thread
//! while it holds SQLite's write lock (`BEGIN IMMEDIATE`), so no other
//! connection, of this process or another, appends a commit meanwhile.

use std::{fs::File, io};

/// The first chunk (a configuration written now and then keeps a small
/// log); each next is twice the last, up to [`LARGEST_CHUNK`].
const FIRST_CHUNK: u64 = 256 * 1024;

/// The largest chunk: a log that reaches its checkpoint's length (about
/// 16 MiB, `WRITER_CHECKPOINT_PAGES`) is made in a few.
const LARGEST_CHUNK: u64 = 4 * 1024 * 1024;

/// The log's room: how far it is lengthened.
pub(crate) struct Room {
    log: File,
    /// The file's length after the last lengthening: SQLite's frames past
    /// it mean its commits append again.
    reserved_to: u64,
    next_chunk: u64,
}

impl Room {
    /// The room of `log` (opened for writing), as long as it is now.
    pub(crate) fn new(log: File) -> io::Result<Self> {
        let reserved_to = log.metadata()?.len();
        Ok(Self {
            log,
            reserved_to,
            next_chunk: FIRST_CHUNK,
        })
    }

    /// Whether SQLite's frames went past the room made last (or the log is
    /// shorter than it: [`Room::make`] then measures from its length).
    pub(crate) fn needed(&self) -> bool {
        self.log
            .metadata()
            .is_ok_and(|metadata| metadata.len() != self.reserved_to)
    }

    /// Lengthens the log by a chunk of zeros (synced) when SQLite's frames
    /// went past the room made last. Call holding SQLite's write lock.
    /// True when it lengthened the log.
    pub(crate) fn make(&mut self) -> io::Result<bool> {
        let length = self.log.metadata()?.len();
        if length <= self.reserved_to {
            // Shorter than the room (a checkpoint that truncated it): the
            // room is measured from its length from now on.
            self.reserved_to = length;
            return Ok(false);
        }
        let chunk = self.next_chunk;
        let zeros = vec![0_u8; usize::try_from(chunk).unwrap_or(usize::MAX)];
        write_at(&self.log, &zeros, length)?;
        self.log.sync_data()?;
        self.reserved_to = length + chunk;
        self.next_chunk = (chunk * 2).min(LARGEST_CHUNK);
        Ok(true)
    }
}

#[cfg(unix)]
fn write_at(file: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
}

/// Elsewhere no room is made: the commits append, as SQLite's do.
#[cfg(not(unix))]
fn write_at(_file: &File, _bytes: &[u8], _offset: u64) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "room in the log is made on Unix only",
    ))
}

#[cfg(test)]
mod tests {
    use std::{io::Write, os::unix::fs::FileExt};

    use super::*;

    #[test]
    fn the_log_is_lengthened_only_when_frames_pass_its_room() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("net.sqlite-wal");
        let mut sqlite = File::create(&path).unwrap();
        let mut room = Room::new(File::options().write(true).open(&path).unwrap()).unwrap();
        assert!(!room.make().unwrap(), "an empty log has all it needs");

        sqlite.write_all(&[7; 100]).unwrap();
        assert!(room.make().unwrap());
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 100 + FIRST_CHUNK);
        let written = std::fs::read(&path).unwrap();
        assert!(written[..100].iter().all(|byte| *byte == 7), "frames kept");
        assert!(written[100..].iter().all(|byte| *byte == 0));

        // Frames written inside the room: nothing to do.
        sqlite.write_all_at(&[8; 4096], 100).unwrap();
        assert!(!room.make().unwrap());

        // Past it: the next chunk is twice as long.
        let end = 100 + FIRST_CHUNK;
        sqlite.write_all_at(&[9; 10], end).unwrap();
        assert!(room.make().unwrap());
        assert_eq!(
            std::fs::metadata(&path).unwrap().len(),
            end + 10 + 2 * FIRST_CHUNK
        );
    }
}
