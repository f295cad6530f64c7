//! Scheduling hints for the threads that every durable change waits on.
//!
//! Why: on a small machine the server's threads share the cores with each
//! other and with its clients. A thread woken by the disk, or by a change
//! to run, waited 25 to 60 µs for a core (`perf sched`, issue 32 in
//! `docs/benchmarks.md`), and the store's sync thread is a serial stage of
//! every durable change under load: its waits add up in every answer.
//! Linux's EEVDF scheduler lets a thread ask for a shorter slice (since
//! 6.12, through `sched_setattr(2)`'s `sched_runtime` for a normal
//! thread): its virtual deadline comes sooner, so when it wakes it runs
//! before a thread that has had its turn, and it yields the core sooner
//! too. Its share of the CPU does not grow: that is its weight (the nice
//! value), left as it is. No privilege is needed. Threads the asking
//! thread starts afterwards inherit its slice.
//!
//! A Linux kernel without custom slices ignores the request (3.14 to 6.11)
//! or refuses it (before 3.14); on another system nothing is asked. Either
//! way the thread keeps the kernel's slice and works as before.

use std::{io, time::Duration};

/// The slice the store's sync thread asks for: the shortest the kernel
/// grants (it clamps requests to 0.1 to 100 ms).
pub const SHORT_SLICE: Duration = Duration::from_micros(100);

/// What became of a request for a slice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slice {
    /// The thread runs with this slice (the request, clamped by the
    /// kernel).
    Granted(Duration),
    /// The kernel keeps its own slice for the thread: it has no custom
    /// slices (before 6.12), the thread is real-time or idle (where a
    /// slice means nothing or something else), or the system is not Linux.
    KernelDefault,
}

/// Asks the kernel to give the calling thread a slice of `slice`; the
/// thread's policy, nice value and reset-on-fork flag stay as they are.
///
/// # Errors
/// A system call's error (`ENOSYS` or `EPERM`, say). When the slice was
/// set but could not be read back, the error is the read's.
pub fn ask_for_slice(slice: Duration) -> io::Result<Slice> {
    imp::ask_for_slice(slice)
}

/// The calling thread's slice, when the kernel reports one: on 6.12 and
/// later every normal thread has one (the kernel's default, 1.4 ms on the
/// development machine, or what it asked for); before, none.
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
    pub(super) struct SchedAttr {
        pub(super) size: u32,
        pub(super) policy: u32,
        pub(super) flags: u64,
        pub(super) nice: i32,
        pub(super) priority: u32,
        /// A normal thread's slice in ns (6.12 and later); 0 before.
        pub(super) runtime: u64,
        pub(super) deadline: u64,
        pub(super) period: u64,
    }

    pub(super) const SIZE_VER0: libc::c_uint = 48;
    const _: () = {
        assert!(size_of::<SchedAttr>() == SIZE_VER0 as usize);
        assert!(std::mem::offset_of!(SchedAttr, nice) == 16);
        assert!(std::mem::offset_of!(SchedAttr, runtime) == 24);
        assert!(std::mem::offset_of!(SchedAttr, period) == 40);
    };

    /// `SCHED_BATCH`; with `SCHED_OTHER` (0), the policies with a slice.
    pub(super) const SCHED_BATCH: u32 = 3;
    const FAIR_POLICIES: [u32; 2] = [0, SCHED_BATCH];
    /// The only flag kept when writing the attributes back (the others
    /// ask for fields that version 0 does not carry).
    pub(super) const RESET_ON_FORK: u64 = 0x01;
    /// `pid` 0: the calling thread.
    const CALLING_THREAD: libc::pid_t = 0;
    const NO_FLAGS: libc::c_uint = 0;

    /// The attributes of thread `tid` (the calling thread when 0).
    pub(super) fn get_of(tid: libc::pid_t) -> io::Result<SchedAttr> {
        let mut attr = SchedAttr::default();
        #[allow(unsafe_code)]
        // SAFETY: `attr` is a live, writable `repr(C)` value laid out as
        // the kernel's `struct sched_attr` version 0, and the size passed
        // is its size: the kernel writes at most that many bytes into it.
        // The integers are passed as the types the kernel reads.
        let result = unsafe {
            libc::syscall(
                libc::SYS_sched_getattr,
                tid,
                &raw mut attr,
                SIZE_VER0,
                NO_FLAGS,
            )
        };
        if result == 0 {
            Ok(attr)
        } else {
            Err(io::Error::last_os_error())
        }
    }

    /// Gives the calling thread the attributes `attr`.
    pub(super) fn set(attr: &SchedAttr) -> io::Result<()> {
        #[allow(unsafe_code)]
        // SAFETY: `attr` is a live `repr(C)` value laid out as the
        // kernel's `struct sched_attr` version 0, and its `size` field
        // says so: the kernel reads at most that many bytes. The integers
        // are passed as the types the kernel reads.
        let result = unsafe {
            libc::syscall(
                libc::SYS_sched_setattr,
                CALLING_THREAD,
                &raw const *attr,
                NO_FLAGS,
            )
        };
        if result == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    pub(super) fn ask_for_slice(slice: Duration) -> io::Result<Slice> {
        let current = get_of(CALLING_THREAD)?;
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
        slice_of(CALLING_THREAD)
    }

    /// Thread `tid`'s slice (the calling thread's when 0).
    pub(super) fn slice_of(tid: libc::pid_t) -> io::Result<Option<Duration>> {
        let attr = get_of(tid)?;
        Ok((FAIR_POLICIES.contains(&attr.policy) && attr.runtime > 0)
            .then(|| Duration::from_nanos(attr.runtime)))
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
    use super::{
        imp::{RESET_ON_FORK, SCHED_BATCH, SIZE_VER0, SchedAttr, get_of, set, slice_of},
        *,
    };

    /// Whether this kernel has custom slices: a thread that asked for
    /// nothing reports the kernel's default (6.12 and later, or a kernel
    /// with the feature carried back).
    fn custom_slices() -> bool {
        std::thread::spawn(|| current_slice().unwrap().is_some())
            .join()
            .unwrap()
    }

    /// Runs `f` on a thread of its own, so that what it sets dies with it.
    fn on_a_new_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::spawn(f).join().unwrap()
    }

    #[test]
    fn a_thread_that_asks_gets_its_slice() {
        let asked = on_a_new_thread(|| {
            (
                ask_for_slice(Duration::from_millis(5)).unwrap(),
                current_slice().unwrap(),
            )
        });
        if custom_slices() {
            let five = Duration::from_millis(5);
            assert_eq!(asked, (Slice::Granted(five), Some(five)));
        } else {
            assert_eq!(asked, (Slice::KernelDefault, None));
        }
    }

    #[test]
    fn the_short_slice_is_granted_and_a_shorter_request_gets_it_too() {
        let short = on_a_new_thread(|| ask_for_slice(SHORT_SLICE).unwrap());
        let shorter = on_a_new_thread(|| ask_for_slice(Duration::from_micros(10)).unwrap());
        if custom_slices() {
            assert_eq!(short, Slice::Granted(SHORT_SLICE));
            assert_eq!(shorter, Slice::Granted(SHORT_SLICE));
        } else {
            assert_eq!(
                (short, shorter),
                (Slice::KernelDefault, Slice::KernelDefault)
            );
        }
    }

    #[test]
    fn asking_keeps_the_threads_policy_weight_and_reset_on_fork() {
        let (before, after) = on_a_new_thread(|| {
            let batch = SchedAttr {
                size: SIZE_VER0,
                policy: SCHED_BATCH,
                flags: RESET_ON_FORK,
                nice: 5,
                ..SchedAttr::default()
            };
            set(&batch).unwrap();
            let before = get_of(0).unwrap();
            ask_for_slice(Duration::from_millis(5)).unwrap();
            (before, get_of(0).unwrap())
        });
        assert_eq!(
            (before.policy, before.nice, before.flags & RESET_ON_FORK),
            (SCHED_BATCH, 5, RESET_ON_FORK)
        );
        assert_eq!(
            (after.policy, after.nice, after.flags & RESET_ON_FORK),
            (SCHED_BATCH, 5, RESET_ON_FORK)
        );
        if custom_slices() {
            assert_eq!(after.runtime, 5_000_000);
        }
    }

    #[test]
    fn the_slice_is_the_asking_threads_own() {
        let main_thread = libc::pid_t::try_from(std::process::id()).unwrap();
        let slices = || (slice_of(main_thread).unwrap(), current_slice().unwrap());
        let before = slices();
        let asked = on_a_new_thread(|| ask_for_slice(Duration::from_millis(7)).unwrap());
        assert_eq!(slices(), before);
        if custom_slices() {
            assert_eq!(asked, Slice::Granted(Duration::from_millis(7)));
            assert_ne!(before.1, Some(Duration::from_millis(7)));
        }
    }
}
