//! The device end of a replay's link: it answers the session as a network
//! interface device would, and plays the reader's datagrams as reports at
//! the pace the shared state sets.

use std::sync::Arc;

use netcfg_model::SerialNumber;
use tokio::{
    io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt},
    sync::mpsc,
    time::{Instant, sleep_until},
};

use super::{
    control::{Played, Shared, Wait},
    reader::{Datagram, Reading},
    translate::Translator,
};
use crate::protocol::{Frame, FrameDecoder, Message, NackReason};

/// The device: what was pushed to it, and the translator of what it plays.
#[derive(Debug, Default)]
struct Device {
    /// The devices of a push in progress.
    pushing: Option<Vec<SerialNumber>>,
    configured: bool,
    translator: Translator,
    reports: Vec<Message>,
}

/// Appends `message` as a frame (reports carry sequence 0).
fn send(out: &mut Vec<u8>, sequence: u16, message: Message) {
    // Replies are tiny and reports are cut to fit (`translate::BATCH`):
    // encoding cannot fail; a failure would drop only that frame.
    if let Ok(bytes) = Frame::new(sequence, message).encode() {
        out.extend_from_slice(&bytes);
    }
}

impl Device {
    /// Answers one request.
    fn handle(&mut self, frame: Frame, shared: &Shared, out: &mut Vec<u8>) {
        let refuse = |reason| Some(Message::Nack { reason });
        let reply = match frame.message {
            Message::Ping { token } => Some(Message::Pong { token }),
            Message::ConfigBegin { .. } => {
                self.pushing = Some(Vec::new());
                Some(Message::Ack)
            }
            Message::ConfigDevices { devices } => match self.pushing.as_mut() {
                Some(pushing) => {
                    pushing.extend(devices.iter().map(|device| device.serial_number));
                    Some(Message::Ack)
                }
                None => refuse(NackReason::BadRequest),
            },
            Message::ConfigCommit { device_count } => Some(self.commit(device_count)),
            Message::StartNetwork if !self.configured => refuse(NackReason::NotConfigured),
            Message::StartNetwork => {
                shared.set_running(true, Instant::now());
                Some(Message::Ack)
            }
            Message::StopNetwork => {
                shared.set_running(false, Instant::now());
                Some(Message::Ack)
            }
            Message::Resync => Some(Message::Ack),
            // A recording cannot be commanded, surveyed or calibrated: the
            // request makes no sense to it.
            Message::DeviceCommand { .. }
            | Message::Survey { .. }
            | Message::SetMagnetometerCalibration(_) => refuse(NackReason::BadRequest),
            // Replies and reports are what a device sends, not receives.
            _ => None,
        };
        if let Some(reply) = reply {
            send(out, frame.sequence, reply);
        }
    }

    fn commit(&mut self, device_count: u32) -> Message {
        let Some(devices) = self.pushing.take() else {
            return Message::Nack {
                reason: NackReason::BadRequest,
            };
        };
        if usize::try_from(device_count) != Ok(devices.len()) {
            return Message::Nack {
                reason: NackReason::BadRequest,
            };
        }
        self.translator.configure(devices);
        self.configured = true;
        Message::Ack
    }

    /// Appends the reports of a datagram played.
    fn play(&mut self, datagram: &Datagram, out: &mut Vec<u8>) {
        self.translator.datagram(&datagram.items, &mut self.reports);
        for report in self.reports.drain(..) {
            send(out, 0, report);
        }
    }
}

/// Serves the device end of `link` until the host closes it: requests are
/// answered, `records` played at their time.
pub(super) async fn serve<S>(mut link: S, mut records: mpsc::Receiver<Reading>, shared: Arc<Shared>)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut device = Device::default();
    let mut decoder = FrameDecoder::new();
    let mut buffer = vec![0u8; 8_192];
    let mut out = Vec::new();
    // The next datagram to play: at most one is held, the rest wait in the
    // channel (or in the reader).
    let mut next: Option<Datagram> = None;
    let mut reader_there = true;
    loop {
        let wait = next.as_ref().map(|datagram| shared.wait_for(datagram));
        if wait == Some(Wait::Stale) {
            next = None;
            continue;
        }
        let due = match wait {
            Some(Wait::Until(due)) => Some(due),
            _ => None,
        };
        // Built even when disabled: a far instant does for the placeholder.
        let sleep = sleep_until(due.unwrap_or_else(|| Instant::now() + super::IDLE));
        tokio::select! {
            read = link.read(&mut buffer) => match read {
                Ok(0) | Err(_) => return,
                Ok(read) => {
                    decoder.extend(&buffer[..read]);
                    while let Some(frame) = decoder.next_frame() {
                        // Damaged frames are dropped, as a device would.
                        if let Ok(frame) = frame {
                            device.handle(frame, &shared, &mut out);
                        }
                    }
                }
            },
            () = shared.wake.notified() => {}
            read = records.recv(), if next.is_none() && reader_there => match read {
                Some(Reading::Datagram(datagram)) => next = Some(datagram),
                Some(Reading::End { epoch, last_us }) => shared.at_end(epoch, last_us, Instant::now()),
                None => {
                    reader_there = false;
                    shared.reader_gone(Instant::now());
                }
            },
            () = sleep, if due.is_some() => {
                if let Some(datagram) = next.take() {
                    match shared.play(&datagram, Instant::now()) {
                        Played::Yes => device.play(&datagram, &mut out),
                        Played::NotYet => next = Some(datagram),
                        Played::Stale => {}
                    }
                }
            }
        }
        if !out.is_empty() {
            if link.write_all(&out).await.is_err() {
                return;
            }
            out.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use netcfg_model::{Interface, ReplaySource, RoleId};
    use tokio::io::DuplexStream;

    use super::*;
    use crate::{
        cdp::Item,
        protocol::WireDevice,
        replay::{reader::Command, test_position},
    };

    /// The host's end: sends requests, reads frames.
    struct Host {
        link: DuplexStream,
        decoder: FrameDecoder,
        sequence: u16,
    }

    impl Host {
        async fn frame(&mut self) -> Frame {
            let mut buffer = [0u8; 4_096];
            loop {
                if let Some(frame) = self.decoder.next_frame() {
                    return frame.unwrap();
                }
                let read = self.link.read(&mut buffer).await.unwrap();
                assert!(read > 0, "the player closed the link");
                self.decoder.extend(&buffer[..read]);
            }
        }

        async fn ask(&mut self, message: Message) -> Message {
            self.sequence += 1;
            let bytes = Frame::new(self.sequence, message).encode().unwrap();
            self.link.write_all(&bytes).await.unwrap();
            let reply = self.frame().await;
            assert_eq!(reply.sequence, self.sequence);
            reply.message
        }

        /// The next report, and when it came.
        async fn report(&mut self) -> (Instant, Message) {
            let frame = self.frame().await;
            assert_eq!(frame.sequence, 0);
            (Instant::now(), frame.message)
        }
    }

    /// A tag's position `x`, one tag period (975 units) after `x - 1`'s.
    fn position(x: i32) -> Item {
        test_position(x, 975 * u64::try_from(x).unwrap())
    }

    /// A player whose reader is the test: 21 datagrams over 2 s, then the
    /// end, already in the channel.
    fn player(source: &str) -> (Host, Arc<Shared>, std::sync::mpsc::Receiver<Command>) {
        let (records_tx, records) = mpsc::channel(64);
        for index in 0..=20 {
            let datagram = Datagram {
                epoch: 0,
                at_us: index * 100_000,
                items: vec![position(i32::try_from(index).unwrap())],
            };
            records_tx.try_send(Reading::Datagram(datagram)).unwrap();
        }
        records_tx
            .try_send(Reading::End {
                epoch: 0,
                last_us: Some(2_000_000),
            })
            .unwrap();
        let (commands, heard) = std::sync::mpsc::channel();
        let source = ReplaySource::parse(source).unwrap();
        let shared = Arc::new(Shared::new(&source, 0, commands));
        let (host_end, device_end) = tokio::io::duplex(64 * 1024);
        tokio::spawn(serve(device_end, records, Arc::clone(&shared)));
        let host = Host {
            link: host_end,
            decoder: FrameDecoder::new(),
            sequence: 0,
        };
        (host, shared, heard)
    }

    async fn push_and_start(host: &mut Host) {
        assert_eq!(
            host.ask(Message::Ping { token: 7 }).await,
            Message::Pong { token: 7 }
        );
        let begin = Message::ConfigBegin {
            configuration: "replayed".to_owned(),
            network_mode: netcfg_model::NetworkMode::MultiTime,
            rf: netcfg_model::RfSetting::default_setting(),
            roles: Vec::new(),
        };
        assert_eq!(host.ask(begin).await, Message::Ack);
        let devices = vec![WireDevice {
            serial_number: SerialNumber::from_u32(0x0104_0001),
            interfaces: vec![Interface {
                identifier: 0,
                role_id: RoleId::ANCHOR,
                x: Some(0),
                y: Some(0),
                z: Some(0),
            }],
        }];
        assert_eq!(
            host.ask(Message::ConfigDevices { devices }).await,
            Message::Ack
        );
        assert_eq!(
            host.ask(Message::ConfigCommit { device_count: 1 }).await,
            Message::Ack
        );
        assert_eq!(host.ask(Message::StartNetwork).await, Message::Ack);
    }

    fn x_of(message: &Message) -> i32 {
        match message {
            Message::Positions { reports, .. } => reports[0].position.x,
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn at_ten_times_the_pace_two_seconds_play_in_a_fifth_of_one() {
        let (mut host, shared, _heard) = player("site/r?speed=10");
        push_and_start(&mut host).await;
        let (first_at, first) = host.report().await;
        assert_eq!(x_of(&first), 0);
        let mut last = (first_at, first);
        for x in 1..=20 {
            last = host.report().await;
            assert_eq!(x_of(&last.1), x, "in the recorded order");
        }
        assert_eq!(last.0 - first_at, Duration::from_millis(200));
        // The end is read right after the last datagram.
        tokio::time::sleep(Duration::from_millis(1)).await;
        let state = shared.state();
        assert!(state.finished);
        assert_eq!(
            (state.datagrams, state.position_ms, state.duration_ms),
            (21, 2_000, 2_000)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_pause_stops_the_play_and_the_device_answers_meanwhile() {
        let (mut host, shared, _heard) = player("site/r");
        push_and_start(&mut host).await;
        let (start, _) = host.report().await;
        let handle = super::super::ReplayHandle {
            shared: Arc::clone(&shared),
        };
        let (_, second) = host.report().await;
        assert_eq!(x_of(&second), 1);
        handle.control(netcfg_model::ReplayControl {
            paused: Some(true),
            ..Default::default()
        });
        tokio::time::sleep(Duration::from_secs(60)).await;
        let refused = host
            .ask(Message::DeviceCommand {
                serial_number: SerialNumber::from_u32(0x0104_0001),
                action: netcfg_model::DeviceAction::SoftReset,
            })
            .await;
        assert_eq!(
            refused,
            Message::Nack {
                reason: NackReason::BadRequest
            }
        );
        assert_eq!(shared.state().datagrams, 2, "nothing played while paused");
        handle.control(netcfg_model::ReplayControl {
            paused: Some(false),
            ..Default::default()
        });
        let (at, third) = host.report().await;
        assert_eq!(x_of(&third), 2);
        // 100 ms of the recording before the pause, 100 after it.
        assert_eq!(
            at - start,
            Duration::from_secs(60) + Duration::from_millis(200)
        );
    }
}
