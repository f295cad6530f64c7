//! The soak's 100 SSE subscribers of the site (`soak --everything`): each
//! on its own connection and thread, opened before the site starts and
//! closed after it stopped, so each must have heard every zone event the
//! server told its reference stream, positions all along, no `resync`,
//! and its stream must never have ended on its own.

use std::{
    collections::BTreeSet,
    net::{Shutdown, TcpStream},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    thread,
    time::Instant,
};

use anyhow::Result;

use super::everything::Report;
use crate::bench::{
    outputs::peers::{keep, parse_event},
    sse,
};

/// Subscribers of the site's live events.
pub(super) const SUBSCRIBERS: usize = 100;

/// What one subscriber heard.
#[derive(Debug, Default)]
pub(super) struct Heard {
    zones: BTreeSet<String>,
    position_batches: u64,
    resyncs: u64,
    /// Its stream ended before the soak closed it.
    ended_early: bool,
}

/// The open subscribers.
pub(super) struct Listeners {
    sockets: Vec<TcpStream>,
    closing: Arc<AtomicBool>,
    threads: Vec<thread::JoinHandle<Heard>>,
}

/// What every subscriber heard, once closed.
pub(super) struct Listened(Vec<Heard>);

impl Listeners {
    /// Opens [`SUBSCRIBERS`] streams of `net`'s positions and zone events.
    pub(super) fn open(port: u16, net: &str, bearer: &str) -> Result<Listeners> {
        let closing = Arc::new(AtomicBool::new(false));
        let mut listeners = Listeners {
            sockets: Vec::with_capacity(SUBSCRIBERS),
            closing: closing.clone(),
            threads: Vec::with_capacity(SUBSCRIBERS),
        };
        let path = format!("/nets/{net}/events?types=position,zone");
        for _ in 0..SUBSCRIBERS {
            let mut reader = sse::open_as(port, &path, Some(bearer))?;
            listeners.sockets.push(reader.get_ref().try_clone()?);
            let closing = closing.clone();
            listeners.threads.push(thread::spawn(move || {
                let mut heard = Heard::default();
                sse::each_event(&mut reader, Instant::now, |text, at| {
                    let Some((kind, data)) = parse_event(text) else {
                        return;
                    };
                    match kind {
                        "zone" => {
                            heard.zones.insert(keep(kind, data, at).key);
                        }
                        "position" => heard.position_batches += 1,
                        "resync" => heard.resyncs += 1,
                        _ => {}
                    }
                });
                heard.ended_early = !closing.load(Ordering::Relaxed);
                heard
            }));
        }
        Ok(listeners)
    }

    /// Closes every stream and hands back what each heard.
    pub(super) fn close(self) -> Listened {
        self.closing.store(true, Ordering::Relaxed);
        for socket in &self.sockets {
            let _ = socket.shutdown(Shutdown::Both);
        }
        Listened(
            self.threads
                .into_iter()
                .map(|thread| thread.join().unwrap_or_default())
                .collect(),
        )
    }
}

impl Listened {
    /// Each subscriber against the zone events of the reference stream.
    pub(super) fn judge(&self, told: &BTreeSet<String>, report: &mut Report) {
        let mut fewest_batches = u64::MAX;
        let mut short = 0;
        for (index, heard) in self.0.iter().enumerate() {
            fewest_batches = fewest_batches.min(heard.position_batches);
            let missing = told.difference(&heard.zones).count();
            let unknown = heard.zones.difference(told).count();
            if missing + unknown > 0 {
                short += 1;
                if short == 1 {
                    report.failures.push(format!(
                        "SSE subscriber {index}: {missing} zone events missing, {unknown} never told the reference stream"
                    ));
                }
            }
            if heard.resyncs > 0 {
                report.failures.push(format!(
                    "SSE subscriber {index}: {} resyncs (it fell behind)",
                    heard.resyncs
                ));
            }
            if heard.ended_early {
                report
                    .failures
                    .push(format!("SSE subscriber {index}: its stream ended early"));
            }
            if heard.position_batches == 0 {
                report
                    .failures
                    .push(format!("SSE subscriber {index}: no position batch"));
            }
        }
        if short > 1 {
            report
                .failures
                .push(format!("{short} SSE subscribers in all missed zone events"));
        }
        report.lines.push(format!(
            "SSE subscribers {}: {} with every zone event, fewest position batches {}",
            self.0.len(),
            self.0.len() - short,
            if self.0.is_empty() { 0 } else { fewest_batches }
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heard(zones: &[&str], position_batches: u64) -> Heard {
        Heard {
            zones: zones.iter().map(|key| (*key).to_owned()).collect(),
            position_batches,
            ..Heard::default()
        }
    }

    #[test]
    fn each_subscriber_must_hear_what_the_reference_heard() {
        let told: BTreeSet<String> = ["a", "b"].map(str::to_owned).into();
        let mut report = Report {
            lines: Vec::new(),
            failures: Vec::new(),
        };
        Listened(vec![heard(&["a", "b"], 5), heard(&["a", "b"], 7)]).judge(&told, &mut report);
        assert!(report.failures.is_empty(), "{:?}", report.failures);
        assert_eq!(
            report.lines,
            ["SSE subscribers 2: 2 with every zone event, fewest position batches 5"]
        );

        let mut report = Report {
            lines: Vec::new(),
            failures: Vec::new(),
        };
        let mut ended = heard(&["a", "b"], 3);
        ended.ended_early = true;
        ended.resyncs = 1;
        Listened(vec![heard(&["a"], 5), heard(&["a", "b", "c"], 0), ended])
            .judge(&told, &mut report);
        assert_eq!(
            report.failures,
            [
                "SSE subscriber 0: 1 zone events missing, 0 never told the reference stream",
                "SSE subscriber 1: no position batch",
                "SSE subscriber 2: 1 resyncs (it fell behind)",
                "SSE subscriber 2: its stream ended early",
                "2 SSE subscribers in all missed zone events",
            ]
        );
    }
}
