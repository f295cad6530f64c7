//! Scheduling hints for the threads that every durable change waits on.
//!
//! Why: on a small machine the server's threads share the cores with each
//! other and with its clients. A thread woken by the disk, or by a change
//! to run, waited 25 to 60 µs for a core (`perf sched`, issue 32 in
//! `docs/benchmarks.md`), and the store's writer and sync thread are the
//! serial stages of every durable change: their waits add up in every
//! answer. Linux's EEVDF scheduler lets a thread ask for a shorter slice
//! (since 6.12, through `sched_setattr(2)`'s `sched_runtime` for a normal
//! thread): its virtual deadline comes sooner, so when it wakes it runs
//! before a thread that has had its turn, and it yields the core sooner
//! too. Its share of the CPU does not grow: that is its weight (the nice
//! value), left as it is. No privilege is needed.
//!
//! A kernel without custom slices ignores the request (before 6.12) or
//! refuses it (before 3.14, or another system): the thread keeps the
//! kernel's slice and works as before.

use std::{io, time::Duration};

/// The slice the store's sync thread asks for: the shortest the kernel
/// grants (it clamps requests to 0.1 to 100 ms).
pub const SHORT_SLICE: Duration = Duration::from_micros(100);

/// What became of a request for a slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slice {
    /// The thread runs with this slice.
    Granted(Duration),
    /// The kernel keeps its own slice for the thread: it has no custom
    /// slices, or the thread is real-time or idle (where a slice means
    /// nothing or something else).
    KernelDefault,
}

/// Asks the kernel to give the calling thread a slice of `slice`.
///
/// # Errors
/// The system call's error (`ENOSYS` or `EPERM`, say): the thread keeps
/// the kernel's slice.
pub fn ask_for_slice(slice: Duration) -> io::Result<Slice> {
    imp::ask_for_slice(slice)
}

/// The calling thread's slice, when the kernel reports one (6.12 and
/// later, for a normal thread).
///
/// # Errors
/// The system call's error.
pub fn current_slice() -> io::Result<Option<Duration>> {
    imp::current_slice()
}

#[cfg(target_os = "linux")]
mod imp {
    use std::{io, time::Duration};

    use super::Slice;

    /// The kernel's `struct sched_attr`, version 0 (48 bytes): the fields
    /// for utilisation clamps that later versions add are not needed.
    #[repr(C)]
    #[derive(Debug, Default, Clone, Copy)]
    struct SchedAttr {
        size: u32,
        policy: u32,
        flags: u64,
        nice: i32,
        priority: u32,
        /// A normal thread's slice in ns (6.12 and later); 0 before.
        runtime: u64,
        deadline: u64,
        period: u64,
    }

    const SIZE_VER0: u32 = 48;
    const _: () = assert!(size_of::<SchedAttr>() == SIZE_VER0 as usize);

    /// The policies that have a slice: `SCHED_OTHER` and `SCHED_BATCH`.
    const FAIR_POLICIES: [u32; 2] = [0, 3];
    /// The only flag kept when writing the attributes back (the others
    /// ask for fields that version 0 does not carry).
    const RESET_ON_FORK: u64 = 0x01;

    fn get() -> io::Result<SchedAttr> {
        let mut attr = SchedAttr::default();
        #[allow(unsafe_code)]
        // SAFETY: `attr` is a live, writable `repr(C)` value laid out as
        // the kernel's `struct sched_attr` version 0, and the size passed
        // is its size: the kernel writes at most that many bytes into it.
        // Pid 0 is the calling thread.
        let result =
            unsafe { libc::syscall(libc::SYS_sched_getattr, 0, &raw mut attr, SIZE_VER0, 0) };
        if result == 0 {
            Ok(attr)
        } else {
            Err(io::Error::last_os_error())
        }
    }

    fn set(attr: &SchedAttr) -> io::Result<()> {
        #[allow(unsafe_code)]
        // SAFETY: `attr` is a live `repr(C)` value laid out as the
        // kernel's `struct sched_attr` version 0, and its `size` field
        // says so: the kernel reads at most that many bytes. Pid 0 is the
        // calling thread.
        let result = unsafe { libc::syscall(libc::SYS_sched_setattr, 0, &raw const *attr, 0) };
        if result == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    pub(super) fn ask_for_slice(slice: Duration) -> io::Result<Slice> {
        let current = get()?;
        if !FAIR_POLICIES.contains(&current.policy) {
            return Ok(Slice::KernelDefault);
        }
        let wanted = SchedAttr {
            size: SIZE_VER0,
            flags: current.flags & RESET_ON_FORK,
            runtime: u64::try_from(slice.as_nanos()).unwrap_or(u64::MAX),
            deadline: 0,
            period: 0,
            ..current
        };
        set(&wanted)?;
        Ok(match current_slice()? {
            Some(granted) => Slice::Granted(granted),
            None => Slice::KernelDefault,
        })
    }

    pub(super) fn current_slice() -> io::Result<Option<Duration>> {
        let attr = get()?;
        Ok((FAIR_POLICIES.contains(&attr.policy) && attr.runtime > 0)
            .then(|| Duration::from_nanos(attr.runtime)))
    }

    /// The calling thread's nice value, for the tests.
    #[cfg(test)]
    pub(super) fn nice() -> io::Result<i32> {
        get().map(|attr| attr.nice)
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::{io, time::Duration};

    use super::Slice;

    pub(super) fn ask_for_slice(_slice: Duration) -> io::Result<Slice> {
        Ok(Slice::KernelDefault)
    }

    pub(super) fn current_slice() -> io::Result<Option<Duration>> {
        Ok(None)
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// The running kernel's version, as (major, minor).
    fn kernel_version() -> (u32, u32) {
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
        let mut parts = release
            .trim()
            .split(|c: char| !c.is_ascii_digit())
            .map(|part| part.parse().unwrap());
        (parts.next().unwrap(), parts.next().unwrap())
    }

    #[test]
    fn a_thread_that_asks_runs_with_the_short_slice_and_keeps_its_weight() {
        let (nice_before, asked, slice_after, nice_after) = std::thread::spawn(|| {
            let nice_before = imp::nice().unwrap();
            let asked = ask_for_slice(SHORT_SLICE).unwrap();
            (
                nice_before,
                asked,
                current_slice().unwrap(),
                imp::nice().unwrap(),
            )
        })
        .join()
        .unwrap();
        if kernel_version() >= (6, 12) {
            assert_eq!(asked, Slice::Granted(SHORT_SLICE));
            assert_eq!(slice_after, Some(SHORT_SLICE));
        } else {
            assert_eq!(asked, Slice::KernelDefault);
            assert_eq!(slice_after, None);
        }
        assert_eq!(nice_after, nice_before);
    }

    #[test]
    fn the_slice_is_the_asking_threads_own() {
        let before = current_slice().unwrap();
        std::thread::spawn(|| ask_for_slice(SHORT_SLICE).unwrap())
            .join()
            .unwrap();
        assert_eq!(current_slice().unwrap(), before);
        if kernel_version() >= (6, 12) {
            assert_ne!(before, Some(SHORT_SLICE));
        }
    }

    #[test]
    fn a_request_below_the_shortest_slice_gets_the_shortest() {
        let asked = std::thread::spawn(|| ask_for_slice(Duration::from_micros(10)).unwrap())
            .join()
            .unwrap();
        if kernel_version() >= (6, 12) {
            assert_eq!(asked, Slice::Granted(SHORT_SLICE));
        } else {
            assert_eq!(asked, Slice::KernelDefault);
        }
    }
}
