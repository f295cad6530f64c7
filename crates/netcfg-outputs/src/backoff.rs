//! The wait between two attempts to reach a peer that is down: 100 ms,
//! doubling, at most 5 s; back to 100 ms once it answers.

use std::time::Duration;

const FIRST: Duration = Duration::from_millis(100);
const MOST: Duration = Duration::from_secs(5);

/// The next wait.
#[derive(Debug, Clone)]
pub(crate) struct Backoff {
    next: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Self { next: FIRST }
    }
}

impl Backoff {
    /// The wait before the next attempt, doubling the one after.
    pub(crate) fn next_wait(&mut self) -> Duration {
        let wait = self.next;
        self.next = (self.next * 2).min(MOST);
        wait
    }

    /// The peer answered: start again from the shortest wait.
    pub(crate) fn reset(&mut self) {
        self.next = FIRST;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_up_to_five_seconds() {
        let mut backoff = Backoff::default();
        let waits: Vec<_> = (0..8).map(|_| backoff.next_wait().as_millis()).collect();
        assert_eq!(waits, [100, 200, 400, 800, 1600, 3200, 5000, 5000]);
        backoff.reset();
        assert_eq!(backoff.next_wait(), FIRST);
    }
}
