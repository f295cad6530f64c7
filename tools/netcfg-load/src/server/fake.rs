//! A stand-in for the server in unit tests: a loopback HTTP/1.1 server
//! that answers each request with what a function returns for its method,
//! path and body, over kept-alive connections (as the client keeps them).

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::{TcpListener, TcpStream},
    sync::Arc,
    thread,
};

/// What the stand-in answers a request (method, path, body): the status
/// and a JSON body.
type Answer = dyn Fn(&str, &str, &[u8]) -> (u16, String) + Send + Sync;

/// Serves `answer` on a free loopback port, which it returns, until the
/// test process ends.
pub(crate) fn serve(
    answer: impl Fn(&str, &str, &[u8]) -> (u16, String) + Send + Sync + 'static,
) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let answer: Arc<Answer> = Arc::new(answer);
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let answer = answer.clone();
            thread::spawn(move || connection(stream, &*answer));
        }
    });
    port
}

fn connection(stream: TcpStream, answer: &Answer) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let mut words = request_line.split_whitespace();
        let (method, path) = (
            words.next().unwrap_or_default().to_owned(),
            words.next().unwrap_or_default().to_owned(),
        );
        let mut length = 0;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = value.trim().parse().unwrap();
            }
            if line == "\r\n" {
                break;
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let (status, answer) = answer(&method, &path, &body);
        let head = format!(
            "HTTP/1.1 {status} Answer\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            answer.len()
        );
        if writer
            .write_all(head.as_bytes())
            .and_then(|()| writer.write_all(answer.as_bytes()))
            .is_err()
        {
            return;
        }
    }
}
