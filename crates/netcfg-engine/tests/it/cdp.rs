//! The CDP codec from golden fixtures and property tests.
//!
//! Each `fixtures/engine/cdp/<name>.hex` holds one datagram in hexadecimal
//! (`#` starts a comment), written by hand from `../shared/spec/cdp.md`;
//! `<name>.txt` beside it holds the decoded packet (`{:#?}`) or
//! `error: <message>`. A packet that decodes must encode back to exactly its
//! bytes. Run with `UPDATE_EXPECT=1` to rewrite the
//! `.txt` files after a deliberate change, then review the diff. The
//! `cdp_py` test feeds the same fixtures to the vendor's decoder.

use std::{net::Ipv4Addr, path::Path};

use netcfg_engine::cdp::{
    self, AccelerometerV3, AnchorHealthV5, DeviceActivityState, DeviceNames, Item,
    MAX_DATAGRAM_LEN, Packet, PositionV3, PressureV2, QuaternionV3, RoleReport, StreamInformation,
    Synchronization, TemperatureV2, Vector3, item_type,
};
use netcfg_model::SerialNumber;

use crate::support::check_hex_fixtures;
use proptest::prelude::*;

#[test]
fn every_cdp_fixture_decodes_as_recorded_and_valid_packets_re_encode_to_their_bytes() {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/engine/cdp");
    let mut types = std::collections::BTreeSet::new();
    let (checked, errors) = check_hex_fixtures(
        &directory,
        Packet::decode,
        |packet| packet.encode().unwrap(),
        |packet| types.extend(packet.items.iter().map(Item::item_type)),
    );
    // Every item netcfg sends has a golden fixture, and so does every error.
    use cdp::item_type as t;
    for item_type in [
        t::POSITION_V3,
        t::DEVICE_ACTIVITY_STATE,
        t::DEVICE_NAMES,
        t::ROLE_REPORT,
        t::ANCHOR_HEALTH_V5,
        t::SYNCHRONIZATION,
        t::ACCELEROMETER_V3,
        t::GYROSCOPE_V3,
        t::MAGNETOMETER_V3,
        t::QUATERNION_V3,
        t::PRESSURE_V2,
        t::TEMPERATURE_V2,
        t::STREAM_INFORMATION,
        t::HOSTNAME_ANNOUNCE,
        t::INSTANCE_ANNOUNCE,
        t::GEOFENCER_ZONE_INFO,
        t::TAG_ZONE_INFO,
    ] {
        assert!(
            types.contains(&item_type),
            "no fixture of item {item_type:#06X}"
        );
    }
    assert!(checked >= 26, "only {checked} fixtures");
    assert!(errors >= 8, "only {errors} error fixtures");
}

fn serial() -> impl Strategy<Value = SerialNumber> {
    any::<u32>().prop_map(SerialNumber::from_u32)
}

fn name() -> impl Strategy<Value = String> {
    "[ -~é]{0,40}"
}

fn item() -> impl Strategy<Value = Item> {
    prop_oneof![
        (
            serial(),
            any::<u64>(),
            any::<[i32; 3]>(),
            any::<(u16, u8, u8, u16)>()
        )
            .prop_map(
                |(
                    serial_number,
                    network_time,
                    [x, y, z],
                    (quality, anchor_count, flags, smoothing),
                )| {
                    Item::PositionV3(PositionV3 {
                        serial_number,
                        network_time,
                        x,
                        y,
                        z,
                        quality,
                        anchor_count,
                        flags,
                        smoothing,
                    })
                }
            ),
        (serial(), any::<u8>(), any::<[i32; 3]>(), any::<[u8; 3]>()).prop_map(
            |(serial_number, interface_id, [x, y, z], [role_id, connectivity, synchronization])| {
                Item::DeviceActivityState(DeviceActivityState {
                    serial_number,
                    interface_id,
                    x,
                    y,
                    z,
                    role_id,
                    connectivity,
                    synchronization,
                })
            }
        ),
        (serial(), name()).prop_map(|(serial_number, name)| Item::DeviceNames(DeviceNames {
            serial_number,
            name
        })),
        (any::<[u16; 3]>(), name()).prop_map(|([role_id, max_quantity, active_quantity], name)| {
            Item::RoleReport(RoleReport {
                role_id,
                max_quantity,
                active_quantity,
                name,
            })
        }),
        (
            serial(),
            any::<[u32; 5]>(),
            any::<(u8, u16, u8, u8)>(),
            prop::collection::vec((serial(), any::<u8>()), 0..8)
        )
            .prop_map(
                |(
                    serial_number,
                    counts,
                    (interface_id, average_quality, report_period, code),
                    pairs,
                )| {
                    Item::AnchorHealthV5(AnchorHealthV5 {
                        serial_number,
                        interface_id,
                        ticks: counts[0],
                        timed_rxs: counts[1],
                        beacons_reported: counts[2],
                        beacons_discarded: counts[3],
                        beacons_late: counts[4],
                        average_quality,
                        report_period,
                        interanchor_comms_error_code: code,
                        bad_paired_anchors: pairs,
                    })
                }
            ),
        any::<[u16; 4]>().prop_map(|[max_tx, current_tx, max_rx, current_rx]| {
            Item::Synchronization(Synchronization {
                max_tx,
                current_tx,
                max_rx,
                current_rx,
            })
        }),
        (serial(), any::<u64>(), any::<[i32; 3]>(), any::<u8>()).prop_map(
            |(serial_number, network_time, [x, y, z], scale)| {
                Item::AccelerometerV3(AccelerometerV3 {
                    serial_number,
                    network_time,
                    x,
                    y,
                    z,
                    scale,
                })
            }
        ),
        (
            serial(),
            any::<u64>(),
            any::<[i32; 3]>(),
            any::<u16>(),
            any::<bool>()
        )
            .prop_map(
                |(serial_number, network_time, [x, y, z], scale, gyroscope)| {
                    let reading = Vector3 {
                        serial_number,
                        network_time,
                        x,
                        y,
                        z,
                        scale,
                    };
                    if gyroscope {
                        Item::GyroscopeV3(reading)
                    } else {
                        Item::MagnetometerV3(reading)
                    }
                }
            ),
        (
            serial(),
            any::<u64>(),
            any::<[i32; 4]>(),
            any::<u8>(),
            any::<u16>()
        )
            .prop_map(
                |(serial_number, network_time, [x, y, z, w], quaternion_type, quality)| {
                    Item::QuaternionV3(QuaternionV3 {
                        serial_number,
                        network_time,
                        x,
                        y,
                        z,
                        w,
                        quaternion_type,
                        quality,
                    })
                }
            ),
        (serial(), any::<u64>(), any::<i32>(), any::<u32>()).prop_map(
            |(serial_number, network_time, pressure, scale)| Item::PressureV2(PressureV2 {
                serial_number,
                network_time,
                pressure,
                scale
            })
        ),
        (serial(), any::<u64>(), any::<i16>(), any::<u16>()).prop_map(
            |(serial_number, network_time, temperature, scale)| {
                Item::TemperatureV2(TemperatureV2 {
                    serial_number,
                    network_time,
                    temperature,
                    scale,
                })
            }
        ),
        (any::<[u32; 3]>(), any::<(u16, u16, u8)>(), name()).prop_map(
            |(ips, (destination_port, interface_port, ttl), name)| {
                Item::StreamInformation(StreamInformation {
                    destination_ip: Ipv4Addr::from(ips[0]),
                    destination_port,
                    interface_ip: Ipv4Addr::from(ips[1]),
                    interface_netmask: Ipv4Addr::from(ips[2]),
                    interface_port,
                    ttl,
                    name,
                })
            }
        ),
        name().prop_map(Item::HostnameAnnounce),
        name().prop_map(Item::InstanceAnnounce),
        (serial(), prop::collection::vec(any::<u16>(), 0..8)).prop_map(|(serial_number, zones)| {
            Item::TagZoneInfo(cdp::TagZoneInfo {
                serial_number,
                zones,
            })
        }),
        // Types this codec reads are not unknown: their layouts apply.
        (0x0200u16.., prop::collection::vec(any::<u8>(), 0..64))
            .prop_filter("an unknown type", |(item_type, _)| {
                ![item_type::GEOFENCER_ZONE_INFO, item_type::TAG_ZONE_INFO].contains(item_type)
            })
            .prop_map(|(item_type, data)| Item::Unknown { item_type, data }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic_the_decoder(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let _ = Packet::decode(&bytes);
        // And behind a valid header, so the item loop sees them too.
        let mut packet = Packet { sequence: 0, serial_number: SerialNumber::from_u32(0), items: vec![] }
            .encode()
            .unwrap();
        packet.extend_from_slice(&bytes);
        let _ = Packet::decode(&packet);
    }

    #[test]
    fn packets_round_trip(sequence in any::<u32>(), serial_number in serial(), items in prop::collection::vec(item(), 0..12)) {
        let packet = Packet { sequence, serial_number, items };
        let bytes = packet.encode().unwrap();
        prop_assert_eq!(Packet::decode(&bytes).unwrap(), packet);
    }

    #[test]
    fn packing_keeps_every_item_in_order_within_the_datagram_limit(serial_number in serial(), items in prop::collection::vec(item(), 0..200)) {
        let datagrams = cdp::pack(serial_number, &items).unwrap();
        let mut decoded = Vec::new();
        for (index, bytes) in datagrams.iter().enumerate() {
            prop_assert!(bytes.len() <= MAX_DATAGRAM_LEN);
            let packet = Packet::decode(bytes).unwrap();
            prop_assert_eq!(packet.serial_number, serial_number);
            prop_assert!(!packet.items.is_empty());
            // A datagram is closed only when the next item would not fit.
            if let Some(next) = datagrams.get(index + 1) {
                let first_next = Packet::decode(next).unwrap().items[0].data_len() + 4;
                prop_assert!(bytes.len() + first_next > MAX_DATAGRAM_LEN);
            }
            decoded.extend(packet.items);
        }
        prop_assert_eq!(decoded, items);
    }
}
