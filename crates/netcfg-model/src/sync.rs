//! The one way a lock is taken in netcfg: whatever a panicking holder
//! left behind stays usable. Every value kept behind a lock here is left
//! consistent between statements (a panic cannot tear it), so a poisoned
//! lock would only turn one panic into many.

use std::{
    sync::{
        Condvar, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard,
        WaitTimeoutResult,
    },
    time::Duration,
};

/// Locks `mutex`.
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Takes `lock` to read.
pub fn read<T: ?Sized>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

/// Takes `lock` to write.
pub fn write<T: ?Sized>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}

/// Waits on `condvar`, giving `guard` back and taking it again.
pub fn wait<'a, T>(condvar: &Condvar, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    condvar.wait(guard).unwrap_or_else(PoisonError::into_inner)
}

/// Waits on `condvar` for at most `timeout`.
pub fn wait_timeout<'a, T>(
    condvar: &Condvar,
    guard: MutexGuard<'a, T>,
    timeout: Duration,
) -> (MutexGuard<'a, T>, WaitTimeoutResult) {
    condvar
        .wait_timeout(guard, timeout)
        .unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_poisoned_by_a_panic_is_still_taken() {
        let shared = std::sync::Arc::new((Mutex::new(1), RwLock::new(2)));
        let holder = std::sync::Arc::clone(&shared);
        let _ = std::thread::spawn(move || {
            let _mutex = holder.0.lock().unwrap();
            let _rw = holder.1.write().unwrap();
            panic!("a holder panics");
        })
        .join();
        assert!(shared.0.is_poisoned() && shared.1.is_poisoned());
        *lock(&shared.0) += 1;
        *write(&shared.1) += 1;
        assert_eq!((*lock(&shared.0), *read(&shared.1)), (2, 3));
    }
}
