//! The disk's own floor for a durable write: how long `fdatasync` of one
//! small block takes on the filesystem that holds the data directory,
//! measured in the same run as the writes it is compared with.
//!
//! A 4 KiB block is overwritten in place and synced with
//! [`File::sync_data`] (fdatasync), round after round, each round timed. In
//! place, as SQLite's write-ahead log is written once it has reached its
//! steady size: an append would also sync the file's new size, a cost a
//! steady commit does not pay.

use std::{
    fs::{self, File, OpenOptions},
    os::unix::fs::FileExt,
    path::Path,
    time::Instant,
};

use anyhow::{Context, Result};

/// The size of the block written each round.
pub(crate) const BLOCK_BYTES: usize = 4096;
/// Untimed rounds first: the block is allocated and the file's metadata
/// settled, as for a log file in use.
const WARM_UP_ROUNDS: usize = 20;

/// `rounds` timed fdatasyncs, in ms, of a scratch file in `dir` (removed
/// afterwards; its name starts with a dot, which no configuration's does).
pub(crate) fn fdatasync_ms(dir: &Path, rounds: usize) -> Result<Vec<f64>> {
    let path = dir.join(".bench-fdatasync");
    let file = OpenOptions::new()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(&path)
        .with_context(|| format!("could not create {}", path.display()))?;
    let timed = sync_rounds(&file, rounds);
    drop(file);
    fs::remove_file(&path).with_context(|| format!("could not remove {}", path.display()))?;
    timed.with_context(|| format!("writing and syncing {}", path.display()))
}

fn sync_rounds(file: &File, rounds: usize) -> Result<Vec<f64>> {
    let mut block = [0_u8; BLOCK_BYTES];
    let mut samples = Vec::with_capacity(rounds);
    for round in 0..WARM_UP_ROUNDS + rounds {
        // New bytes each round, so every round has a dirty page to write.
        block.fill(u8::try_from(round % 251).unwrap_or_default());
        let start = Instant::now();
        file.write_all_at(&block, 0)?;
        file.sync_data()?;
        if round >= WARM_UP_ROUNDS {
            samples.push(start.elapsed().as_secs_f64() * 1_000.0);
        }
    }
    Ok(samples)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_each_round_and_leaves_nothing_behind() {
        let dir =
            std::env::temp_dir().join(format!("netcfg-load-fdatasync-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let samples = fdatasync_ms(&dir, 5).unwrap();
        assert_eq!(samples.len(), 5);
        assert!(samples.iter().all(|ms| *ms >= 0.0));
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);
        fs::remove_dir(&dir).unwrap();
    }
}
