//! The driver: requests and replies over any async byte stream.
//!
//! A reader task cuts frames out of the stream and hands each reply to the
//! request waiting for its sequence number; reports go to the owner as
//! [`DriverEvent`]s. A writer task owns the write half. When either side of
//! the stream fails the link is down: every waiting request fails with
//! [`DriverError::LinkDown`] at once and one [`DriverEvent::LinkDown`] is sent.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicU16, Ordering},
    },
    time::Duration,
};

use tokio::{
    io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt},
    runtime::Handle,
    sync::{mpsc, oneshot},
    task::JoinHandle,
};

use netcfg_model::sync::lock;

use crate::protocol::{DecodeError, EncodeError, Frame, FrameDecoder, Message};

/// How many reports may wait for the owner before the reader waits too
/// (which, on a serial port, leaves bytes in the port's buffer).
const REPORT_QUEUE: usize = 8_192;

/// What the driver tells its owner.
#[derive(Debug)]
pub enum DriverEvent {
    /// A report the network sent on its own.
    Report(Message),
    /// Bytes that were not a valid frame (they were skipped).
    Damaged(DecodeError),
    /// The link is down; nothing more will come.
    LinkDown(String),
}

/// Why a request failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DriverError {
    /// No reply came in time.
    #[error("no reply within {0:?}")]
    Timeout(Duration),
    /// The link is down.
    #[error("the link is down: {0}")]
    LinkDown(String),
    /// The request could not be encoded.
    #[error("cannot encode the request: {0}")]
    Encode(#[from] EncodeError),
}

#[derive(Default)]
struct Link {
    waiting: HashMap<u16, oneshot::Sender<Message>>,
    down: Option<String>,
}

/// The host's end of the link to a network interface device.
#[derive(Debug)]
pub struct Driver {
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    link: Arc<Mutex<Link>>,
    up: Arc<AtomicBool>,
    next_sequence: AtomicU16,
    tasks: [JoinHandle<()>; 2],
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("waiting", &self.waiting.len())
            .field("down", &self.down)
            .finish()
    }
}

/// Marks the link down once; returns whether this call did it.
fn take_down(link: &Mutex<Link>, up: &AtomicBool, reason: String) -> bool {
    let mut link = lock(link);
    if link.down.is_some() {
        return false;
    }
    link.down = Some(reason);
    // Dropping the senders wakes every waiting request.
    link.waiting.clear();
    up.store(false, Ordering::SeqCst);
    true
}

impl Driver {
    /// Starts the driver's tasks on `runtime` over `stream`.
    pub fn spawn<S>(stream: S, runtime: &Handle) -> (Self, mpsc::Receiver<DriverEvent>)
    where
        S: AsyncRead + AsyncWrite + Send + 'static,
    {
        let (mut reader, mut writer) = tokio::io::split(stream);
        let (outgoing, mut to_write) = mpsc::unbounded_channel::<Vec<u8>>();
        let (events, events_out) = mpsc::channel(REPORT_QUEUE);
        let link = Arc::new(Mutex::new(Link::default()));
        let up = Arc::new(AtomicBool::new(true));

        let read_task = {
            let link = Arc::clone(&link);
            let up = Arc::clone(&up);
            let events = events.clone();
            runtime.spawn(async move {
                let mut decoder = FrameDecoder::new();
                let mut buffer = vec![0u8; 8_192];
                let reason = loop {
                    let read = match reader.read(&mut buffer).await {
                        Ok(0) => break "the stream ended".to_owned(),
                        Ok(read) => read,
                        Err(error) => break format!("read failed: {error}"),
                    };
                    decoder.extend(&buffer[..read]);
                    while let Some(result) = decoder.next_frame() {
                        let event = match result {
                            Ok(frame) if frame.message.is_reply() && frame.sequence != 0 => {
                                let waiter = lock(&link).waiting.remove(&frame.sequence);
                                // A reply nobody waits for came after its
                                // request timed out: nothing to do.
                                if let Some(waiter) = waiter {
                                    let _ = waiter.send(frame.message);
                                }
                                continue;
                            }
                            Ok(frame) => DriverEvent::Report(frame.message),
                            Err(error) => DriverEvent::Damaged(error),
                        };
                        if events.send(event).await.is_err() {
                            return;
                        }
                    }
                };
                if take_down(&link, &up, reason.clone()) {
                    let _ = events.send(DriverEvent::LinkDown(reason)).await;
                }
            })
        };

        let write_task = {
            let link = Arc::clone(&link);
            let up = Arc::clone(&up);
            runtime.spawn(async move {
                while let Some(bytes) = to_write.recv().await {
                    let written = async {
                        writer.write_all(&bytes).await?;
                        writer.flush().await
                    };
                    if let Err(error) = written.await {
                        let reason = format!("write failed: {error}");
                        if take_down(&link, &up, reason.clone()) {
                            let _ = events.send(DriverEvent::LinkDown(reason)).await;
                        }
                        return;
                    }
                }
            })
        };

        let driver = Self {
            outgoing,
            link,
            up,
            next_sequence: AtomicU16::new(1),
            tasks: [read_task, write_task],
        };
        (driver, events_out)
    }

    /// Whether the link is up.
    pub fn is_up(&self) -> bool {
        self.up.load(Ordering::SeqCst)
    }

    /// Why the link went down, if it did.
    pub fn down_reason(&self) -> Option<String> {
        lock(&self.link).down.clone()
    }

    /// Declares the link down (for example when the device stops answering
    /// pings). Returns whether this call did it.
    pub fn declare_down(&self, reason: String) -> bool {
        take_down(&self.link, &self.up, reason)
    }

    fn sequence(&self) -> u16 {
        loop {
            let sequence = self.next_sequence.fetch_add(1, Ordering::Relaxed);
            if sequence != 0 {
                return sequence;
            }
        }
    }

    /// Sends `message` and waits up to `timeout` for its reply.
    ///
    /// # Errors
    /// [`DriverError::Timeout`], [`DriverError::LinkDown`], or
    /// [`DriverError::Encode`] for a message too large for a frame.
    pub async fn request(
        &self,
        message: Message,
        timeout: Duration,
    ) -> Result<Message, DriverError> {
        let sequence = self.sequence();
        let bytes = Frame::new(sequence, message).encode()?;
        let (reply_to, reply) = oneshot::channel();
        {
            let mut link = lock(&self.link);
            if let Some(reason) = &link.down {
                return Err(DriverError::LinkDown(reason.clone()));
            }
            link.waiting.insert(sequence, reply_to);
        }
        if self.outgoing.send(bytes).is_err() {
            lock(&self.link).waiting.remove(&sequence);
            return Err(DriverError::LinkDown("the writer stopped".to_owned()));
        }
        match tokio::time::timeout(timeout, reply).await {
            Ok(Ok(message)) => Ok(message),
            Ok(Err(_)) => Err(DriverError::LinkDown(
                self.down_reason()
                    .unwrap_or_else(|| "the link closed".to_owned()),
            )),
            Err(_) => {
                lock(&self.link).waiting.remove(&sequence);
                Err(DriverError::Timeout(timeout))
            }
        }
    }

    /// Stops the driver's tasks and closes the stream.
    pub fn close(&self) {
        take_down(&self.link, &self.up, "closed by the engine".to_owned());
        for task in &self.tasks {
            task.abort();
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        self.close();
    }
}
