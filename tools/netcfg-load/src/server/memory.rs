//! Resident memory of a server process, read from `/proc/<pid>/status`.

use std::{
    fs,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    thread,
    time::Duration,
};

use anyhow::{Context, Result};

/// Resident memory of process `pid` in KiB (the kernel's "kB"): `VmRSS`
/// of `/proc/<pid>/status`.
pub fn rss_kib(pid: u32) -> Result<u64> {
    status_kib(pid, "VmRSS")
}

/// The highest resident memory of process `pid` in KiB since it started or
/// since [`reset_peak_rss`]: `VmHWM` of `/proc/<pid>/status`.
pub fn peak_rss_kib(pid: u32) -> Result<u64> {
    status_kib(pid, "VmHWM")
}

/// Resets the kernel's `VmHWM` of process `pid` to its resident memory now
/// (`5` into `/proc/<pid>/clear_refs`): the peak of what follows, even
/// between two samples. Needs root or the process's own user.
pub fn reset_peak_rss(pid: u32) -> Result<()> {
    fs::write(format!("/proc/{pid}/clear_refs"), "5")
        .with_context(|| format!("could not write /proc/{pid}/clear_refs"))
}

fn status_kib(pid: u32, field: &str) -> Result<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status"))
        .with_context(|| format!("could not read /proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|value| value.split_whitespace().next())
        .and_then(|kb| kb.parse().ok())
        .with_context(|| format!("no {field} line in /proc/{pid}/status"))
}

/// The highest resident memory seen while it lives.
#[derive(Debug)]
pub struct RssSampler {
    running: Arc<AtomicBool>,
    peak_kb: Arc<AtomicU64>,
    thread: Option<thread::JoinHandle<()>>,
}

impl RssSampler {
    /// Samples process `pid` every 50 ms from now on.
    pub fn start(pid: u32) -> Self {
        Self::every(pid, Duration::from_millis(50))
    }

    /// Samples process `pid` every `period` from now on.
    pub fn every(pid: u32, period: Duration) -> Self {
        let running = Arc::new(AtomicBool::new(true));
        // The first sample now: the peak is never below the start.
        let peak_kb = Arc::new(AtomicU64::new(rss_kib(pid).unwrap_or(0)));
        let thread = thread::spawn({
            let (running, peak_kb) = (running.clone(), peak_kb.clone());
            move || {
                while running.load(Ordering::Relaxed) {
                    if let Ok(kb) = rss_kib(pid) {
                        peak_kb.fetch_max(kb, Ordering::Relaxed);
                    }
                    thread::sleep(period);
                }
            }
        });
        Self {
            running,
            peak_kb,
            thread: Some(thread),
        }
    }

    /// Stops sampling; the peak in kB.
    pub fn finish(mut self) -> u64 {
        self.stop_thread();
        self.peak_kb.load(Ordering::Relaxed)
    }

    fn stop_thread(&mut self) {
        self.running.store(false, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for RssSampler {
    fn drop(&mut self) {
        self.stop_thread();
    }
}
