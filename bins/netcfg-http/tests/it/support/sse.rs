//! A Server-Sent Events client over a plain socket: it reads the chunked
//! body as it arrives, parses each event, and hands it over a channel, so a
//! test can wait for the next event, or for the stream's end.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    sync::mpsc::{self, Receiver, RecvTimeoutError},
    thread,
    time::{Duration, Instant},
};

use serde_json::Value;

use super::{HUNG, Server};

/// One event as received.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SseEvent {
    /// `event:`.
    pub(crate) name: String,
    /// `id:`, if any.
    pub(crate) id: Option<String>,
    /// `data:`, parsed.
    pub(crate) data: Value,
}

/// What the reader saw.
#[derive(Debug)]
enum Received {
    Event(SseEvent),
    Comment(String),
    /// The body ended with its last chunk: a clean end.
    End,
    /// The connection broke, or the body was not well formed.
    Broken(String),
}

/// A subscription to a stream of events.
#[derive(Debug)]
pub(crate) struct EventClient {
    received: Receiver<Received>,
    socket: TcpStream,
    /// Comment lines seen so far.
    pub(crate) comments: Vec<String>,
}

impl Server {
    /// Opens `path` as an event stream with `headers`; waits for the 200 and
    /// the stream's first line (so the subscription is in place).
    pub(crate) fn events(&self, path: &str, headers: &[(&str, &str)]) -> EventClient {
        let socket = TcpStream::connect_timeout(&self.address, HUNG).expect("a connection");
        let mut head = format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n",
            self.address
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        (&socket)
            .write_all(head.as_bytes())
            .expect("the request is sent");
        let reader = socket.try_clone().expect("a second handle");
        let (sender, received) = mpsc::channel();
        let (head_sender, head_received) = mpsc::channel();
        thread::spawn(move || read_stream(reader, &head_sender, &sender));
        let status_and_type: (String, String) = head_received
            .recv_timeout(HUNG)
            .expect("the response head arrives");
        assert!(
            status_and_type.0.starts_with("HTTP/1.1 200"),
            "GET {path}: {status_and_type:?}"
        );
        assert_eq!(
            status_and_type.1, "text/event-stream",
            "GET {path}: the content type"
        );
        let mut client = EventClient {
            received,
            socket,
            comments: Vec::new(),
        };
        match client.received.recv_timeout(HUNG) {
            Ok(Received::Comment(comment)) => client.comments.push(comment),
            other => panic!("GET {path}: the stream opens with a comment, not {other:?}"),
        }
        client
    }
}

impl EventClient {
    /// The next event within `wait`, or `None` (comments are kept aside).
    /// Panics if the stream ends or breaks.
    pub(crate) fn next_within(&mut self, wait: Duration) -> Option<SseEvent> {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.received.recv_timeout(left) {
                Ok(Received::Event(event)) => return Some(event),
                Ok(Received::Comment(comment)) => self.comments.push(comment),
                Ok(other) => panic!("the stream ended while an event was awaited: {other:?}"),
                Err(RecvTimeoutError::Timeout) => return None,
                Err(RecvTimeoutError::Disconnected) => panic!("the reader stopped"),
            }
        }
    }

    /// The next event (waits at most [`HUNG`]).
    pub(crate) fn next(&mut self) -> SseEvent {
        self.next_within(HUNG)
            .unwrap_or_else(|| panic!("no event within {HUNG:?}"))
    }

    /// Skips events until one `name` for which `matches` holds; returns it
    /// and what was skipped.
    pub(crate) fn until(
        &mut self,
        name: &str,
        matches: impl Fn(&Value) -> bool,
    ) -> (SseEvent, Vec<SseEvent>) {
        let mut skipped = Vec::new();
        loop {
            let event = self.next();
            if event.name == name && matches(&event.data) {
                return (event, skipped);
            }
            skipped.push(event);
        }
    }

    /// Reads until an event of each of `names` has come; the first of each.
    pub(crate) fn until_each(
        &mut self,
        names: &[&str],
    ) -> std::collections::BTreeMap<String, SseEvent> {
        let mut first = std::collections::BTreeMap::new();
        while names.iter().any(|name| !first.contains_key(*name)) {
            let event = self.next();
            first.entry(event.name.clone()).or_insert(event);
        }
        first
    }

    /// Every event that comes within `wait`.
    pub(crate) fn collect_for(&mut self, wait: Duration) -> Vec<SseEvent> {
        let deadline = Instant::now() + wait;
        let mut events = Vec::new();
        while let Some(event) = self.next_within(deadline.saturating_duration_since(Instant::now()))
        {
            events.push(event);
        }
        events
    }

    /// Waits for the stream's end; true for a clean end (the last chunk),
    /// after any events still to come.
    pub(crate) fn ends_cleanly(&mut self) -> bool {
        loop {
            match self.received.recv_timeout(HUNG) {
                Ok(Received::Event(_) | Received::Comment(_)) => {}
                Ok(Received::End) => return true,
                Ok(Received::Broken(_)) | Err(_) => return false,
            }
        }
    }

    /// Closes the connection.
    pub(crate) fn close(self) {
        let _ = self.socket.shutdown(std::net::Shutdown::Both);
    }
}

fn read_stream(
    socket: TcpStream,
    head_sender: &mpsc::Sender<(String, String)>,
    sender: &mpsc::Sender<Received>,
) {
    let mut reader = BufReader::new(socket);
    let mut status = String::new();
    let mut content_type = String::new();
    let mut line = String::new();
    let mut first = true;
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            let _ = head_sender.send((status, content_type));
            return;
        }
        let text = line.trim_end();
        if first {
            status = text.to_owned();
            first = false;
        } else if text.is_empty() {
            break;
        } else if let Some((name, value)) = text.split_once(':')
            && name.eq_ignore_ascii_case("content-type")
        {
            content_type = value.trim().to_owned();
        }
    }
    let _ = head_sender.send((status, content_type));
    let mut pending = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            let _ = sender.send(Received::Broken("the connection closed".to_owned()));
            return;
        }
        let Ok(size) = usize::from_str_radix(line.trim_end(), 16) else {
            let _ = sender.send(Received::Broken(format!("a bad chunk size: {line:?}")));
            return;
        };
        if size == 0 {
            let _ = sender.send(Received::End);
            return;
        }
        let mut chunk = vec![0; size + 2];
        if reader.read_exact(&mut chunk).is_err() {
            let _ = sender.send(Received::Broken("a chunk was cut short".to_owned()));
            return;
        }
        chunk.truncate(size);
        pending.push_str(&String::from_utf8(chunk).expect("events are UTF-8"));
        while let Some(end) = pending.find("\n\n") {
            let block: String = pending.drain(..end + 2).collect();
            if sender.send(parse_block(block.trim_end())).is_err() {
                return;
            }
        }
    }
}

/// One block of lines: an event, or comments (and `retry:`).
fn parse_block(block: &str) -> Received {
    let mut name = None;
    let mut id = None;
    let mut data = None;
    let mut comments = Vec::new();
    for line in block.lines() {
        if let Some(comment) = line.strip_prefix(':') {
            comments.push(comment.trim().to_owned());
        } else if let Some(value) = line.strip_prefix("event: ") {
            name = Some(value.to_owned());
        } else if let Some(value) = line.strip_prefix("id: ") {
            id = Some(value.to_owned());
        } else if let Some(value) = line.strip_prefix("data: ") {
            assert!(data.is_none(), "one data line per event: {block}");
            data = Some(serde_json::from_str(value).expect("data is one JSON object"));
        } else {
            assert!(line.starts_with("retry: "), "an unknown line: {line:?}");
        }
    }
    match (name, data) {
        (Some(name), Some(data)) => Received::Event(SseEvent { name, id, data }),
        (None, None) => Received::Comment(comments.join("\n")),
        _ => Received::Broken(format!("an event without its name or data: {block}")),
    }
}
