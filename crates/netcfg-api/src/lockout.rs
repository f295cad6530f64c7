//! Failed token checks, limited per client address: a client that sends
//! more than [`BURST`] unknown tokens is refused (429) without its tokens
//! being checked until its allowance refills, one attempt every
//! [`REFILL`]. A brute force of tokens then learns nothing for most of its
//! guesses, and a legitimate client elsewhere is not slowed.
//!
//! Only a wrong token counts: a request with no token (a browser before
//! its sign-in) is a plain 401. IPv6 addresses count by their /64 prefix,
//! which one host usually holds whole. The addresses remembered are
//! bounded ([`REMEMBERED`], least recently failed forgotten first), so a
//! flood from many addresses cannot grow the server's memory.

use std::{
    net::IpAddr,
    num::NonZeroUsize,
    sync::Mutex,
    time::{Duration, Instant},
};

use lru::LruCache;
use netcfg_model::sync::lock;

/// Wrong tokens a client may send at once.
pub(crate) const BURST: u32 = 10;
/// How often the allowance grows by one attempt (ten a minute).
pub(crate) const REFILL: Duration = Duration::from_secs(6);
/// How many client addresses are remembered.
const REMEMBERED: usize = 4096;

/// One address's allowance of wrong tokens.
#[derive(Debug, Clone, Copy)]
struct Allowance {
    /// Attempts left (fractions accrue between refills).
    left: f64,
    updated: Instant,
}

impl Allowance {
    fn refilled(self, now: Instant) -> Self {
        let gained =
            now.saturating_duration_since(self.updated).as_secs_f64() / REFILL.as_secs_f64();
        Self {
            left: (self.left + gained).min(f64::from(BURST)),
            updated: now,
        }
    }
}

/// The failed token checks of every recent client address.
#[derive(Debug)]
pub(crate) struct Lockout {
    allowances: Mutex<LruCache<Client, Allowance>>,
}

impl Default for Lockout {
    fn default() -> Self {
        Self {
            allowances: Mutex::new(LruCache::new(
                NonZeroUsize::new(REMEMBERED).unwrap_or(NonZeroUsize::MIN),
            )),
        }
    }
}

/// What failures are counted by: a client's address, or the account a
/// sign-in names (so that a guess of one account's password from many
/// addresses is slowed too).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Client {
    /// An address ([`key`]).
    Address(Option<IpAddr>),
    /// A user's name, as the sign-in gave it.
    Account(String),
}

impl Client {
    /// The client at `address`.
    pub(crate) fn at(address: Option<IpAddr>) -> Self {
        Self::Address(key(address))
    }
}

/// What counts as one client: the address, an IPv6 one by its /64.
fn key(address: Option<IpAddr>) -> Option<IpAddr> {
    address.map(|address| match address {
        IpAddr::V6(v6) if v6.to_ipv4_mapped().is_none() => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(bits.into())
        }
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(address, IpAddr::V4),
        v4 => v4,
    })
}

impl Lockout {
    /// When the client at `address` is refused now: how long until it may
    /// try again. `None` when its token may be checked.
    pub(crate) fn refused(&self, address: Option<IpAddr>, now: Instant) -> Option<Duration> {
        self.refused_client(&Client::at(address), now)
    }

    /// [`Lockout::refused`] of any client.
    pub(crate) fn refused_client(&self, client: &Client, now: Instant) -> Option<Duration> {
        let allowances = lock(&self.allowances);
        let allowance = allowances.peek(client)?.refilled(now);
        (allowance.left < 1.0).then(|| REFILL.mul_f64(1.0 - allowance.left))
    }

    /// Counts a wrong token from the client at `address`.
    pub(crate) fn failed(&self, address: Option<IpAddr>, now: Instant) {
        self.failed_client(Client::at(address), now);
    }

    /// [`Lockout::failed`] of any client.
    pub(crate) fn failed_client(&self, client: Client, now: Instant) {
        let mut allowances = lock(&self.allowances);
        let full = Allowance {
            left: f64::from(BURST),
            updated: now,
        };
        let allowance = allowances.get_or_insert_mut(client, || full);
        let refilled = allowance.refilled(now);
        *allowance = Allowance {
            left: (refilled.left - 1.0).max(0.0),
            updated: now,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_of_wrong_tokens_locks_the_address_out_until_it_refills() {
        let lockout = Lockout::default();
        let start = Instant::now();
        let attacker = Some("192.0.2.9".parse().unwrap());
        let neighbour = Some("192.0.2.10".parse().unwrap());
        for _ in 0..BURST {
            assert_eq!(lockout.refused(attacker, start), None);
            lockout.failed(attacker, start);
        }
        let wait = lockout.refused(attacker, start).expect("locked out");
        assert_eq!(wait, REFILL);
        assert_eq!(lockout.refused(neighbour, start), None, "others go on");
        // One attempt more after one refill, and no more.
        let later = start + REFILL;
        assert_eq!(lockout.refused(attacker, later), None);
        lockout.failed(attacker, later);
        assert!(lockout.refused(attacker, later).is_some());
        // A long pause restores the whole burst, not more.
        let much_later = later + REFILL * 100;
        for _ in 0..BURST {
            assert_eq!(lockout.refused(attacker, much_later), None);
            lockout.failed(attacker, much_later);
        }
        assert!(lockout.refused(attacker, much_later).is_some());
    }

    #[test]
    fn an_ipv6_host_counts_by_its_64_bit_prefix() {
        let lockout = Lockout::default();
        let now = Instant::now();
        for host in 0..BURST {
            lockout.failed(
                Some(format!("2001:db8:1:2::{host:x}").parse().unwrap()),
                now,
            );
        }
        assert!(
            lockout
                .refused(Some("2001:db8:1:2::ffff".parse().unwrap()), now)
                .is_some()
        );
        assert!(
            lockout
                .refused(Some("2001:db8:1:3::1".parse().unwrap()), now)
                .is_none()
        );
        // An IPv4 address in IPv6 form is that IPv4 address.
        for _ in 0..BURST {
            lockout.failed(Some("::ffff:192.0.2.1".parse().unwrap()), now);
        }
        assert!(
            lockout
                .refused(Some("192.0.2.1".parse().unwrap()), now)
                .is_some()
        );
    }

    #[test]
    fn memory_is_bounded_by_the_addresses_remembered() {
        let lockout = Lockout::default();
        let now = Instant::now();
        for host in 0..(REMEMBERED as u32 + 100) {
            lockout.failed(Some(IpAddr::V4(host.into())), now);
        }
        let allowances = lockout.allowances.lock().unwrap();
        assert_eq!(allowances.len(), REMEMBERED);
    }
}
