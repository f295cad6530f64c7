//! The live data streams: one UDP socket per stream, opened with socket2 so
//! the multicast time to live, the outgoing interface and the local port
//! follow the stream's settings.

use std::{
    io,
    net::{IpAddr, SocketAddr},
    sync::{
        Arc, RwLock,
        atomic::{AtomicBool, Ordering},
    },
};

use netcfg_model::{DataStream, DefaultStream, SerialNumber};
use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use tokio::{net::UdpSocket, sync::Mutex};

use netcfg_model::sync::{read, write};

use netcfg_model::time::clock::wall_clock_us;

use crate::{
    api::DatagramSink,
    cdp::{self, Item},
};

/// The recordings of one running configuration: every datagram its streams
/// send is handed to each sink, after the send (decisions §15).
#[derive(Debug, Default)]
pub(crate) struct Tap {
    sinks: RwLock<Vec<Arc<dyn DatagramSink>>>,
    /// Whether any sink listens: one relaxed load per datagram otherwise.
    listening: AtomicBool,
}

impl Tap {
    pub(crate) fn attach(&self, sink: Arc<dyn DatagramSink>) {
        let mut sinks = write(&self.sinks);
        sinks.push(sink);
        self.listening.store(true, Ordering::Release);
    }

    fn hand(&self, source: SocketAddr, destination: SocketAddr, datagram: &[u8]) {
        if !self.listening.load(Ordering::Acquire) {
            return;
        }
        let time_us = wall_clock_us();
        let mut finished = false;
        for sink in read(&self.sinks).iter() {
            finished |= !sink.datagram(time_us, source, destination, datagram);
        }
        if finished {
            self.detach_finished();
        }
    }

    fn detach_finished(&self) {
        let mut sinks = write(&self.sinks);
        sinks.retain(|sink| sink.is_open());
        self.listening.store(!sinks.is_empty(), Ordering::Release);
    }

    /// Tells every sink the configuration stopped, and lets them go.
    pub(crate) fn end(&self) {
        let sinks = std::mem::take(&mut *write(&self.sinks));
        self.listening.store(false, Ordering::Release);
        for sink in sinks {
            sink.ended();
        }
    }
}

/// One open data stream.
#[derive(Debug)]
pub(crate) struct StreamSocket {
    pub(crate) name: String,
    socket: UdpSocket,
    /// The socket's own address, as a capture shows the sender.
    source: SocketAddr,
    destination: SocketAddr,
    tap: Arc<Tap>,
    /// The header's serial: the manager instance's (see `identity`).
    serial_number: SerialNumber,
    /// The next datagram's sequence number. Held across a batch of sends so
    /// that the datagrams leave in sequence order, and advanced only by a
    /// datagram that was sent: a receiver sees no gap but real loss.
    sequence: Mutex<u32>,
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
    pub(crate) fn open(
        stream: &DataStream,
        serial_number: SerialNumber,
        tap: Arc<Tap>,
    ) -> io::Result<Self> {
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
        let source = socket.local_addr()?;
        Ok(Self {
            name: stream.name.to_string(),
            socket,
            source,
            destination,
            tap,
            serial_number,
            sequence: Mutex::new(0),
            failing: AtomicBool::new(false),
        })
    }

    /// Sends `items` in as few CDP datagrams as fit them (at most 1,472
    /// bytes each); a failure is reported once until a send succeeds again.
    pub(crate) async fn send_items(&self, items: &[Item]) -> Result<(), SendFailure> {
        if items.is_empty() {
            return Ok(());
        }
        let datagrams = match cdp::pack(self.serial_number, items) {
            Ok(datagrams) => datagrams,
            Err(error) => {
                return Err(self.failed(io::Error::new(io::ErrorKind::InvalidData, error)));
            }
        };
        let mut outcome = Ok(());
        let mut sequence = self.sequence.lock().await;
        for mut datagram in datagrams {
            cdp::set_sequence(&mut datagram, *sequence);
            match self.socket.send_to(&datagram, self.destination).await {
                Ok(_) => {
                    crate::counters::datagram_sent();
                    self.tap.hand(self.source, self.destination, &datagram);
                    *sequence = sequence.wrapping_add(1);
                    self.failing.store(false, Ordering::Relaxed);
                }
                Err(error) => {
                    crate::counters::datagram_dropped();
                    if outcome.is_ok() {
                        outcome = Err(self.failed(error));
                    }
                }
            }
        }
        outcome
    }

    fn failed(&self, error: io::Error) -> SendFailure {
        if self.failing.swap(true, Ordering::Relaxed) {
            SendFailure::Again
        } else {
            SendFailure::First(error)
        }
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
    pub(crate) fn open(
        streams: &[DataStream],
        serial_number: SerialNumber,
        tap: &Arc<Tap>,
    ) -> Result<Self, (String, io::Error)> {
        let mut open = Self::default();
        for stream in streams {
            let slot = match DefaultStream::from_name(&stream.name) {
                Some(DefaultStream::Config) => &mut open.config,
                Some(DefaultStream::Anchor) => &mut open.anchor,
                Some(DefaultStream::User) => &mut open.user,
                _ => continue,
            };
            *slot = Some(
                StreamSocket::open(stream, serial_number, Arc::clone(tap))
                    .map_err(|error| (stream.name.to_string(), error))?,
            );
        }
        Ok(open)
    }
}
