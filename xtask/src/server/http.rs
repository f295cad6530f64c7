//! A tiny HTTP/1.1 client over one kept-alive `TcpStream`: enough for the
//! load tasks (JSON bodies, a multipart upload, Content-Length or chunked
//! answers), nothing more.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    time::Duration,
};

use anyhow::{Context, Result, bail};

use super::Value;

/// No request of the load tasks takes this long unless the server hangs.
const IO_TIMEOUT: Duration = Duration::from_secs(30);

/// One answer.
#[derive(Debug)]
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) body: Vec<u8>,
}

impl Response {
    /// The body as JSON.
    pub(crate) fn json(&self) -> Result<Value> {
        serde_json::from_slice(&self.body)
            .with_context(|| format!("a {} answer that is not JSON: {}", self.status, self.text()))
    }

    /// The body as text, for messages (shortened).
    pub(crate) fn text(&self) -> String {
        let text = String::from_utf8_lossy(&self.body);
        match text.char_indices().nth(300) {
            Some((cut, _)) => format!("{}...", &text[..cut]),
            None => text.into_owned(),
        }
    }

    /// The payload under `key` of a JSON envelope.
    pub(crate) fn payload(&self, key: &str) -> Result<Value> {
        self.json()?
            .get(key)
            .cloned()
            .with_context(|| format!("no `{key}` in the answer {}", self.text()))
    }
}

/// A client of one server port, reusing its connection.
#[derive(Debug)]
pub(crate) struct Client {
    port: u16,
    connection: Option<BufReader<TcpStream>>,
}

impl Client {
    pub(crate) fn new(port: u16) -> Client {
        Client {
            port,
            connection: None,
        }
    }

    /// Points the client at another port (a restarted server).
    pub(crate) fn set_port(&mut self, port: u16) {
        if port != self.port {
            self.port = port;
            self.connection = None;
        }
    }

    /// A request with an optional JSON body.
    pub(crate) fn send(
        &mut self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Response> {
        match body {
            Some(json) => self.request(
                method,
                path,
                Some("application/json"),
                json.to_string().as_bytes(),
            ),
            None => self.request(method, path, None, b""),
        }
    }

    /// `POST /nets/upload` of a saved-state file under `name`.
    pub(crate) fn upload(&mut self, name: &str, file: &[u8]) -> Result<Response> {
        let boundary = "netcfg-xtask-4f1c2a9e";
        let mut body = Vec::new();
        write!(
            body,
            "--{boundary}\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\n{name}\r\n\
             --{boundary}\r\nContent-Disposition: form-data; name=\"net_file\"; filename=\"{name}.sqlite\"\r\n\
             Content-Type: application/vnd.sqlite3\r\n\r\n"
        )?;
        body.extend_from_slice(file);
        write!(body, "\r\n--{boundary}--\r\n")?;
        self.request(
            "POST",
            "/nets/upload",
            Some(&format!("multipart/form-data; boundary={boundary}")),
            &body,
        )
    }

    /// One request. On a reused connection that the server closed while it
    /// was idle (nothing at all came back), the request is sent once more
    /// on a new connection: the server never saw the first one.
    pub(crate) fn request(
        &mut self,
        method: &str,
        path: &str,
        content_type: Option<&str>,
        body: &[u8],
    ) -> Result<Response> {
        let reused = self.connection.is_some();
        match self.exchange(method, path, content_type, body) {
            Ok(response) => Ok(response),
            Err(Exchange::NothingBack(_)) if reused => self
                .exchange(method, path, content_type, body)
                .map_err(Exchange::into_error),
            Err(error) => Err(error.into_error()),
        }
    }

    fn exchange(
        &mut self,
        method: &str,
        path: &str,
        content_type: Option<&str>,
        body: &[u8],
    ) -> Result<Response, Exchange> {
        let result = self.try_exchange(method, path, content_type, body);
        if result.is_err() {
            self.connection = None;
        }
        result
    }

    fn try_exchange(
        &mut self,
        method: &str,
        path: &str,
        content_type: Option<&str>,
        body: &[u8],
    ) -> Result<Response, Exchange> {
        if self.connection.is_none() {
            let stream = TcpStream::connect(("127.0.0.1", self.port))
                .with_context(|| format!("could not connect to port {}", self.port))
                .map_err(Exchange::Failed)?;
            stream
                .set_read_timeout(Some(IO_TIMEOUT))
                .map_err(|e| Exchange::Failed(e.into()))?;
            stream
                .set_write_timeout(Some(IO_TIMEOUT))
                .map_err(|e| Exchange::Failed(e.into()))?;
            let _ = stream.set_nodelay(true);
            self.connection = Some(BufReader::new(stream));
        }
        let Some(connection) = self.connection.as_mut() else {
            return Err(Exchange::Failed(anyhow::anyhow!("no connection")));
        };
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\n",
            body.len()
        );
        if let Some(content_type) = content_type {
            head.push_str(&format!("Content-Type: {content_type}\r\n"));
        }
        head.push_str("\r\n");
        let mut request = head.into_bytes();
        request.extend_from_slice(body);
        // A write to a connection the server closed may still succeed (the
        // bytes go to the kernel); the read then finds nothing.
        if let Err(error) = connection.get_mut().write_all(&request) {
            return Err(Exchange::NothingBack(error.into()));
        }
        let mut status_line = String::new();
        match connection.read_line(&mut status_line) {
            Ok(0) => {
                return Err(Exchange::NothingBack(anyhow::anyhow!(
                    "the server closed the connection"
                )));
            }
            Ok(_) => {}
            Err(error) if status_line.is_empty() && is_reset(&error) => {
                return Err(Exchange::NothingBack(error.into()));
            }
            Err(error) => return Err(Exchange::Failed(error.into())),
        }
        read_rest(connection, &status_line).map_err(Exchange::Failed)
    }
}

fn is_reset(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::ConnectionAborted
    )
}

/// How an exchange failed: before any byte of an answer came back, or later.
enum Exchange {
    NothingBack(anyhow::Error),
    Failed(anyhow::Error),
}

impl Exchange {
    fn into_error(self) -> anyhow::Error {
        match self {
            Exchange::NothingBack(error) | Exchange::Failed(error) => error,
        }
    }
}

fn read_rest(connection: &mut BufReader<TcpStream>, status_line: &str) -> Result<Response> {
    let status: u16 = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .with_context(|| format!("not an HTTP status line: {status_line:?}"))?;
    let mut length = None;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        if connection.read_line(&mut line)? == 0 {
            bail!("the connection closed inside the headers");
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            bail!("a malformed header: {line:?}");
        };
        let value = value.trim();
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = Some(value.parse::<usize>()?),
            "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
            _ => {}
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size_line = String::new();
            connection.read_line(&mut size_line)?;
            let size = usize::from_str_radix(size_line.trim().split(';').next().unwrap_or(""), 16)
                .with_context(|| format!("a bad chunk size: {size_line:?}"))?;
            let mut chunk = vec![0; size + 2];
            connection.read_exact(&mut chunk)?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(length) = length {
        body.resize(length, 0);
        connection.read_exact(&mut body)?;
    } else if status != 204 && status != 304 {
        bail!("a {status} answer with neither a length nor chunks");
    }
    Ok(Response { status, body })
}
