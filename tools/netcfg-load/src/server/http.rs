//! The one HTTP client of the harnesses and xtask: [`ureq`] with plain HTTP only, keeping
//! connections alive between requests (`ureq` probes a pooled connection
//! before reusing it, so one the server closed while it sat idle is
//! replaced, not failed on).

use std::time::Duration;

use anyhow::{Context, Result, bail};
use ureq::{Agent, http};

use super::Value;

/// No request of the tasks takes this long unless the server hangs.
const IO_TIMEOUT: Duration = Duration::from_secs(60);
/// The largest answer read: a downloaded configuration of the benchmarks'
/// site fits many times over.
const BODY_LIMIT: u64 = 256 * 1024 * 1024;

/// One answer.
#[derive(Debug)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The body, read whole.
    pub body: Vec<u8>,
}

impl Response {
    /// The body as JSON.
    pub fn json(&self) -> Result<Value> {
        serde_json::from_slice(&self.body)
            .with_context(|| format!("a {} answer that is not JSON: {}", self.status, self.text()))
    }

    /// The body as text, for messages (shortened).
    pub fn text(&self) -> String {
        let text = String::from_utf8_lossy(&self.body);
        match text.char_indices().nth(300) {
            Some((cut, _)) => format!("{}...", &text[..cut]),
            None => text.into_owned(),
        }
    }

    /// The payload under `key` of a JSON envelope.
    pub fn payload(&self, key: &str) -> Result<Value> {
        self.json()?
            .get(key)
            .cloned()
            .with_context(|| format!("no `{key}` in the answer {}", self.text()))
    }
}

/// A client of one server; clones share its connections.
#[derive(Debug, Clone)]
pub struct Client {
    agent: Agent,
    /// `http://host:port`.
    base: String,
    /// A key or token sent as `Authorization: Bearer` with every request.
    bearer: Option<String>,
}

impl Client {
    /// A client of the server on `port` of the loopback interface.
    pub fn new(port: u16) -> Client {
        Client::at(&format!("127.0.0.1:{port}"))
    }

    /// A client of the server at `address` (`host:port`).
    pub fn at(address: &str) -> Client {
        let agent = Agent::config_builder()
            // A 4xx or 5xx is an answer the tasks look at, not an error.
            .http_status_as_error(false)
            .timeout_global(Some(IO_TIMEOUT))
            .build()
            .into();
        Client {
            agent,
            base: format!("http://{address}"),
            bearer: None,
        }
    }

    /// The same client, sending `secret` (a key or token) with every request.
    pub fn with_bearer(mut self, secret: &str) -> Client {
        self.bearer = Some(secret.to_owned());
        self
    }

    /// Points the client at another port of the loopback interface (a
    /// restarted server).
    pub fn set_port(&mut self, port: u16) {
        self.base = format!("http://127.0.0.1:{port}");
    }

    /// A request with an optional JSON body.
    pub fn send(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Response> {
        self.send_text(method, path, body.map(Value::to_string).as_deref())
    }

    /// A request with an optional JSON body given as text; fails unless the
    /// answer is 2xx.
    pub fn expect_ok(&self, method: &str, path: &str, json: Option<&str>) -> Result<Response> {
        let response = self.send_text(method, path, json)?;
        if !(200..300).contains(&response.status) {
            bail!(
                "{method} {path} answered {}: {}",
                response.status,
                response.text()
            );
        }
        Ok(response)
    }

    fn send_text(&self, method: &str, path: &str, json: Option<&str>) -> Result<Response> {
        match json {
            Some(json) => self.request(
                method,
                path,
                Some("application/json"),
                json.as_bytes().to_vec(),
            ),
            None => self.request(method, path, None, Vec::new()),
        }
    }

    /// `POST /nets/upload` of a saved-state file under `name`.
    pub fn upload(&self, name: &str, file: &[u8]) -> Result<Response> {
        let boundary = "netcfg-xtask-4f1c2a9e";
        let mut body = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\n{name}\r\n\
             --{boundary}\r\nContent-Disposition: form-data; name=\"net_file\"; filename=\"{name}.sqlite\"\r\n\
             Content-Type: application/vnd.sqlite3\r\n\r\n"
        )
        .into_bytes();
        body.extend_from_slice(file);
        body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        self.request(
            "POST",
            "/nets/upload",
            Some(&format!("multipart/form-data; boundary={boundary}")),
            body,
        )
    }

    /// One request, its answer read whole.
    pub fn request(
        &self,
        method: &str,
        path: &str,
        content_type: Option<&str>,
        body: Vec<u8>,
    ) -> Result<Response> {
        let mut request = http::Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base));
        if let Some(content_type) = content_type {
            request = request.header("Content-Type", content_type);
        }
        if let Some(secret) = &self.bearer {
            request = request.header("Authorization", format!("Bearer {secret}"));
        }
        let invalid = || format!("{method} {path}: not a valid request");
        // A GET or DELETE goes without a body, not with an empty one.
        let answer = if body.is_empty() && content_type.is_none() {
            self.agent.run(request.body(()).with_context(invalid)?)
        } else {
            self.agent.run(request.body(body).with_context(invalid)?)
        };
        let mut response = answer.with_context(|| format!("{method} {}{path}", self.base))?;
        let status = response.status().as_u16();
        let body = response
            .body_mut()
            .with_config()
            .limit(BODY_LIMIT)
            .read_to_vec()
            .with_context(|| format!("{method} {path}: reading the answer"))?;
        Ok(Response { status, body })
    }
}

#[cfg(test)]
mod tests {
    use std::{
        io::{BufRead, BufReader, Write},
        net::TcpListener,
        sync::{
            Arc,
            atomic::{AtomicUsize, Ordering},
        },
        thread,
    };

    use super::*;
    use crate::server::object;

    /// A server that answers `{}` to every request and counts the
    /// connections it accepted.
    fn counting_server() -> (u16, Arc<AtomicUsize>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let counter = accepted.clone();
        thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                counter.fetch_add(1, Ordering::SeqCst);
                thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut writer = stream;
                    loop {
                        let mut length = 0;
                        let mut line = String::new();
                        loop {
                            line.clear();
                            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                                return;
                            }
                            if let Some(value) =
                                line.to_ascii_lowercase().strip_prefix("content-length:")
                            {
                                length = value.trim().parse().unwrap();
                            }
                            if line == "\r\n" {
                                break;
                            }
                        }
                        let mut body = vec![0; length];
                        std::io::Read::read_exact(&mut reader, &mut body).unwrap();
                        let _ = writer.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
                    }
                });
            }
        });
        (port, accepted)
    }

    #[test]
    fn one_connection_serves_every_request() {
        let (port, accepted) = counting_server();
        let client = Client::new(port);
        for round in 0..20 {
            let body = object([("round", Value::from(round))]);
            assert_eq!(client.send("PATCH", "/x", Some(&body)).unwrap().status, 200);
            assert_eq!(
                client.send("GET", "/x", None).unwrap().json().unwrap(),
                object::<String>([])
            );
        }
        assert_eq!(accepted.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn answers_read_as_json_text_and_payloads() {
        let answer = |status, body: &str| Response {
            status,
            body: body.as_bytes().to_vec(),
        };
        let ok = answer(200, r#"{"device": {"name": "Tag 1"}}"#);
        assert_eq!(
            ok.payload("device").unwrap(),
            object([("name", Value::from("Tag 1"))])
        );
        let missing = ok.payload("role").unwrap_err().to_string();
        assert!(missing.starts_with("no `role` in the answer"), "{missing}");
        let html = answer(502, "<html>bad gateway</html>");
        let error = format!("{:#}", html.json().unwrap_err());
        assert!(
            error.starts_with("a 502 answer that is not JSON: <html>"),
            "{error}"
        );
        // Long bodies are cut for messages, on a character boundary.
        let long = answer(200, &"é".repeat(400));
        assert_eq!(long.text(), format!("{}...", "é".repeat(300)));
        assert_eq!(answer(200, "short").text(), "short");
    }
}
