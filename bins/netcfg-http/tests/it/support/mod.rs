//! What the integration tests share: the real server binary started on a
//! free loopback port with a temporary data directory, and a small
//! HTTP/1.1 client over `std::net::TcpStream` that sends paths exactly as
//! written (no normalisation, so traversal attempts reach the server as is).

#![allow(dead_code, reason = "not every helper is used yet")]

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream},
    path::{Path, PathBuf},
    process::{Child, Command, ExitStatus, Stdio},
    sync::{Arc, Condvar, Mutex},
    thread,
    time::{Duration, Instant},
};

use serde_json::Value;

pub(crate) mod disk;
pub(crate) mod mqtt;
pub(crate) mod pki;
mod sse;
pub(crate) use sse::{EventClient, SseEvent};

/// How long any single wait may last before the test is declared hung.
pub(crate) const HUNG: Duration = Duration::from_secs(60);

/// The lines the server logged on standard error, as they arrive.
#[derive(Debug, Default)]
pub(crate) struct Log {
    lines: Mutex<Vec<String>>,
    ended: Mutex<bool>,
    changed: Condvar,
    end: Condvar,
}

impl Log {
    /// Waits (at most [`HUNG`]) for a line containing `needle`; false if none came.
    pub(crate) fn wait_for(&self, needle: &str) -> bool {
        let deadline = Instant::now() + HUNG;
        let mut lines = self.lines.lock().expect("log lock");
        loop {
            if lines.iter().any(|line| line.contains(needle)) {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            lines = self.changed.wait_timeout(lines, left).expect("log lock").0;
        }
    }

    /// Waits (at most [`HUNG`]) until the server closed its standard error.
    pub(crate) fn wait_for_end(&self) {
        let deadline = Instant::now() + HUNG;
        let mut ended = self.ended.lock().expect("log lock");
        while !*ended && Instant::now() < deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            ended = self.end.wait_timeout(ended, left).expect("log lock").0;
        }
    }

    /// Every line so far.
    pub(crate) fn text(&self) -> String {
        self.lines.lock().expect("log lock").join("\n")
    }
}

/// The server binary, running.
#[derive(Debug)]
pub(crate) struct Server {
    child: Child,
    /// The loopback address it listens on.
    pub(crate) address: SocketAddr,
    /// What it logged.
    pub(crate) log: Arc<Log>,
    /// Its data directory (inside [`Server::root`]).
    pub(crate) data_dir: PathBuf,
    root: tempfile::TempDir,
}

/// A port that was free a moment ago on 127.0.0.1.
/// The configuration file of [`Server::start_with_config`], in the root.
const CONFIG_FILE: &str = "netcfg.toml";

/// `--config <root>/netcfg.toml` when that file exists.
fn config_argument(root: &Path) -> Vec<std::ffi::OsString> {
    let file = root.join(CONFIG_FILE);
    if file.exists() {
        vec!["--config".into(), file.into_os_string()]
    } else {
        Vec::new()
    }
}

pub(crate) fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port()
}

impl Server {
    /// Starts the binary on a free loopback port with a fresh data
    /// directory `<root>/data`, and waits until it answers.
    pub(crate) fn start() -> Self {
        Self::start_prepared(|_| Vec::new())
    }

    /// [`Server::start`], after `prepare` has made ready the data
    /// directory's path (for example, mounted a small filesystem on it);
    /// `prepare` returns environment variables to start the server with.
    pub(crate) fn start_prepared(prepare: impl FnOnce(&Path) -> Vec<(String, String)>) -> Self {
        let root = tempfile::tempdir().expect("a temporary directory");
        let environment = prepare(&root.path().join("data"));
        Self::launch(root, &environment)
    }

    /// [`Server::start`] with the configuration file `toml` (`--config`,
    /// given again at each restart).
    pub(crate) fn start_with_config(toml: &str) -> Self {
        Self::start_prepared(|data_dir| {
            let file = data_dir
                .parent()
                .expect("data under a root")
                .join(CONFIG_FILE);
            std::fs::write(file, toml).expect("the configuration file is written");
            Vec::new()
        })
    }

    /// Stops the server (SIGTERM), lets `between` work on its data
    /// directory, and starts it again on the same directory.
    pub(crate) fn restart(mut self, between: impl FnOnce(&Path)) -> Self {
        self.terminate();
        let root = self.into_root();
        between(&root.path().join("data"));
        Self::launch(root, &[])
    }

    fn launch(mut root: tempfile::TempDir, environment: &[(String, String)]) -> Self {
        let data_dir = root.path().join("data");
        // Another process may take the port between our probe and the
        // server's bind: try a few ports.
        for _ in 0..5 {
            let port = free_port();
            let mut child = Command::new(env!("CARGO_BIN_EXE_netcfg-http"))
                .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
                .arg("--data-dir")
                .arg(&data_dir)
                .args(config_argument(root.path()))
                .env("RUST_LOG", "info")
                .env_remove("NETCFG_API_VERSION")
                .env_remove("NETCFG_DEFAULT_INSTANCE")
                .envs(environment.iter().map(|(name, value)| (name, value)))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("the server binary starts");
            let log = Arc::new(Log::default());
            let stderr = child.stderr.take().expect("piped stderr");
            let sink = log.clone();
            thread::spawn(move || {
                for line in BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    sink.lines.lock().expect("log lock").push(line);
                    sink.changed.notify_all();
                }
                *sink.ended.lock().expect("log lock") = true;
                sink.end.notify_all();
            });
            let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
            let mut server = Self {
                child,
                address,
                log,
                data_dir: data_dir.clone(),
                root,
            };
            if server.wait_until_ready() {
                return server;
            }
            let _ = server.child.kill();
            let _ = server.child.wait();
            let log = server.log.text();
            if !log.contains("could not listen") {
                panic!("the server did not start:\n{log}");
            }
            root = server.into_root();
        }
        panic!("the server found no free port in five tries");
    }

    fn into_root(mut self) -> tempfile::TempDir {
        let root = std::mem::replace(&mut self.root, tempfile::tempdir().expect("a temp dir"));
        drop(self);
        root
    }

    /// Waits for the listening line, then for a request that is answered.
    fn wait_until_ready(&mut self) -> bool {
        let line = format!("listening on http://{}", self.address);
        // Over HTTPS (tls_cert and tls_key set) the test speaks TLS itself.
        let secure = format!("listening on https://{}", self.address);
        let deadline = Instant::now() + HUNG;
        loop {
            if let Ok(Some(_)) = self.child.try_wait() {
                return false;
            }
            let log = self.log.text();
            if log.contains(&secure) {
                return true;
            }
            if log.contains(&line) {
                break;
            }
            if Instant::now() > deadline {
                return false;
            }
            thread::sleep(Duration::from_millis(20));
        }
        while Instant::now() < deadline {
            if let Ok(response) = self.try_request(&Request::get("/nets")) {
                // 401: a data directory with users (access control on).
                return response.status == 200 || response.status == 401;
            }
            thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// Creates the configuration `name` on the simulator with `devices`
    /// (device bodies); every request must succeed.
    pub(crate) fn create_on_simulator(&self, name: &str, devices: &[Value]) {
        self.send(&Request::json(
            "POST",
            "/nets",
            &serde_json::json!({"name": name, "instance": "sim"}),
        ))
        .expect(201);
        for device in devices {
            self.send(&Request::json(
                "POST",
                &format!("/nets/{name}/devices"),
                device,
            ))
            .expect(201);
        }
    }

    /// `field` of the server's `/proc/<pid>/status` (`VmRSS`, `VmHWM`), in KiB.
    pub(crate) fn memory_kib(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .expect("the server's /proc status is readable");
        status
            .lines()
            .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or_else(|| panic!("{field} in /proc/<pid>/status"))
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The directory that holds the data directory (and nothing else of the server's).
    pub(crate) fn root(&self) -> &Path {
        self.root.path()
    }

    /// Sends `request` on a new connection and reads the whole response.
    pub(crate) fn send(&self, request: &Request) -> Response {
        self.try_request(request)
            .unwrap_or_else(|error| panic!("{} {}: {error}", request.method, request.path))
    }

    fn try_request(&self, request: &Request) -> std::io::Result<Response> {
        let mut head = format!(
            "{} {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
            request.method, request.path, self.address
        );
        for (name, value) in &request.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        if header(&request.headers, "content-length").is_none()
            && (!request.body.is_empty() || matches!(request.method.as_str(), "POST" | "PATCH"))
        {
            head.push_str(&format!("Content-Length: {}\r\n", request.body.len()));
        }
        head.push_str("\r\n");
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(&request.body);
        self.exchange(bytes)
    }

    /// Sends `bytes` as they are on a new connection: the first part at
    /// once, `rest` from another thread (whose write errors are ignored:
    /// the server may answer and close before it has read everything), and
    /// reads the response.
    pub(crate) fn send_raw(&self, first: Vec<u8>, rest: Vec<Vec<u8>>) -> Response {
        let mut stream = self.connect().expect("a connection to the server");
        stream.write_all(&first).expect("the request head is sent");
        let mut writer = stream.try_clone().expect("a second handle on the socket");
        let sender = thread::spawn(move || {
            for chunk in rest {
                if writer.write_all(&chunk).is_err() {
                    break;
                }
            }
        });
        let response = read_response(&mut stream).expect("a response");
        // Unblock the writer if the server stopped reading.
        let _ = stream.shutdown(std::net::Shutdown::Both);
        let _ = sender.join();
        response
    }

    /// Sends `bytes` on a new connection and reads until the server closes
    /// it: every response it sent, as bytes.
    pub(crate) fn send_raw_to_end(&self, bytes: &[u8]) -> Vec<u8> {
        let mut stream = self.connect().expect("a connection to the server");
        stream.write_all(bytes).expect("the requests are sent");
        let mut received = Vec::new();
        stream
            .read_to_end(&mut received)
            .expect("the responses are read");
        received
    }

    fn connect(&self) -> std::io::Result<TcpStream> {
        let stream = TcpStream::connect_timeout(&self.address, HUNG)?;
        stream.set_read_timeout(Some(HUNG))?;
        stream.set_write_timeout(Some(HUNG))?;
        Ok(stream)
    }

    fn exchange(&self, bytes: Vec<u8>) -> std::io::Result<Response> {
        let mut stream = self.connect()?;
        stream.write_all(&bytes)?;
        read_response(&mut stream)
    }

    /// Sends SIGTERM and waits (at most [`HUNG`]) for the process to exit.
    pub(crate) fn terminate(&mut self) -> ExitStatus {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -TERM failed: {status}");
        let deadline = Instant::now() + HUNG;
        loop {
            if let Some(status) = self.child.try_wait().expect("the child's status") {
                // Let the log reader drain what the server wrote last.
                self.log.wait_for_end();
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the server did not exit after SIGTERM:\n{}",
                self.log.text()
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// True while the process runs.
    pub(crate) fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.is_running() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// One HTTP request.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub(crate) method: String,
    pub(crate) path: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Request {
    /// A request without a body.
    pub(crate) fn new(method: &str, path: &str) -> Self {
        Self {
            method: method.to_owned(),
            path: path.to_owned(),
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// `GET path`.
    pub(crate) fn get(path: &str) -> Self {
        Self::new("GET", path)
    }

    /// A request with a JSON body.
    pub(crate) fn json(method: &str, path: &str, body: &Value) -> Self {
        Self::new(method, path)
            .header("Content-Type", "application/json")
            .body(serde_json::to_vec(body).expect("JSON"))
    }

    /// Adds a header.
    pub(crate) fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Sets the body.
    pub(crate) fn body(mut self, body: Vec<u8>) -> Self {
        self.body = body;
        self
    }

    /// A `multipart/form-data` request: text fields, then files
    /// `(field, file name, bytes)`.
    pub(crate) fn multipart(
        path: &str,
        texts: &[(&str, &str)],
        files: &[(&str, &str, &[u8])],
    ) -> Self {
        let boundary = "netcfg-e2e-7d1f2a9c";
        let mut body = Vec::new();
        for (name, value) in texts {
            body.extend_from_slice(
                format!(
                    "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
                )
                .as_bytes(),
            );
        }
        for (name, file_name, bytes) in files {
            body.extend_from_slice(
                format!(
                    "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{file_name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                )
                .as_bytes(),
            );
            body.extend_from_slice(bytes);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        Self::new("POST", path)
            .header(
                "Content-Type",
                &format!("multipart/form-data; boundary={boundary}"),
            )
            .body(body)
    }
}

/// One HTTP response.
#[derive(Debug, Clone)]
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Response {
    /// The first header called `name` (any case).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// The body as text (what is not UTF-8 replaced).
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// Asserts the status; the failure names `what` and shows the body.
    pub(crate) fn assert_status(&self, status: u16, what: &str) {
        assert_eq!(self.status, status, "{what}; body: {}", self.text());
    }

    /// The body as JSON; panics with the body when it is not.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|error| {
            panic!(
                "the body of a {} response is not JSON ({error}): {}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// Asserts the status, and that the body is the 5.1 envelope; returns it.
    pub(crate) fn expect(&self, status: u16) -> Value {
        self.assert_status(status, "unexpected status");
        let body = self.json();
        assert!(body["message"].is_string(), "no message: {body}");
        assert!(
            (1..=4).contains(&body["Classification"].as_u64().unwrap_or(0)),
            "no Classification 1 to 4: {body}"
        );
        body
    }
}

/// Reads one response from `stream` until the server closes it (the
/// requests say `Connection: close`) or its declared length is read.
fn read_response(stream: &mut TcpStream) -> std::io::Result<Response> {
    let mut bytes = Vec::new();
    let mut buffer = [0_u8; 64 * 1024];
    let mut head_end = None;
    loop {
        let read = match stream.read(&mut buffer) {
            Ok(read) => read,
            // A reset after the whole response arrived (the server closed
            // with part of our body unread) still leaves a response to read.
            Err(error) if head_end.is_some() || !bytes.is_empty() => {
                if head_end.is_none() {
                    return Err(error);
                }
                0
            }
            Err(error) => return Err(error),
        };
        bytes.extend_from_slice(&buffer[..read]);
        if head_end.is_none() {
            head_end = find(&bytes, b"\r\n\r\n");
            // Skip interim responses (100 Continue).
            if let Some(end) = head_end
                && bytes.starts_with(b"HTTP/1.1 1")
            {
                bytes.drain(..end + 4);
                head_end = find(&bytes, b"\r\n\r\n");
            }
        }
        if let Some(end) = head_end {
            let head = parse_head(&bytes[..end])?;
            let body = &bytes[end + 4..];
            if let Some(length) =
                header(&head.1, "content-length").and_then(|value| value.parse::<usize>().ok())
                && body.len() >= length
            {
                return Ok(Response {
                    status: head.0,
                    headers: head.1,
                    body: body[..length].to_vec(),
                });
            }
            if read == 0 {
                let chunked = head.1.iter().any(|(name, value)| {
                    name.eq_ignore_ascii_case("transfer-encoding")
                        && value.eq_ignore_ascii_case("chunked")
                });
                let body = if chunked {
                    dechunk(body)?
                } else {
                    body.to_vec()
                };
                return Ok(Response {
                    status: head.0,
                    headers: head.1,
                    body,
                });
            }
        } else if read == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!(
                    "the connection closed before a response head: {:?}",
                    String::from_utf8_lossy(&bytes)
                ),
            ));
        }
    }
}

fn invalid(message: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, message.to_owned())
}

type Head = (u16, Vec<(String, String)>);

fn parse_head(head: &[u8]) -> std::io::Result<Head> {
    let text = std::str::from_utf8(head).map_err(|_| invalid("a head that is not UTF-8"))?;
    let mut lines = text.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| invalid("a bad status line"))?;
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
        .collect();
    Ok((status, headers))
}

fn dechunk(mut body: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = find(body, b"\r\n").ok_or_else(|| invalid("a chunk without a size"))?;
        let size_text =
            std::str::from_utf8(&body[..line_end]).map_err(|_| invalid("chunk size"))?;
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| invalid("chunk size"))?;
        body = &body[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        let chunk = body.get(..size).ok_or_else(|| invalid("a short chunk"))?;
        out.extend_from_slice(chunk);
        body = body.get(size + 2..).unwrap_or(&[]);
    }
}

/// Where `needle` first occurs in `haystack`.
pub(crate) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// Asks `net` to `start`, `stop` (any action without other fields); it
/// must succeed.
pub(crate) fn act(server: &Server, net: &str, action: &str) {
    ask(server, net, &serde_json::json!({"action": action}));
}

/// Copies `net` to the new configuration `to`; it must succeed.
pub(crate) fn copy(server: &Server, net: &str, to: &str) {
    ask(
        server,
        net,
        &serde_json::json!({"action": "copy", "name": to}),
    );
}

/// `POST /nets/{net}` with `body` (an action); it must succeed.
fn ask(server: &Server, net: &str, body: &Value) {
    server
        .send(&Request::json("POST", &format!("/nets/{net}"), body))
        .expect(200);
}

/// `net`'s change history, newest first.
pub(crate) fn history(server: &Server, net: &str) -> Vec<Value> {
    server
        .send(&Request::get(&format!("/nets/{net}/history")))
        .expect(200)["history"]
        .as_array()
        .expect("a list")
        .clone()
}

/// `net`'s notifications whose message starts with `prefix`.
pub(crate) fn notifications(server: &Server, net: &str, prefix: &str) -> Vec<Value> {
    server
        .send(&Request::get(&format!("/nets/{net}/notifications")))
        .expect(200)["notifications"]
        .as_array()
        .expect("a list")
        .iter()
        .filter(|notification| {
            notification["message"]
                .as_str()
                .is_some_and(|message| message.starts_with(prefix))
        })
        .cloned()
        .collect()
}

/// Waits (a bounded number of looks, not a limit on the server's time)
/// until `done` holds of what `look` returns, and returns it.
pub(crate) fn wait_until<T>(mut look: impl FnMut() -> T, done: impl Fn(&T) -> bool) -> T {
    let started = Instant::now();
    loop {
        let seen = look();
        if done(&seen) || started.elapsed() > HUNG {
            return seen;
        }
        thread::sleep(Duration::from_millis(100));
    }
}

/// The value of the first of `headers` called `name` (any case).
/// Headers as (name, value) pairs.
pub(crate) type Headers = Vec<(String, String)>;

/// One HTTP/1.1 request read from `stream`, as a test's web service gets
/// it: its headers (lower-case names) and its body (by content-length);
/// `None` when the client went away first.
pub(crate) fn read_http_request(stream: impl Read) -> Option<(Headers, Vec<u8>)> {
    let mut reader = BufReader::new(stream);
    let mut headers = Vec::new();
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    loop {
        line.clear();
        reader.read_line(&mut line).ok()?;
        let text = line.trim_end();
        if text.is_empty() {
            break;
        }
        if let Some((name, value)) = text.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let length = header(&headers, "content-length").map_or(Some(0), |value| value.parse().ok())?;
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((headers, body))
}

pub(crate) fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(header, _)| header.eq_ignore_ascii_case(name))
        .map(|(_, value)| value.as_str())
}

/// Every file and directory under `root`, relative to it, sorted.
pub(crate) fn tree(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(directory) = pending.pop() {
        for entry in std::fs::read_dir(&directory).expect("a readable directory") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                pending.push(path.clone());
            }
            found.push(
                path.strip_prefix(root)
                    .expect("under the root")
                    .to_path_buf(),
            );
        }
    }
    found.sort();
    found
}
