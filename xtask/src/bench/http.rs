//! A tiny HTTP/1.1 client with keep-alive, for loading fixtures and timing
//! single requests (xtask depends on nothing but std and anyhow).

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    time::Duration,
};

use anyhow::{Context, Result, bail};

/// One kept-alive connection to the server on 127.0.0.1.
pub(crate) struct Client {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

/// A status and a body.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) body: Vec<u8>,
}

impl Answer {
    /// The body as text, for error messages.
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

impl Client {
    /// Connects to `127.0.0.1:port`.
    pub(crate) fn connect(port: u16) -> Result<Self> {
        let stream = TcpStream::connect(("127.0.0.1", port))
            .with_context(|| format!("could not connect to 127.0.0.1:{port}"))?;
        stream.set_nodelay(true)?;
        // Only stops a hung server; no figure depends on it.
        stream.set_read_timeout(Some(Duration::from_secs(60)))?;
        Ok(Self {
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
        })
    }

    /// Sends one request and reads its answer whole.
    pub(crate) fn send(&mut self, method: &str, path: &str, body: Option<&str>) -> Result<Answer> {
        let mut request = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        if let Some(body) = body {
            request.push_str(&format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            ));
        } else {
            request.push_str("\r\n");
        }
        self.writer
            .write_all(request.as_bytes())
            .with_context(|| format!("{method} {path}: could not send"))?;
        self.read_answer()
            .with_context(|| format!("{method} {path}: no valid answer"))
    }

    /// Sends one request and fails unless the answer is 2xx.
    pub(crate) fn expect_ok(
        &mut self,
        method: &str,
        path: &str,
        body: Option<&str>,
    ) -> Result<Answer> {
        let answer = self.send(method, path, body)?;
        if !(200..300).contains(&answer.status) {
            bail!(
                "{method} {path} answered {}: {}",
                answer.status,
                answer.text()
            );
        }
        Ok(answer)
    }

    fn read_answer(&mut self) -> Result<Answer> {
        let mut line = String::new();
        self.reader.read_line(&mut line)?;
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .with_context(|| format!("not an HTTP status line: {line:?}"))?;
        let mut length = None;
        let mut chunked = false;
        loop {
            line.clear();
            if self.reader.read_line(&mut line)? == 0 {
                bail!("the connection closed inside the headers");
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                let value = value.trim();
                if name.eq_ignore_ascii_case("content-length") {
                    length = Some(value.parse::<usize>()?);
                } else if name.eq_ignore_ascii_case("transfer-encoding") {
                    chunked = value.eq_ignore_ascii_case("chunked");
                }
            }
        }
        let body = if chunked {
            self.read_chunked()?
        } else {
            let mut body = vec![0; length.unwrap_or(0)];
            self.reader.read_exact(&mut body)?;
            body
        };
        Ok(Answer { status, body })
    }

    fn read_chunked(&mut self) -> Result<Vec<u8>> {
        let mut body = Vec::new();
        let mut line = String::new();
        loop {
            line.clear();
            self.reader.read_line(&mut line)?;
            let size = usize::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .with_context(|| format!("not a chunk size: {line:?}"))?;
            let start = body.len();
            body.resize(start + size + 2, 0);
            self.reader.read_exact(&mut body[start..])?;
            body.truncate(start + size);
            if size == 0 {
                return Ok(body);
            }
        }
    }
}
