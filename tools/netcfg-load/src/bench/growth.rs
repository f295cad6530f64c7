//! Growth: the cost of adding the 10,000th device of a configuration
//! divided by the cost of adding its 10th.
//!
//! Two configurations hold 9 and 9,999 tags. Then, round after round, the
//! 10th tag is added to the small one and the 10,000th to the large one
//! (one connection, one request at a time, each timed), and each is deleted
//! again (not timed), so every sample is an add at the same size. The
//! rounds alternate between the two, so whatever else the machine does
//! weighs on both alike; the figure is the ratio of the medians.

use std::{thread, time::Instant};

use anyhow::{Result, anyhow};

use super::{fixture, report::Growth};
use crate::server::Client;

const SMALL_NET: &str = "growth-10";
const LARGE_NET: &str = "growth-10000";
const EARLY: usize = 10;
const LATE: usize = 10_000;
/// Timed adds at each size: many, because on a shared 2-core machine a
/// single add (well under a millisecond) is easily delayed by other work.
const ROUNDS: usize = 201;
/// Replacements that bring the small configuration's write-ahead log to its
/// steady size first, one commit each (one connection). Commits to a new
/// file append to its log, which grows (and each sync then also writes the
/// file's size) until the first checkpoint; later commits overwrite it in
/// place and sync faster. The large configuration got there while it was
/// filled.
const WAL_WARMING_PATCHES: usize = 2_000;

/// A growth tag, numbered from 1.
fn serial(number: usize) -> String {
    format!("01:06:{number:04X}")
}

fn tag(number: usize) -> String {
    fixture::tag_body(&serial(number), &format!("Growth tag {number}"))
}

/// Sends `requests` (method, path, body) from `loaders` connections at once;
/// the server groups their commits.
pub(crate) fn send_concurrently(
    port: u16,
    loaders: usize,
    requests: &[(&str, String, String)],
) -> Result<()> {
    let share = requests.len().div_ceil(loaders).max(1);
    thread::scope(|scope| {
        let workers: Vec<_> = requests
            .chunks(share)
            .map(|chunk| {
                scope.spawn(move || -> Result<()> {
                    let client = Client::new(port);
                    for (method, path, body) in chunk {
                        client.expect_ok(method, path, Some(body))?;
                    }
                    Ok(())
                })
            })
            .collect();
        workers.into_iter().try_for_each(|worker| {
            worker
                .join()
                .map_err(|_| anyhow!("a client thread panicked"))?
        })
    })
}

fn adds(net: &str, numbers: std::ops::Range<usize>) -> Vec<(&'static str, String, String)> {
    numbers
        .map(|number| ("POST", format!("/nets/{net}/devices"), tag(number)))
        .collect()
}

/// Adds the `number`th tag to `net`, timed, and deletes it again.
fn timed_add(client: &Client, net: &str, number: usize) -> Result<f64> {
    let body = tag(number);
    let start = Instant::now();
    client.expect_ok("POST", &format!("/nets/{net}/devices"), Some(&body))?;
    let ms = start.elapsed().as_secs_f64() * 1_000.0;
    client.expect_ok(
        "DELETE",
        &format!("/nets/{net}/devices/{}", serial(number)),
        None,
    )?;
    Ok(ms)
}

/// Measures growth with a fresh pair of configurations, deleted afterwards.
pub(crate) fn measure(port: u16, loaders: usize) -> Result<Growth> {
    let client = Client::new(port);
    for net in [SMALL_NET, LARGE_NET] {
        super::create_net(&client, net)?;
    }
    send_concurrently(port, loaders, &adds(SMALL_NET, 1..EARLY))?;
    send_concurrently(port, loaders, &adds(LARGE_NET, 1..LATE))?;
    let warming: Vec<_> = (0..WAL_WARMING_PATCHES)
        .map(|round| {
            let number = round % (EARLY - 1) + 1;
            let body =
                fixture::tag_body(&serial(number), &format!("Growth tag {number} rev {round}"));
            (
                "PATCH",
                format!("/nets/{SMALL_NET}/devices/{}", serial(number)),
                body,
            )
        })
        .collect();
    send_concurrently(port, 1, &warming)?;
    // The fill left the connection idle long enough for the server to close it.
    let client = Client::new(port);
    let (mut early_ms, mut late_ms) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        early_ms.push(timed_add(&client, SMALL_NET, EARLY)?);
        late_ms.push(timed_add(&client, LARGE_NET, LATE)?);
    }
    for net in [SMALL_NET, LARGE_NET] {
        client.expect_ok("DELETE", &format!("/nets/{net}"), None)?;
    }
    Ok(Growth {
        early_at: EARLY,
        late_at: LATE,
        early_ms,
        late_ms,
    })
}
