//! The byte stream a driver runs over: a serial port (hardware, or the
//! simulator's pseudo-terminal) or an in-memory pipe (a replay's player).

use std::{
    io,
    pin::Pin,
    task::{Context, Poll},
};

use tokio::io::{AsyncRead, AsyncWrite, DuplexStream, ReadBuf};
use tokio_serial::SerialStream;

/// The host's end of the link to a network interface device.
#[derive(Debug)]
pub(crate) enum Link {
    Serial(SerialStream),
    Memory(DuplexStream),
}

impl AsyncRead for Link {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Serial(port) => Pin::new(port).poll_read(cx, buf),
            Self::Memory(pipe) => Pin::new(pipe).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Link {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Self::Serial(port) => Pin::new(port).poll_write(cx, buf),
            Self::Memory(pipe) => Pin::new(pipe).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Serial(port) => Pin::new(port).poll_flush(cx),
            Self::Memory(pipe) => Pin::new(pipe).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Serial(port) => Pin::new(port).poll_shutdown(cx),
            Self::Memory(pipe) => Pin::new(pipe).poll_shutdown(cx),
        }
    }
}
