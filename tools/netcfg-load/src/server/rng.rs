//! A small seeded generator (SplitMix64): runs replay from their seed.

/// SplitMix64: fast, and good enough to pick operations and moments.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// A seed from the clock and the process id, for runs not replayed.
    pub(crate) fn seed_from_clock() -> u64 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|elapsed| elapsed.as_nanos())
            .unwrap_or(0);
        #[allow(clippy::cast_possible_truncation, reason = "the low bits suffice")]
        let seed = nanos as u64 ^ u64::from(std::process::id()).rotate_left(32);
        seed
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound` (`bound` > 0).
    pub(crate) fn below(&mut self, bound: u64) -> u64 {
        self.next_u64() % bound.max(1)
    }

    /// Uniform in `low..=high`.
    pub(crate) fn range(&mut self, low: i64, high: i64) -> i64 {
        #[allow(
            clippy::cast_possible_wrap,
            clippy::cast_sign_loss,
            reason = "the spans used are small"
        )]
        let value = low + self.below((high - low + 1) as u64) as i64;
        value
    }

    /// True with probability `percent` / 100.
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// One element of a non-empty slice.
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            return None;
        }
        #[allow(clippy::cast_possible_truncation, reason = "below the slice's length")]
        let index = self.below(items.len() as u64) as usize;
        items.get(index)
    }

    /// A generator for another thread, derived from this one.
    pub(crate) fn fork(&mut self) -> Rng {
        Rng(self.next_u64())
    }
}
