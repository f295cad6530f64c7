//! The live data streams: one UDP socket per stream, opened with socket2 so
//! the multicast time to live, the outgoing interface and the local port
//! follow the stream's settings.

use std::{
    io,
    net::{IpAddr, SocketAddr},
    sync::atomic::{AtomicBool, AtomicU32, Ordering},
};

use netcfg_model::{DataStream, DefaultStream};
use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use tokio::net::UdpSocket;

use crate::{
    datagram::{Datagram, DatagramBody, MAX_RECORDS},
    util::now_ms,
};

/// One open data stream.
#[derive(Debug)]
pub(crate) struct StreamSocket {
    pub(crate) name: String,
    socket: UdpSocket,
    destination: SocketAddr,
    sequence: AtomicU32,
    failing: AtomicBool,
}

/// What a failed send means to the caller.
pub(crate) enum SendFailure {
    /// The first failure since the last success: worth a notification.
    First(io::Error),
    /// The stream was already failing.
    Again,
}

impl StreamSocket {
    /// Opens the socket of `stream`. Must run inside the engine's runtime.
    pub(crate) fn open(stream: &DataStream) -> io::Result<Self> {
        let destination = SocketAddr::new(stream.destination_ip, stream.destination_port);
        let domain = Domain::for_address(destination);
        let socket = Socket::new(domain, Type::DGRAM, Some(Protocol::UDP))?;
        if stream.interface_port != 0 {
            // Several configurations may send from one local port.
            socket.set_reuse_address(true)?;
        }
        let local = match (stream.interface, destination) {
            (IpAddr::V4(interface), SocketAddr::V4(_)) => {
                socket.set_multicast_ttl_v4(u32::from(stream.time_to_live))?;
                if !interface.is_unspecified() && stream.destination_ip.is_multicast() {
                    socket.set_multicast_if_v4(&interface)?;
                }
                SocketAddr::new(IpAddr::V4(interface), stream.interface_port)
            }
            (IpAddr::V6(interface), SocketAddr::V6(_)) => {
                socket.set_multicast_hops_v6(u32::from(stream.time_to_live))?;
                SocketAddr::new(IpAddr::V6(interface), stream.interface_port)
            }
            (interface, _) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "the interface {interface} and the destination {destination} are not of one IP version"
                    ),
                ));
            }
        };
        socket.bind(&SockAddr::from(local))?;
        socket.set_nonblocking(true)?;
        let socket = UdpSocket::from_std(socket.into())?;
        Ok(Self {
            name: stream.name.to_string(),
            socket,
            destination,
            sequence: AtomicU32::new(0),
            failing: AtomicBool::new(false),
        })
    }

    /// Sends `body`; a failure is reported once until a send succeeds again.
    pub(crate) async fn send(&self, body: DatagramBody) -> Result<(), SendFailure> {
        let datagram = Datagram {
            sequence: self.sequence.fetch_add(1, Ordering::Relaxed),
            timestamp_ms: now_ms(),
            body,
        };
        let bytes = datagram
            .encode()
            .map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error));
        let result = match bytes {
            Ok(bytes) => self
                .socket
                .send_to(&bytes, self.destination)
                .await
                .map(drop),
            Err(error) => Err(error),
        };
        match result {
            Ok(()) => {
                self.failing.store(false, Ordering::Relaxed);
                Ok(())
            }
            Err(error) if !self.failing.swap(true, Ordering::Relaxed) => {
                Err(SendFailure::First(error))
            }
            Err(_) => Err(SendFailure::Again),
        }
    }

    /// Sends `records` in as many datagrams as needed.
    pub(crate) async fn send_records<T: Clone>(
        &self,
        records: &[T],
        wrap: fn(Vec<T>) -> DatagramBody,
    ) -> Result<(), SendFailure> {
        let mut outcome = Ok(());
        for chunk in records.chunks(MAX_RECORDS) {
            if let Err(failure) = self.send(wrap(chunk.to_vec())).await
                && outcome.is_ok()
            {
                outcome = Err(failure);
            }
        }
        outcome
    }
}

/// The streams a running configuration sends on.
#[derive(Debug, Default)]
pub(crate) struct Streams {
    pub(crate) config: Option<StreamSocket>,
    pub(crate) anchor: Option<StreamSocket>,
    pub(crate) user: Option<StreamSocket>,
}

impl Streams {
    /// Opens the Config, Anchor and User streams among `streams`; other
    /// streams (Data-to-Device, custom ones) carry nothing from the engine.
    pub(crate) fn open(streams: &[DataStream]) -> Result<Self, (String, io::Error)> {
        let mut open = Self::default();
        for stream in streams {
            let slot = match DefaultStream::from_name(&stream.name) {
                Some(DefaultStream::Config) => &mut open.config,
                Some(DefaultStream::Anchor) => &mut open.anchor,
                Some(DefaultStream::User) => &mut open.user,
                _ => continue,
            };
            *slot =
                Some(StreamSocket::open(stream).map_err(|error| (stream.name.to_string(), error))?);
        }
        Ok(open)
    }
}
