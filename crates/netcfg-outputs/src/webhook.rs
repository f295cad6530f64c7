//! A webhook output: a thread of its own (ureq blocks) that POSTs each
//! queued event, signed, in order. A 5xx, a time-out or a refused
//! connection is retried with back-off, the message held at the head; a
//! 4xx (or a redirect) is not: the server refused this message, and
//! sending it again would not change its mind.

use std::{
    thread,
    time::{Duration, Instant},
};

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use ureq::Agent;

use crate::{
    OutputContext, STOP_GRACE,
    backoff::Backoff,
    http_client::{http_agent, plain_http_agent},
    payload,
    queue::Entry,
};

/// The most positions in one batch POST.
const MAX_BATCH_POSITIONS: usize = 2_000;
/// How long one POST may take, connection included.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// How often an idle thread looks whether its output stopped.
const IDLE_WAKE: Duration = Duration::from_millis(500);

/// One POST, ready to go (and to go again).
#[derive(Debug)]
struct Delivery {
    kind: &'static str,
    body: Vec<u8>,
}

/// How a POST went.
#[derive(Debug)]
enum Outcome {
    Delivered,
    /// Refused (4xx, or a redirect we do not follow): not retried.
    Refused(u16),
    /// Worth trying again (5xx, time-out, connection refused).
    Failed(String),
}

/// Starts a webhook output's thread.
pub(crate) fn start(context: OutputContext) -> Result<(), String> {
    let agent = agent(&context)?;
    let name = format!("webhook-{}", context.plan.output.name);
    thread::Builder::new()
        .name(name.chars().take(15).collect())
        .spawn(move || run(&context, &agent))
        .map(|_| ())
        .map_err(|error| format!("cannot start its thread: {error}"))
}

fn agent(context: &OutputContext) -> Result<Agent, String> {
    let output = &context.plan.output;
    // Plain http:// needs no roots: a missing CA file must not stop it.
    if !output.url.scheme().is_tls() {
        return Ok(plain_http_agent(REQUEST_TIMEOUT));
    }
    http_agent(output.ca_file.as_deref(), REQUEST_TIMEOUT).map_err(|error| error.to_string())
}

/// `sha256=` and the hex HMAC-SHA256 of `body` keyed with `secret`.
pub(crate) fn signature(secret: &str, body: &[u8]) -> String {
    // HMAC takes keys of any length: this cannot fail.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes())
        .expect("HMAC accepts keys of any length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// The thread: deliver, in order, until stopped and flushed (or out of
/// grace).
fn run(context: &OutputContext, agent: &Agent) {
    let output = &context.plan.output;
    let queue = &context.queue;
    let counters = &context.counters;
    let batch = Duration::from_millis(u64::from(output.batch_ms.get()));
    let batching = !batch.is_zero();
    let mut next_batch = Instant::now() + batch;
    let mut backoff = Backoff::default();
    let mut held: Option<Delivery> = None;
    let mut deadline: Option<Instant> = None;
    if context.plan.secrets.secret.is_none() {
        log::warn!(
            "output {} of {}: no secret set: its POSTs go unsigned",
            output.name,
            context.net
        );
    }
    loop {
        let now = Instant::now();
        let closing = queue.is_closing();
        if closing {
            let end = *deadline.get_or_insert(now + STOP_GRACE);
            if now >= end {
                break;
            }
        }
        let batch_due = batching && (now >= next_batch || closing);
        let delivery = match held.take() {
            Some(delivery) => delivery,
            None => match next_delivery(context, batching, batch_due) {
                Some(delivery) => delivery,
                None if closing => break,
                None => {
                    if batch_due {
                        // All gathered positions went: a new period starts.
                        next_batch = now + batch;
                    }
                    let wait = if batching {
                        next_batch.saturating_duration_since(now).min(IDLE_WAKE)
                    } else {
                        IDLE_WAKE
                    };
                    queue.wait_blocking(wait, !batching);
                    continue;
                }
            },
        };
        counters.set_in_hand(1);
        match post(context, agent, &delivery) {
            Outcome::Delivered => {
                backoff.reset();
                counters.set_connected(true);
                counters.add_sent(1);
                counters.set_in_hand(0);
            }
            Outcome::Refused(status) => {
                backoff.reset();
                // The server answered: it is up.
                counters.set_connected(true);
                counters.add_rejected();
                counters.set_in_hand(0);
                let error = format!(
                    "{} refused a {} event with HTTP {status}; not retried",
                    output.url, delivery.kind
                );
                log::warn!("output {} of {}: {error}", output.name, context.net);
                counters.set_error(error);
            }
            Outcome::Failed(reason) => {
                counters.set_connected(false);
                let error = format!("{}: {reason}; retrying", output.url);
                log::debug!("output {} of {}: {error}", output.name, context.net);
                counters.set_error(error);
                held = Some(delivery);
                sleep_unless_past(backoff.next_wait(), deadline);
            }
        }
    }
    counters.set_connected(false);
    counters.set_in_hand(0);
    let left = queue.len() + usize::from(held.is_some());
    if left > 0 {
        log::warn!(
            "output {} of {} stopped with {left} messages undelivered",
            output.name,
            context.net
        );
    }
}

/// Sleeps `wait`, but not past the stop deadline.
fn sleep_unless_past(wait: Duration, deadline: Option<Instant>) {
    let wait = match deadline {
        Some(end) => wait.min(end.saturating_duration_since(Instant::now())),
        None => wait,
    };
    thread::sleep(wait);
}

/// The next POST: the oldest event (or position when not batching), or,
/// when a batch is due, the gathered positions.
fn next_delivery(context: &OutputContext, batching: bool, batch_due: bool) -> Option<Delivery> {
    let queue = &context.queue;
    if let Some(entry) = queue.pop(!batching) {
        return Some(match entry {
            Entry::Position(position) => Delivery {
                kind: "position",
                body: payload::webhook_position(&context.net, &position),
            },
            Entry::Event(event) => Delivery {
                kind: payload::event_kind(&event).as_str(),
                body: payload::event_body(&context.net, &event),
            },
        });
    }
    if batching && batch_due {
        let positions = queue.take_positions(MAX_BATCH_POSITIONS);
        if !positions.is_empty() {
            return Some(Delivery {
                kind: "position",
                body: payload::position_batch(&positions),
            });
        }
    }
    None
}

fn post(context: &OutputContext, agent: &Agent, delivery: &Delivery) -> Outcome {
    let mut request = agent
        .post(context.plan.output.url.as_str())
        .header("Content-Type", "application/json")
        .header("Netcfg-Event", delivery.kind)
        .header("Netcfg-Net", context.net.as_str());
    if let Some(secret) = &context.plan.secrets.secret {
        request = request.header("Netcfg-Signature", signature(secret, &delivery.body));
    }
    match request.send(&delivery.body[..]) {
        Ok(mut response) => {
            let status = response.status().as_u16();
            // Read the (small) answer so the connection can be reused.
            let _answer = response
                .body_mut()
                .with_config()
                .limit(64 * 1024)
                .read_to_vec();
            match status {
                200..=299 => Outcome::Delivered,
                500..=599 => Outcome::Failed(format!("HTTP {status}")),
                _ => Outcome::Refused(status),
            }
        }
        Err(error) => Outcome::Failed(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_matches_a_known_hmac() {
        // RFC 4231, test case 2.
        assert_eq!(
            signature("Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
