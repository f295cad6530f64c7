//! The classic pcap capture format (not pcapng), as Wireshark and tcpdump
//! read it: how a recording is written and how a capture made elsewhere is
//! read back (decisions §15).
//!
//! Pure: the caller reads and writes the bytes. A file is a 24-byte
//! [`FileHeader`], then records, each a 16-byte record header and the
//! captured bytes. netcfg writes link type raw IP ([`LINKTYPE_RAW`]): each
//! record an IPv4 (or IPv6) header, a UDP header and the CDP datagram, as
//! sent. It reads raw IP, Ethernet (with VLAN tags), Linux cooked captures
//! (SLL, SLL2) and BSD loopback, in either byte order, with microsecond or
//! nanosecond stamps.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// Bytes of the file header.
pub const FILE_HEADER_LEN: usize = 24;
/// Bytes of a record header.
pub const RECORD_HEADER_LEN: usize = 16;
/// The link type of raw IP packets (IPv4 or IPv6 by the version nibble).
pub const LINKTYPE_RAW: u32 = 101;
/// The largest record netcfg reads: a UDP datagram can be no larger.
pub const MAX_RECORD_LEN: u32 = 262_144;
/// The snapshot length netcfg writes (no datagram is cut).
pub const SNAPLEN: u32 = 65_535;
/// Bytes of the IPv4 and UDP headers netcfg writes before a datagram.
pub const IPV4_UDP_HEADER_LEN: usize = 28;
/// Bytes of the IPv6 and UDP headers netcfg writes before a datagram.
pub const IPV6_UDP_HEADER_LEN: usize = 48;

const MAGIC_MICROS: u32 = 0xA1B2_C3D4;
const MAGIC_NANOS: u32 = 0xA1B2_3C4D;
const PCAPNG_MAGIC: u32 = 0x0A0D_0D0A;
const LINKTYPE_NULL: u32 = 0;
const LINKTYPE_ETHERNET: u32 = 1;
const LINKTYPE_LOOP: u32 = 108;
const LINKTYPE_LINUX_SLL: u32 = 113;
const LINKTYPE_IPV4: u32 = 228;
const LINKTYPE_IPV6: u32 = 229;
const LINKTYPE_LINUX_SLL2: u32 = 276;
const UDP: u8 = 17;

/// Why bytes are not a capture netcfg can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PcapError {
    /// Fewer bytes than a file header.
    #[error("the file is shorter than a pcap header (24 bytes)")]
    TooShort,
    /// A pcapng file.
    #[error(
        "the file is pcapng, not pcap: save it as \"Wireshark/tcpdump - pcap\" (or run `editcap -F pcap in.pcapng out.pcap`)"
    )]
    Pcapng,
    /// Not a capture at all.
    #[error("the file is not a pcap capture (its first bytes are not a pcap magic number)")]
    NotPcap,
    /// A link type netcfg does not read.
    #[error(
        "the capture's link type {0} is not one netcfg reads (raw IP, Ethernet, Linux cooked or loopback)"
    )]
    LinkType(u32),
    /// A record header that cannot be right.
    #[error("record {index}: its length {length} is larger than {MAX_RECORD_LEN} bytes")]
    RecordTooLong {
        /// The record's index, from 0.
        index: u64,
        /// The length it claims.
        length: u32,
    },
    /// The file ends inside a record.
    #[error("the file ends inside record {0}")]
    Truncated(u64),
}

/// What the file header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileHeader {
    /// Whether the file's integers are big-endian.
    pub big_endian: bool,
    /// Whether the stamps' fractions are nanoseconds (else microseconds).
    pub nanoseconds: bool,
    /// The link type of every record.
    pub link_type: u32,
}

impl FileHeader {
    /// The header netcfg writes: little-endian, microseconds, raw IP.
    pub const NETCFG: Self = Self {
        big_endian: false,
        nanoseconds: false,
        link_type: LINKTYPE_RAW,
    };

    /// Reads a file header.
    ///
    /// # Errors
    /// Not pcap, pcapng, or a link type netcfg does not read.
    pub fn parse(bytes: &[u8]) -> Result<Self, PcapError> {
        let Some(bytes) = bytes.get(..FILE_HEADER_LEN) else {
            // Say pcapng or "not pcap" as soon as four bytes show it.
            if bytes.len() >= 4 {
                Self::magic(bytes)?;
            }
            return Err(PcapError::TooShort);
        };
        let (big_endian, nanoseconds) = Self::magic(bytes)?;
        let link_type = read_u32(&bytes[20..24], big_endian) & 0x0FFF_FFFF;
        match link_type {
            LINKTYPE_NULL | LINKTYPE_ETHERNET | LINKTYPE_RAW | LINKTYPE_LOOP
            | LINKTYPE_LINUX_SLL | LINKTYPE_IPV4 | LINKTYPE_IPV6 | LINKTYPE_LINUX_SLL2 => {}
            other => return Err(PcapError::LinkType(other)),
        }
        Ok(Self {
            big_endian,
            nanoseconds,
            link_type,
        })
    }

    fn magic(bytes: &[u8]) -> Result<(bool, bool), PcapError> {
        let little = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        match little {
            MAGIC_MICROS => Ok((false, false)),
            MAGIC_NANOS => Ok((false, true)),
            PCAPNG_MAGIC => Err(PcapError::Pcapng),
            _ => match little.swap_bytes() {
                MAGIC_MICROS => Ok((true, false)),
                MAGIC_NANOS => Ok((true, true)),
                _ => Err(PcapError::NotPcap),
            },
        }
    }

    /// The 24 bytes of this header (version 2.4, snapshot length
    /// [`SNAPLEN`]).
    pub fn encode(&self) -> [u8; FILE_HEADER_LEN] {
        let magic = if self.nanoseconds {
            MAGIC_NANOS
        } else {
            MAGIC_MICROS
        };
        let mut out = [0u8; FILE_HEADER_LEN];
        let mut put = |at: usize, bytes: &[u8]| out[at..at + bytes.len()].copy_from_slice(bytes);
        if self.big_endian {
            put(0, &magic.to_be_bytes());
            put(4, &2u16.to_be_bytes());
            put(6, &4u16.to_be_bytes());
            put(16, &SNAPLEN.to_be_bytes());
            put(20, &self.link_type.to_be_bytes());
        } else {
            put(0, &magic.to_le_bytes());
            put(4, &2u16.to_le_bytes());
            put(6, &4u16.to_le_bytes());
            put(16, &SNAPLEN.to_le_bytes());
            put(20, &self.link_type.to_le_bytes());
        }
        out
    }

    /// Reads the record header that follows `index` records.
    ///
    /// # Errors
    /// A record longer than [`MAX_RECORD_LEN`].
    pub fn record(
        &self,
        index: u64,
        bytes: &[u8; RECORD_HEADER_LEN],
    ) -> Result<RecordHeader, PcapError> {
        let seconds = u64::from(read_u32(&bytes[0..4], self.big_endian));
        let fraction = u64::from(read_u32(&bytes[4..8], self.big_endian));
        let captured_len = read_u32(&bytes[8..12], self.big_endian);
        if captured_len > MAX_RECORD_LEN {
            return Err(PcapError::RecordTooLong {
                index,
                length: captured_len,
            });
        }
        let micros = if self.nanoseconds {
            fraction / 1_000
        } else {
            fraction
        };
        Ok(RecordHeader {
            time_us: seconds.saturating_mul(1_000_000).saturating_add(micros),
            captured_len,
        })
    }

    /// The UDP datagram a record holds, if it holds one whole (IPv4 or IPv6,
    /// not a fragment). Never panics, whatever the bytes.
    pub fn udp<'a>(&self, record: &'a [u8]) -> Option<Udp<'a>> {
        let packet = match self.link_type {
            LINKTYPE_RAW | LINKTYPE_IPV4 | LINKTYPE_IPV6 => record,
            LINKTYPE_ETHERNET => {
                let mut at = 12;
                let mut ether_type = read_be16(record, at)?;
                // 802.1Q and 802.1ad tags, possibly stacked.
                while ether_type == 0x8100 || ether_type == 0x88A8 {
                    at += 4;
                    ether_type = read_be16(record, at)?;
                }
                if ether_type != 0x0800 && ether_type != 0x86DD {
                    return None;
                }
                record.get(at + 2..)?
            }
            LINKTYPE_LINUX_SLL => record.get(16..)?,
            LINKTYPE_LINUX_SLL2 => record.get(20..)?,
            LINKTYPE_NULL | LINKTYPE_LOOP => record.get(4..)?,
            _ => return None,
        };
        ip_udp(packet)
    }
}

/// What a record header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordHeader {
    /// When the packet was captured, microseconds since the Unix epoch.
    pub time_us: u64,
    /// How many bytes of it follow.
    pub captured_len: u32,
}

/// A UDP datagram out of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Udp<'a> {
    /// Where it came from.
    pub source: SocketAddr,
    /// Where it went.
    pub destination: SocketAddr,
    /// Its payload.
    pub payload: &'a [u8],
}

fn read_u32(bytes: &[u8], big_endian: bool) -> u32 {
    let array = [bytes[0], bytes[1], bytes[2], bytes[3]];
    if big_endian {
        u32::from_be_bytes(array)
    } else {
        u32::from_le_bytes(array)
    }
}

fn read_be16(bytes: &[u8], at: usize) -> Option<u16> {
    let pair = bytes.get(at..at + 2)?;
    Some(u16::from_be_bytes([pair[0], pair[1]]))
}

fn ip_udp(packet: &[u8]) -> Option<Udp<'_>> {
    let version = packet.first()? >> 4;
    let (source, destination, udp) = match version {
        4 => {
            let header_len = usize::from(packet[0] & 0x0F) * 4;
            let total_len = usize::from(read_be16(packet, 2)?);
            let fragment = read_be16(packet, 6)?;
            // More fragments, or an offset: not a whole datagram.
            let fixed = packet.get(..20)?;
            if header_len < 20 || fragment & 0x3FFF != 0 || fixed[9] != UDP {
                return None;
            }
            let source = Ipv4Addr::new(fixed[12], fixed[13], fixed[14], fixed[15]);
            let destination = Ipv4Addr::new(fixed[16], fixed[17], fixed[18], fixed[19]);
            let end = total_len.min(packet.len());
            (
                IpAddr::V4(source),
                IpAddr::V4(destination),
                packet.get(header_len..end)?,
            )
        }
        6 => {
            if *packet.get(6)? != UDP {
                return None;
            }
            let payload_len = usize::from(read_be16(packet, 4)?);
            let address = |at: usize| -> Option<Ipv6Addr> {
                let bytes: [u8; 16] = packet.get(at..at + 16)?.try_into().ok()?;
                Some(Ipv6Addr::from(bytes))
            };
            let end = (40 + payload_len).min(packet.len());
            (
                IpAddr::V6(address(8)?),
                IpAddr::V6(address(24)?),
                packet.get(40..end)?,
            )
        }
        _ => return None,
    };
    let source_port = read_be16(udp, 0)?;
    let destination_port = read_be16(udp, 2)?;
    let udp_len = usize::from(read_be16(udp, 4)?);
    if udp_len < 8 || udp_len > udp.len() {
        return None;
    }
    Some(Udp {
        source: SocketAddr::new(source, source_port),
        destination: SocketAddr::new(destination, destination_port),
        payload: &udp[8..udp_len],
    })
}

/// Whether `payload` starts as a CDP datagram does: the mark `LC02` and
/// `CDP0002\0` (cdp.md); the data protocol's decoder says the rest.
pub fn is_cdp(payload: &[u8]) -> bool {
    payload.len() >= 20 && payload[0..4] == *b"LC02" && payload[8..16] == *b"CDP0002\0"
}

/// Appends one record, as netcfg writes it under [`FileHeader::NETCFG`]:
/// the record header, an IP header (IPv4 when both addresses are IPv4, else
/// IPv6 with mapped addresses), a UDP header with its checksum, `payload`.
/// Returns the bytes appended.
pub fn append_record(
    out: &mut Vec<u8>,
    time_us: u64,
    source: SocketAddr,
    destination: SocketAddr,
    payload: &[u8],
) -> usize {
    let start = out.len();
    let udp_len = 8 + payload.len();
    let captured = record_len(source, destination, payload.len()) - RECORD_HEADER_LEN;
    let seconds = u32::try_from(time_us / 1_000_000).unwrap_or(u32::MAX);
    let micros = (time_us % 1_000_000) as u32;
    out.extend_from_slice(&seconds.to_le_bytes());
    out.extend_from_slice(&micros.to_le_bytes());
    let captured_u32 = u32::try_from(captured).unwrap_or(u32::MAX);
    out.extend_from_slice(&captured_u32.to_le_bytes());
    out.extend_from_slice(&captured_u32.to_le_bytes());
    let udp_len16 = u16::try_from(udp_len).unwrap_or(u16::MAX);
    // The pseudo-header's sum, then the UDP header's and the payload's.
    let mut sum: u32;
    if let (IpAddr::V4(src), IpAddr::V4(dst)) = (source.ip(), destination.ip()) {
        let total = u16::try_from(captured).unwrap_or(u16::MAX);
        let mut ip = [0u8; 20];
        ip[0] = 0x45;
        ip[2..4].copy_from_slice(&total.to_be_bytes());
        // Don't fragment: the datagram left whole.
        ip[6] = 0x40;
        ip[8] = 64;
        ip[9] = UDP;
        ip[12..16].copy_from_slice(&src.octets());
        ip[16..20].copy_from_slice(&dst.octets());
        let checksum = fold(add_words(0, &ip));
        ip[10..12].copy_from_slice(&checksum.to_be_bytes());
        out.extend_from_slice(&ip);
        sum = add_words(0, &src.octets());
        sum = add_words(sum, &dst.octets());
    } else {
        let src = v6_of(source.ip());
        let dst = v6_of(destination.ip());
        let mut ip = [0u8; 40];
        ip[0] = 0x60;
        ip[4..6].copy_from_slice(&udp_len16.to_be_bytes());
        ip[6] = UDP;
        ip[7] = 64;
        ip[8..24].copy_from_slice(&src.octets());
        ip[24..40].copy_from_slice(&dst.octets());
        out.extend_from_slice(&ip);
        sum = add_words(0, &src.octets());
        sum = add_words(sum, &dst.octets());
    }
    sum += u32::from(UDP) + u32::from(udp_len16);
    let mut udp = [0u8; 8];
    udp[0..2].copy_from_slice(&source.port().to_be_bytes());
    udp[2..4].copy_from_slice(&destination.port().to_be_bytes());
    udp[4..6].copy_from_slice(&udp_len16.to_be_bytes());
    sum = add_words(sum, &udp);
    sum = add_words(sum, payload);
    let checksum = match fold(sum) {
        // 0 means "no checksum" in UDP; a computed 0 is sent as all ones.
        0 => 0xFFFF,
        other => other,
    };
    udp[6..8].copy_from_slice(&checksum.to_be_bytes());
    out.extend_from_slice(&udp);
    out.extend_from_slice(payload);
    out.len() - start
}

fn v6_of(ip: IpAddr) -> Ipv6Addr {
    match ip {
        IpAddr::V4(v4) => v4.to_ipv6_mapped(),
        IpAddr::V6(v6) => v6,
    }
}

/// The bytes [`append_record`] appends for a payload of `payload_len`.
pub fn record_len(source: SocketAddr, destination: SocketAddr, payload_len: usize) -> usize {
    let headers = match (source.ip(), destination.ip()) {
        (IpAddr::V4(_), IpAddr::V4(_)) => IPV4_UDP_HEADER_LEN,
        _ => IPV6_UDP_HEADER_LEN,
    };
    RECORD_HEADER_LEN + headers + payload_len
}

/// Adds `bytes` as big-endian 16-bit words (the last odd byte padded).
fn add_words(mut sum: u32, bytes: &[u8]) -> u32 {
    let mut pairs = bytes.chunks_exact(2);
    for pair in &mut pairs {
        sum = sum.wrapping_add(u32::from(u16::from_be_bytes([pair[0], pair[1]])));
        // Fold early so that a long payload cannot overflow.
        if sum > 0xFFFF_0000 {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
    }
    if let [last] = pairs.remainder() {
        sum = sum.wrapping_add(u32::from(*last) << 8);
    }
    sum
}

/// The ones' complement of the folded sum.
fn fold(mut sum: u32) -> u16 {
    while sum > 0xFFFF {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v4(text: &str) -> SocketAddr {
        text.parse().unwrap()
    }

    fn file_with(records: &[(u64, SocketAddr, SocketAddr, &[u8])]) -> Vec<u8> {
        let mut file = FileHeader::NETCFG.encode().to_vec();
        for (time, source, destination, payload) in records {
            append_record(&mut file, *time, *source, *destination, payload);
        }
        file
    }

    /// A record read back: time, source, destination, payload.
    type Read = (u64, SocketAddr, SocketAddr, Vec<u8>);

    fn read_all(file: &[u8]) -> Result<Vec<Read>, PcapError> {
        let header = FileHeader::parse(file)?;
        let mut at = FILE_HEADER_LEN;
        let mut out = Vec::new();
        let mut index = 0;
        while at < file.len() {
            let Some(bytes) = file.get(at..at + RECORD_HEADER_LEN) else {
                return Err(PcapError::Truncated(index));
            };
            let record = header.record(index, bytes.try_into().unwrap())?;
            at += RECORD_HEADER_LEN;
            let end = at + record.captured_len as usize;
            let data = file.get(at..end).ok_or(PcapError::Truncated(index))?;
            if let Some(udp) = header.udp(data) {
                out.push((
                    record.time_us,
                    udp.source,
                    udp.destination,
                    udp.payload.to_vec(),
                ));
            }
            at = end;
            index += 1;
        }
        Ok(out)
    }

    #[test]
    fn what_is_written_reads_back() {
        let source = v4("10.0.0.2:41000");
        let destination = v4("239.255.76.67:7667");
        let six = "[ff02::1]:7667".parse().unwrap();
        let file = file_with(&[
            (1_700_000_000_123_456, source, destination, b"hello"),
            (1_700_000_000_200_000, source, six, b"odd"),
        ]);
        let records = read_all(&file).unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(
            records[0],
            (
                1_700_000_000_123_456,
                source,
                destination,
                b"hello".to_vec()
            )
        );
        assert_eq!(records[1].2, six);
        assert_eq!(records[1].3, b"odd");
        assert_eq!(
            file.len(),
            FILE_HEADER_LEN + record_len(source, destination, 5) + record_len(source, six, 3)
        );
    }

    #[test]
    fn checksums_verify() {
        let source = v4("192.168.1.10:5000");
        let destination = v4("192.168.1.20:7667");
        let mut file = Vec::new();
        append_record(&mut file, 0, source, destination, b"abc");
        let ip = &file[RECORD_HEADER_LEN..RECORD_HEADER_LEN + 20];
        // A header with its checksum sums to all ones.
        assert_eq!(fold(add_words(0, ip)), 0);
        let udp = &file[RECORD_HEADER_LEN + 20..];
        let mut sum = add_words(0, &ip[12..20]);
        sum += u32::from(UDP) + udp.len() as u32;
        assert_eq!(fold(add_words(sum, udp)), 0);
    }

    #[test]
    fn foreign_captures_are_read() {
        // An Ethernet frame with a VLAN tag, big-endian, nanoseconds.
        let header = FileHeader {
            big_endian: true,
            nanoseconds: true,
            link_type: LINKTYPE_ETHERNET,
        };
        let encoded = header.encode();
        assert_eq!(FileHeader::parse(&encoded).unwrap(), header);
        let mut raw = Vec::new();
        append_record(
            &mut raw,
            0,
            v4("10.1.1.1:1"),
            v4("10.1.1.2:7667"),
            b"payload",
        );
        let ip = &raw[RECORD_HEADER_LEN..];
        let mut frame = vec![0u8; 12];
        frame.extend_from_slice(&[0x81, 0x00, 0, 5, 0x08, 0x00]);
        frame.extend_from_slice(ip);
        let udp = header.udp(&frame).unwrap();
        assert_eq!(udp.payload, b"payload");
        assert_eq!(udp.destination, v4("10.1.1.2:7667"));
        let mut record = [0u8; RECORD_HEADER_LEN];
        record[0..4].copy_from_slice(&2u32.to_be_bytes());
        record[4..8].copy_from_slice(&5_000u32.to_be_bytes());
        record[8..12].copy_from_slice(&(frame.len() as u32).to_be_bytes());
        let parsed = header.record(0, &record).unwrap();
        assert_eq!(parsed.time_us, 2_000_005);
    }

    #[test]
    fn what_is_not_pcap_says_so() {
        assert_eq!(FileHeader::parse(b"").unwrap_err(), PcapError::TooShort);
        assert_eq!(
            FileHeader::parse(b"SQLite format 3\0 and more bytes").unwrap_err(),
            PcapError::NotPcap
        );
        assert_eq!(
            FileHeader::parse(&[0x0A, 0x0D, 0x0D, 0x0A, 0, 0, 0, 0]).unwrap_err(),
            PcapError::Pcapng
        );
        let mut bluetooth = FileHeader::NETCFG.encode();
        bluetooth[20] = 201;
        assert_eq!(
            FileHeader::parse(&bluetooth).unwrap_err(),
            PcapError::LinkType(201)
        );
        let mut huge = [0u8; RECORD_HEADER_LEN];
        huge[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            FileHeader::NETCFG.record(3, &huge),
            Err(PcapError::RecordTooLong { index: 3, .. })
        ));
    }

    proptest::proptest! {
        /// Whatever the bytes, reading them never panics.
        #[test]
        fn any_bytes_read_without_a_panic(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..200),
            link in proptest::sample::select(vec![0u32, 1, 101, 108, 113, 228, 229, 276]),
        ) {
            let _ = FileHeader::parse(&bytes);
            let header = FileHeader { big_endian: false, nanoseconds: false, link_type: link };
            let _ = header.udp(&bytes);
            if let Some(record) = bytes.get(..RECORD_HEADER_LEN) {
                let _ = header.record(0, record.try_into().unwrap());
            }
        }
    }

    #[test]
    fn damaged_records_are_not_datagrams() {
        let mut raw = Vec::new();
        append_record(&mut raw, 0, v4("1.2.3.4:5"), v4("5.6.7.8:9"), b"xyz");
        let packet = raw[RECORD_HEADER_LEN..].to_vec();
        for cut in 0..packet.len() {
            // Every prefix either parses to something shorter or not at all.
            let _ = FileHeader::NETCFG.udp(&packet[..cut]);
        }
        let mut fragment = packet.clone();
        fragment[6] = 0x20;
        assert!(FileHeader::NETCFG.udp(&fragment).is_none());
        let mut tcp = packet;
        tcp[9] = 6;
        assert!(FileHeader::NETCFG.udp(&tcp).is_none());
    }
}
