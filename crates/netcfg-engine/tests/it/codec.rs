//! The wire codec from fixtures (bytes beside their decoded form) and
//! property tests: arbitrary bytes never panic a decoder; messages survive
//! a round trip. (The data streams' CDP codec has its own, `tests/it/cdp.rs`.)
//!
//! Each `fixtures/engine/<name>.hex` holds frame bytes in hexadecimal (`#`
//! starts a comment); `<name>.txt` beside it holds the decoded frame
//! (`{:#?}`) or `error: <message>`. Run with `UPDATE_EXPECT=1` to rewrite the
//! `.txt` files after a deliberate change, then review the diff.

use std::path::Path;

use netcfg_engine::protocol::{
    AnchorCounters, Frame, FrameDecoder, Message, NackReason, PositionReport,
};
use netcfg_model::{
    DeviceAction, LedColor, LedMode, LedTimeout, Position, SerialNumber, Synchronisation,
};
use proptest::prelude::*;

use crate::support::check_hex_fixtures;

#[test]
fn every_fixture_decodes_as_recorded_and_valid_frames_re_encode_to_their_bytes() {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/engine");
    let (checked, errors) = check_hex_fixtures(
        &directory,
        Frame::decode_exact,
        |frame| frame.encode().unwrap(),
        |_| {},
    );
    // Every message kind and every error kind has a fixture.
    assert!(checked >= 36, "only {checked} fixtures");
    assert!(errors >= 11, "only {errors} error fixtures");
}

fn serial() -> impl Strategy<Value = SerialNumber> {
    any::<u32>().prop_map(SerialNumber::from_u32)
}

fn action() -> impl Strategy<Value = DeviceAction> {
    prop_oneof![
        Just(DeviceAction::SoftReset),
        Just(DeviceAction::HardReset),
        Just(DeviceAction::ShipMode),
        Just(DeviceAction::GetPropertyList),
        Just(DeviceAction::GetDeviceAttributes),
        Just(DeviceAction::ClearDeviceError),
        (0u8..6, any::<bool>(), 5u32..=1800).prop_map(|(color, flash, seconds)| {
            DeviceAction::SetLed {
                color: [
                    LedColor::Red,
                    LedColor::Green,
                    LedColor::Blue,
                    LedColor::Magenta,
                    LedColor::Yellow,
                    LedColor::White,
                ][usize::from(color)],
                mode: if flash {
                    LedMode::Flash
                } else {
                    LedMode::Solid
                },
                timeout: LedTimeout::try_from(seconds).unwrap(),
            }
        }),
        any::<u32>().prop_map(|property_id| DeviceAction::GetProperty { property_id }),
        (any::<u32>(), any::<i64>())
            .prop_map(|(property_id, value)| DeviceAction::SetProperty { property_id, value }),
    ]
}

fn message() -> impl Strategy<Value = Message> {
    prop_oneof![
        any::<u32>().prop_map(|token| Message::Ping { token }),
        any::<u32>().prop_map(|token| Message::Pong { token }),
        (serial(), action()).prop_map(|(serial_number, action)| Message::DeviceCommand {
            serial_number,
            action
        }),
        Just(Message::Nack {
            reason: NackReason::Busy
        }),
        (serial(), any::<u8>(), any::<u32>()).prop_map(|(serial_number, interface, role)| {
            Message::Joined {
                serial_number,
                interface,
                role_id: netcfg_model::RoleId(role),
            }
        }),
        (
            any::<u64>(),
            prop::collection::vec(
                (serial(), any::<[i32; 3]>(), any::<u16>(), any::<u8>()),
                0..50
            )
        )
            .prop_map(|(network_time, reports)| Message::Positions {
                network_time,
                reports: reports
                    .into_iter()
                    .map(
                        |(serial_number, [x, y, z], quality, anchors_used)| PositionReport {
                            serial_number,
                            position: Position {
                                x,
                                y,
                                z,
                                quality,
                                anchors_used,
                                error_mm: 0,
                                vx: None,
                                vy: None,
                            },
                        }
                    )
                    .collect(),
            }),
        (serial(), any::<u8>(), any::<[u32; 5]>(), any::<u64>()).prop_map(
            |(serial_number, interface, counts, quality_sum)| Message::AnchorCounters {
                serial_number,
                interface,
                counters: AnchorCounters {
                    ticks: counts[0],
                    timed_rxs: counts[1],
                    beacons_reported: counts[2],
                    beacons_discarded: counts[3],
                    beacons_late: counts[4],
                    quality_sum,
                },
            }
        ),
        (serial(), any::<bool>()).prop_map(|(serial_number, tx)| Message::Sync {
            serial_number,
            synchronisation: if tx {
                Synchronisation::Tx
            } else {
                Synchronisation::None
            },
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic_the_decoders(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let _ = Frame::decode(&bytes);
        let mut decoder = FrameDecoder::new();
        decoder.extend(&bytes);
        // Each call consumes bytes or stops, so this ends.
        let mut guard = 0;
        while decoder.next_frame().is_some() {
            guard += 1;
            prop_assert!(guard <= bytes.len() + 1);
        }
    }

    #[test]
    fn corrupted_frames_are_rejected_not_panicked_on(message in message(), position in any::<prop::sample::Index>(), flip in 1u8..) {
        let mut bytes = Frame::new(3, message).encode().unwrap();
        let at = position.index(bytes.len());
        bytes[at] ^= flip;
        // One damaged byte is always caught (magic, version, length or CRC).
        prop_assert!(Frame::decode_exact(&bytes).is_err());
    }

    #[test]
    fn messages_round_trip(sequence in any::<u16>(), message in message()) {
        let frame = Frame::new(sequence, message);
        let bytes = frame.encode().unwrap();
        prop_assert_eq!(Frame::decode_exact(&bytes).unwrap(), frame.clone());
        // And through the stream decoder, in two arbitrary pieces.
        let mut decoder = FrameDecoder::new();
        let (head, tail) = bytes.split_at(bytes.len() / 3);
        decoder.extend(head);
        prop_assert!(decoder.next_frame().is_none());
        decoder.extend(tail);
        prop_assert_eq!(decoder.next_frame(), Some(Ok(frame)));
    }
}
