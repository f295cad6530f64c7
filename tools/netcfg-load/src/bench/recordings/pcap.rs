//! The bytes of a recording, read and written here rather than with the
//! server's own reader (the harness knows the server only from outside):
//! classic pcap as netcfg writes it (little-endian, microsecond stamps,
//! link type 101 raw IP), each record an IPv4 header, a UDP header and one
//! CDP datagram (`mark u32 | sequence u32 | "CDP0002\0" | serial u32 |
//! items`, each item `type u16 | size u16 | data`).

use anyhow::{Context, Result, bail, ensure};

/// Bytes of the file header.
const FILE_HEADER_LEN: usize = 24;
/// Bytes of a record header.
const RECORD_HEADER_LEN: usize = 16;
/// The pcap magic number of microsecond stamps, as netcfg writes it.
const MAGIC_MICROS: u32 = 0xA1B2_C3D4;
/// Link type raw IP.
const LINKTYPE_RAW: u32 = 101;
/// Bytes of the IPv4 header (no options) and the UDP header netcfg writes.
const IPV4_UDP_LEN: usize = 28;
/// IP protocol number of UDP.
const UDP: u8 = 17;
/// The mark that opens every CDP datagram.
const CDP_MARK: u32 = 0x3230_434C;
/// Bytes of a CDP datagram's header.
const CDP_HEADER_LEN: usize = 20;
/// Bytes of a CDP item's header.
const ITEM_HEADER_LEN: usize = 4;
/// The item type of a tag position.
const POSITION_V3: u16 = 0x0135;
/// Bytes of a PositionV3 item's data.
const POSITION_V3_LEN: usize = 30;
/// Pieces of a [`Repeated`] capture are about this long: small enough
/// that the client holds little of the file at a time.
const PIECE_LEN: usize = 64 * 1024;
/// The gap between two passes of a [`Repeated`] capture.
const PASS_GAP_US: u64 = 100_000;

/// The fields of a PositionV3 a replay must send back unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Position {
    pub(super) serial: u32,
    pub(super) network_time: u64,
    pub(super) x: i32,
    pub(super) y: i32,
    pub(super) z: i32,
}

/// One record of a capture: its stamp and its captured bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Record<'a> {
    pub(super) time_us: u64,
    pub(super) data: &'a [u8],
}

/// What a capture holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Contents {
    /// Records, each a CDP datagram.
    pub(super) datagrams: u64,
    /// Every PositionV3, in the order of the file.
    pub(super) positions: Vec<Position>,
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or_default())
}

fn i32_at(bytes: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or_default())
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default())
}

/// The records of a capture netcfg wrote; an error for anything else or a
/// file cut short (a measurement from a damaged file would mislead).
pub(super) fn records(file: &[u8]) -> Result<Vec<Record<'_>>> {
    ensure!(
        file.len() >= FILE_HEADER_LEN,
        "{} bytes: shorter than a pcap header",
        file.len()
    );
    ensure!(
        u32_at(file, 0) == MAGIC_MICROS,
        "not a little-endian microsecond pcap (magic {:#010x})",
        u32_at(file, 0)
    );
    ensure!(
        u32_at(file, 20) == LINKTYPE_RAW,
        "link type {}, not raw IP",
        u32_at(file, 20)
    );
    let mut records = Vec::new();
    let mut at = FILE_HEADER_LEN;
    while at < file.len() {
        let header = file.get(at..at + RECORD_HEADER_LEN).with_context(|| {
            format!(
                "the file ends inside the header of record {}",
                records.len()
            )
        })?;
        let length = u32_at(header, 8) as usize;
        let start = at + RECORD_HEADER_LEN;
        let data = file
            .get(start..start + length)
            .with_context(|| format!("the file ends inside record {}", records.len()))?;
        let time_us = u64::from(u32_at(header, 0)) * 1_000_000 + u64::from(u32_at(header, 4));
        records.push(Record { time_us, data });
        at = start + length;
    }
    Ok(records)
}

/// The CDP datagram inside a record's IPv4 and UDP headers.
fn cdp_payload(data: &[u8]) -> Result<&[u8]> {
    ensure!(
        data.len() >= IPV4_UDP_LEN,
        "{} bytes: no IPv4 and UDP headers",
        data.len()
    );
    // Version 4, a 20-byte header (netcfg writes no options), UDP.
    ensure!(
        data[0] == 0x45,
        "not an IPv4 header of 20 bytes ({:#04x})",
        data[0]
    );
    ensure!(data[9] == UDP, "IP protocol {}, not UDP", data[9]);
    Ok(&data[IPV4_UDP_LEN..])
}

/// The PositionV3 items of one CDP datagram, appended to `positions`.
fn datagram_positions(datagram: &[u8], positions: &mut Vec<Position>) -> Result<()> {
    ensure!(
        datagram.len() >= CDP_HEADER_LEN && u32_at(datagram, 0) == CDP_MARK,
        "not a CDP datagram"
    );
    let mut at = CDP_HEADER_LEN;
    while at < datagram.len() {
        ensure!(
            at + ITEM_HEADER_LEN <= datagram.len(),
            "an item header cut at byte {at}"
        );
        let (kind, size) = (u16_at(datagram, at), usize::from(u16_at(datagram, at + 2)));
        let data = datagram
            .get(at + ITEM_HEADER_LEN..at + ITEM_HEADER_LEN + size)
            .with_context(|| format!("item {kind:#06x} of {size} bytes cut at byte {at}"))?;
        if kind == POSITION_V3 {
            ensure!(
                size == POSITION_V3_LEN,
                "a PositionV3 of {size} bytes, not {POSITION_V3_LEN}"
            );
            positions.push(Position {
                serial: u32_at(data, 0),
                network_time: u64_at(data, 4),
                x: i32_at(data, 12),
                y: i32_at(data, 16),
                z: i32_at(data, 20),
            });
        }
        at += ITEM_HEADER_LEN + size;
    }
    Ok(())
}

/// The datagrams and positions of a capture netcfg wrote.
pub(super) fn contents(file: &[u8]) -> Result<Contents> {
    let mut contents = Contents::default();
    for (index, record) in records(file)?.iter().enumerate() {
        cdp_payload(record.data)
            .and_then(|datagram| datagram_positions(datagram, &mut contents.positions))
            .with_context(|| format!("record {index}"))?;
        contents.datagrams += 1;
    }
    Ok(contents)
}

/// The index of the first position where two sequences differ (the length
/// of the shorter when one is the other's beginning); `None` when equal.
pub(super) fn first_difference(left: &[Position], right: &[Position]) -> Option<usize> {
    let differ = left
        .iter()
        .zip(right)
        .position(|(left, right)| left != right);
    match differ {
        Some(index) => Some(index),
        None if left.len() == right.len() => None,
        None => Some(left.len().min(right.len())),
    }
}

/// A capture made of the records of another, repeated pass after pass, each
/// pass later than the last, up to the last whole record within a length;
/// its bytes come in pieces of about [`PIECE_LEN`], made as they are asked
/// for, so that the whole file is never in memory.
#[derive(Debug)]
pub(super) struct Repeated<'a> {
    records: &'a [Record<'a>],
    /// Records in the whole capture.
    count: usize,
    /// Bytes of the whole capture.
    len: u64,
    /// How much later each pass is than the one before.
    pass_us: u64,
    /// The next record (counted over every pass); the file header first.
    next: Option<usize>,
}

impl<'a> Repeated<'a> {
    /// The records of `records` repeated up to `limit` bytes at most.
    pub(super) fn new(records: &'a [Record<'a>], limit: u64) -> Result<Self> {
        let (Some(first), Some(last)) = (records.first(), records.last()) else {
            bail!("no record to repeat");
        };
        let mut len = FILE_HEADER_LEN as u64;
        let mut count = 0;
        loop {
            let record = &records[count % records.len()];
            let next = len + (RECORD_HEADER_LEN + record.data.len()) as u64;
            if next > limit {
                break;
            }
            (len, count) = (next, count + 1);
        }
        Ok(Self {
            records,
            count,
            len,
            pass_us: last.time_us.saturating_sub(first.time_us) + PASS_GAP_US,
            next: None,
        })
    }

    /// Bytes of the whole capture.
    pub(super) fn len(&self) -> u64 {
        self.len
    }

    /// Records of the whole capture.
    pub(super) fn records(&self) -> usize {
        self.count
    }

    /// Appends record `index` (counted over every pass) to `out`.
    fn write_record(&self, index: usize, out: &mut Vec<u8>) {
        let record = &self.records[index % self.records.len()];
        let pass = (index / self.records.len()) as u64;
        let time_us = record.time_us + pass * self.pass_us;
        let length = u32::try_from(record.data.len()).unwrap_or(u32::MAX);
        let seconds = u32::try_from(time_us / 1_000_000).unwrap_or(u32::MAX);
        let micros = (time_us % 1_000_000) as u32;
        for field in [seconds, micros, length, length] {
            out.extend_from_slice(&field.to_le_bytes());
        }
        out.extend_from_slice(record.data);
    }
}

/// The file header netcfg writes: pcap 2.4, snapshot length 65,535, raw IP.
fn file_header() -> [u8; FILE_HEADER_LEN] {
    let mut header = [0; FILE_HEADER_LEN];
    header[0..4].copy_from_slice(&MAGIC_MICROS.to_le_bytes());
    header[4..6].copy_from_slice(&2u16.to_le_bytes());
    header[6..8].copy_from_slice(&4u16.to_le_bytes());
    header[16..20].copy_from_slice(&65_535u32.to_le_bytes());
    header[20..24].copy_from_slice(&LINKTYPE_RAW.to_le_bytes());
    header
}

impl Iterator for Repeated<'_> {
    type Item = Vec<u8>;

    fn next(&mut self) -> Option<Vec<u8>> {
        let mut piece = Vec::with_capacity(PIECE_LEN + 2_048);
        let mut index = match self.next {
            None => {
                piece.extend_from_slice(&file_header());
                0
            }
            Some(index) if index >= self.count => return None,
            Some(index) => index,
        };
        while index < self.count && piece.len() < PIECE_LEN {
            self.write_record(index, &mut piece);
            index += 1;
        }
        self.next = Some(index);
        Some(piece)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(serial: u32, tick: u64) -> Position {
        Position {
            serial,
            network_time: tick * 65_536,
            x: -1_200 + i32::try_from(tick).unwrap(),
            y: 300,
            z: 1_000,
        }
    }

    /// A CDP datagram: `positions`, then an item of another type.
    fn datagram(positions: &[Position]) -> Vec<u8> {
        let mut out = CDP_MARK.to_le_bytes().to_vec();
        out.extend_from_slice(&7u32.to_le_bytes());
        out.extend_from_slice(b"CDP0002\0");
        out.extend_from_slice(&0xFE12_3456u32.to_le_bytes());
        for position in positions {
            out.extend_from_slice(&POSITION_V3.to_le_bytes());
            out.extend_from_slice(&30u16.to_le_bytes());
            out.extend_from_slice(&position.serial.to_le_bytes());
            out.extend_from_slice(&position.network_time.to_le_bytes());
            for value in [position.x, position.y, position.z] {
                out.extend_from_slice(&value.to_le_bytes());
            }
            out.extend_from_slice(&[0x8C, 0x23, 4, 0, 0, 0]);
        }
        out.extend_from_slice(&0x0137u16.to_le_bytes());
        out.extend_from_slice(&3u16.to_le_bytes());
        out.extend_from_slice(&[1, 2, 3]);
        out
    }

    /// `payload` in an IPv4 header and a UDP header (checksums left 0).
    fn ipv4_udp(payload: &[u8]) -> Vec<u8> {
        let total = u16::try_from(IPV4_UDP_LEN + payload.len()).unwrap();
        let mut out = vec![0x45, 0];
        out.extend_from_slice(&total.to_be_bytes());
        out.extend_from_slice(&[0, 0, 0x40, 0, 64, UDP, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1]);
        out.extend_from_slice(&40_000u16.to_be_bytes());
        out.extend_from_slice(&7_667u16.to_be_bytes());
        out.extend_from_slice(&(total - 20).to_be_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(payload);
        out
    }

    /// A capture of one record per datagram, 100 ms apart.
    fn capture(datagrams: &[Vec<u8>]) -> Vec<u8> {
        let records: Vec<Vec<u8>> = datagrams
            .iter()
            .map(|datagram| ipv4_udp(datagram))
            .collect();
        let records: Vec<Record<'_>> = records
            .iter()
            .enumerate()
            .map(|(index, data)| Record {
                time_us: 1_764_150_000_000_000 + index as u64 * 100_000,
                data,
            })
            .collect();
        // A limit of exactly one pass.
        let limit = records.iter().fold(FILE_HEADER_LEN, |len, record| {
            len + RECORD_HEADER_LEN + record.data.len()
        });
        Repeated::new(&records, limit as u64)
            .unwrap()
            .flatten()
            .collect()
    }

    #[test]
    fn reads_the_positions_of_every_datagram_in_order() {
        let (a, b, c) = (position(1, 10), position(2, 11), position(1, 12));
        let file = capture(&[datagram(&[a, b]), datagram(&[]), datagram(&[c])]);
        let contents = contents(&file).unwrap();
        assert_eq!(contents.datagrams, 3);
        assert_eq!(contents.positions, [a, b, c]);
        let records = records(&file).unwrap();
        assert_eq!(records[1].time_us - records[0].time_us, 100_000);
        assert_eq!(records[2].data, ipv4_udp(&datagram(&[c])));
    }

    /// A change that spoils a capture.
    type Damage = fn(&mut Vec<u8>);

    #[test]
    fn damaged_or_foreign_captures_are_refused_saying_why() {
        /// Where the first record's data starts.
        const RECORD: usize = FILE_HEADER_LEN + RECORD_HEADER_LEN;
        let good = capture(&[datagram(&[position(1, 1)])]);
        let cases: [(&str, Damage, &str); 8] = [
            ("empty", |file| file.clear(), "shorter than a pcap header"),
            (
                "pcapng",
                |file| file[0..4].copy_from_slice(&[0x0A, 0x0D, 0x0D, 0x0A]),
                "not a little-endian",
            ),
            ("ethernet", |file| file[20] = 1, "link type 1"),
            (
                "cut record",
                |file| file.truncate(file.len() - 1),
                "ends inside record 0",
            ),
            (
                "cut header",
                |file| file.truncate(FILE_HEADER_LEN + 3),
                "inside the header of record 0",
            ),
            ("tcp", |file| file[RECORD + 9] = 6, "IP protocol 6"),
            (
                "not cdp",
                |file| file[RECORD + IPV4_UDP_LEN] = 0,
                "not a CDP datagram",
            ),
            (
                // The last item (3 bytes) says it has 4.
                "cut item",
                |file| {
                    let at = file.len() - 5;
                    file[at] = 4;
                },
                "item 0x0137 of 4 bytes cut",
            ),
        ];
        for (name, damage, expected) in cases {
            let mut file = good.clone();
            damage(&mut file);
            let error = format!("{:#}", contents(&file).unwrap_err());
            assert!(error.contains(expected), "{name}: {error}");
        }
        assert_eq!(contents(&good).unwrap().positions.len(), 1);
    }

    #[test]
    fn tells_where_two_sequences_of_positions_part() {
        let (a, b, c) = (position(1, 1), position(2, 2), position(3, 3));
        let cases: [(&[Position], &[Position], Option<usize>); 6] = [
            (&[], &[], None),
            (&[a, b, c], &[a, b, c], None),
            (&[a, b, c], &[a, c, b], Some(1)),
            (&[a, b], &[a, b, c], Some(2)),
            (&[a, b, c], &[a], Some(1)),
            (&[a], &[b], Some(0)),
        ];
        for (left, right, expected) in cases {
            assert_eq!(
                first_difference(left, right),
                expected,
                "{left:?} {right:?}"
            );
        }
    }

    #[test]
    fn a_repeated_capture_is_as_long_as_it_says_and_later_pass_after_pass() {
        let datagrams: Vec<Vec<u8>> = (0..5).map(|tick| datagram(&[position(1, tick)])).collect();
        let source = capture(&datagrams);
        let records = records(&source).unwrap();
        let record_len = (RECORD_HEADER_LEN + records[0].data.len()) as u64;
        // Limits below one record, at exactly 12 records and just short of 13.
        for (limit, count) in [
            (FILE_HEADER_LEN as u64 + record_len - 1, 0),
            (FILE_HEADER_LEN as u64 + 12 * record_len, 12),
            (FILE_HEADER_LEN as u64 + 13 * record_len - 1, 12),
        ] {
            let repeated = Repeated::new(&records, limit).unwrap();
            assert_eq!(
                (repeated.records(), repeated.len()),
                (count, FILE_HEADER_LEN as u64 + count as u64 * record_len)
            );
            let len = repeated.len();
            let file: Vec<u8> = repeated.flatten().collect();
            assert_eq!(file.len() as u64, len);
            let read = super::records(&file).unwrap();
            assert_eq!(read.len(), count);
            // Each record's bytes as in the source; stamps always later.
            assert!(
                read.iter()
                    .zip(records.iter().cycle())
                    .all(|(read, source)| read.data == source.data)
            );
            assert!(
                read.windows(2)
                    .all(|pair| pair[1].time_us > pair[0].time_us)
            );
            if count > 5 {
                assert_eq!(read[5].time_us - read[0].time_us, 400_000 + PASS_GAP_US);
                assert_eq!(contents(&file).unwrap().positions.len(), count);
            }
        }
        assert!(Repeated::new(&[], 1 << 20).is_err());
    }

    #[test]
    fn a_large_repeated_capture_comes_in_small_pieces() {
        let datagrams: Vec<Vec<u8>> = (0..40)
            .map(|tick| datagram(&[position(1, tick); 40]))
            .collect();
        let source = capture(&datagrams);
        let records = records(&source).unwrap();
        let repeated = Repeated::new(&records, 4 << 20).unwrap();
        let (len, count) = (repeated.len(), repeated.records());
        assert!(len > (4 << 20) - 2_000 && len <= 4 << 20, "{len}");
        let mut total = 0;
        for piece in repeated {
            assert!(piece.len() < PIECE_LEN + 2_048, "{}", piece.len());
            total += piece.len() as u64;
        }
        assert_eq!(total, len);
        assert!(count > 2_000, "{count}");
    }
}
