//! The server's event stream (`text/event-stream`) read over a plain
//! socket, blocking, one chunk at a time: what the zones' and the outputs'
//! benches listen with (the live events' bench reads it its own way, with
//! many connections on one thread).

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
};

use anyhow::{Context, Result, bail};

/// Sends `GET {path}` on a new connection to the server at `port` and
/// reads the answer's head; fails unless it is a 200. The reader is left
/// at the body's first chunk.
pub(crate) fn open(port: u16, path: &str) -> Result<BufReader<TcpStream>> {
    open_as(port, path, None)
}

/// [`open`] with `Authorization: Bearer {bearer}` when given (a server
/// with access control on).
pub(crate) fn open_as(port: u16, path: &str, bearer: Option<&str>) -> Result<BufReader<TcpStream>> {
    let mut socket = TcpStream::connect(("127.0.0.1", port)).context("the event stream")?;
    let authorization = bearer
        .map(|secret| format!("Authorization: Bearer {secret}\r\n"))
        .unwrap_or_default();
    write!(
        socket,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n{authorization}\r\n"
    )?;
    let mut reader = BufReader::new(socket);
    let mut status = String::new();
    reader.read_line(&mut status)?;
    if !status.starts_with("HTTP/1.1 200") {
        bail!("GET {path} answered {}", status.trim());
    }
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        if line == "\r\n" || line.is_empty() {
            break;
        }
    }
    Ok(reader)
}

/// Reads events until the stream ends, handing each event's text (its
/// lines, up to the blank line that ends it) to `handle` with what `now`
/// said when its chunk arrived: every event of a chunk arrived together.
pub(crate) fn each_event<T: Copy>(
    reader: &mut BufReader<TcpStream>,
    now: impl Fn() -> T,
    mut handle: impl FnMut(&str, T),
) {
    let mut pending = String::new();
    while let Some(chunk) = read_chunk(reader) {
        pending.push_str(&chunk);
        let arrived = now();
        while let Some(end) = pending.find("\n\n") {
            let event: String = pending.drain(..end + 2).collect();
            handle(&event, arrived);
        }
    }
}

/// An event's `data:` line as JSON; `None` when it has none or it is not
/// JSON.
pub(crate) fn data(event: &str) -> Option<serde_json::Value> {
    event
        .lines()
        .find_map(|line| line.strip_prefix("data: "))
        .and_then(|data| serde_json::from_str(data).ok())
}

/// One chunk of a chunked body, as text; `None` at the end or on an error.
fn read_chunk(reader: &mut BufReader<TcpStream>) -> Option<String> {
    let mut size_line = String::new();
    reader.read_line(&mut size_line).ok()?;
    let size = usize::from_str_radix(size_line.trim(), 16).ok()?;
    if size == 0 {
        return None;
    }
    let mut bytes = vec![0; size + 2];
    reader.read_exact(&mut bytes).ok()?;
    bytes.truncate(size);
    String::from_utf8(bytes).ok()
}
