//! Every constant of the airtime model, with its unit and its source.
//!
//! Figures marked *ours* come from no public source: they are this project's
//! choices, explained in `docs/max-tags.md`. The rest are the IEEE 802.15.4
//! HRP UWB physical layer (IEEE 802.15.4-2011 clause 14, 802.15.4-2020 clause
//! 15), as radio vendors' manuals repeat them (see `domain.md`, "Airtime").

/// HRP UWB chips per microsecond (the 499.2 MHz chip rate). Every PHY
/// duration below is a whole number of chips. Source: IEEE 802.15.4 HRP UWB.
pub const CHIPS_PER_MICROSECOND: f64 = 499.2;

/// Length of one preamble symbol at PRF 16 MHz, in chips (31-chip code,
/// spreading 16): 496 chips = 993.59 ns. Source: IEEE 802.15.4 HRP UWB.
pub const PREAMBLE_SYMBOL_CHIPS_PRF16: u32 = 496;

/// Length of one preamble symbol at PRF 64 MHz, in chips (127-chip code,
/// spreading 4): 508 chips = 1017.63 ns. Source: IEEE 802.15.4 HRP UWB.
pub const PREAMBLE_SYMBOL_CHIPS_PRF64: u32 = 508;

/// Start-of-frame delimiter at 850 kbit/s and 6.8 Mbit/s, in preamble
/// symbols. Source: IEEE 802.15.4 HRP UWB (short SFD).
pub const SFD_SYMBOLS: u32 = 8;

/// Start-of-frame delimiter at 110 kbit/s, in preamble symbols. Source: IEEE
/// 802.15.4 HRP UWB (long SFD).
pub const SFD_SYMBOLS_110K: u32 = 64;

/// PHY header length, in bits. Source: domain.md "Airtime" (the radios'
/// 21-bit PHR).
pub const PHR_BITS: u32 = 21;

/// One bit at the 850 kbit/s rate, in chips (1025.64 ns; the PHR of the 850k
/// and 6.8M rates is sent at this rate). Source: IEEE 802.15.4 HRP UWB.
pub const BIT_CHIPS_850K: u32 = 512;

/// One bit at the 110 kbit/s rate, in chips (8205.13 ns; the PHR of the 110k
/// rate is sent at this rate). Source: IEEE 802.15.4 HRP UWB.
pub const BIT_CHIPS_110K: u32 = 4_096;

/// One bit at the 6.8 Mbit/s rate, in chips (128.21 ns). Source: IEEE
/// 802.15.4 HRP UWB.
pub const BIT_CHIPS_6M8: u32 = 64;

/// Data bits in one Reed-Solomon block, in bits. Source: IEEE 802.15.4 HRP
/// UWB, RS(63,55) over 6-bit symbols: 330 data bits carry 48 parity bits.
pub const REED_SOLOMON_BLOCK_BITS: u32 = 330;

/// Parity bits added to each (possibly partial) Reed-Solomon block, in bits.
/// Source: IEEE 802.15.4 HRP UWB.
pub const REED_SOLOMON_PARITY_BITS: u32 = 48;

/// The largest frame the radios send, in bytes (IEEE 802.15.4 allows 127;
/// the radios' extended frame mode 1023). Source: domain.md and the radios'
/// extended-length PHR.
pub const MAX_FRAME_BYTES: u32 = 1023;

/// Framing bytes of a tag beacon when `payload_overhead_size` is not given,
/// in bytes: the ISO/IEC 24730-62 blink (frame control 1, sequence number 1,
/// 64-bit tag id 8, FCS 2). Source: ISO/IEC 24730-62; the choice is ours.
pub const DEFAULT_PAYLOAD_OVERHEAD_BYTES: u32 = 12;

/// A seeder's timing packet ("tick"), in bytes: an IEEE 802.15.4 data-frame
/// header with PAN id compression, broadcast short destination and 64-bit
/// source (15), a 40-bit transmit timestamp (5), a 40-bit network time (5),
/// FCS (2). *Ours*: the vendor does not publish the tick's layout.
pub const TIMING_PACKET_BYTES: u32 = 27;

/// Bytes that announce one sensor record inside a beacon (its type), in
/// bytes. *Ours*.
pub const SENSOR_RECORD_HEADER_BYTES: u32 = 1;

/// An accelerometer sample, in bytes: 3 axes of 16 bits. *Ours* (the usual
/// width of MEMS inertial sensors' output registers).
pub const ACCELEROMETER_SAMPLE_BYTES: u32 = 6;

/// A gyroscope sample, in bytes: 3 axes of 16 bits. *Ours*.
pub const GYROSCOPE_SAMPLE_BYTES: u32 = 6;

/// A magnetometer sample, in bytes: 3 axes of 16 bits. *Ours*.
pub const MAGNETOMETER_SAMPLE_BYTES: u32 = 6;

/// An orientation quaternion, in bytes: 4 components of 16 bits. *Ours*.
pub const QUATERNION_SAMPLE_BYTES: u32 = 8;

/// A pressure sample, in bytes: one 32-bit value. *Ours*.
pub const PRESSURE_SAMPLE_BYTES: u32 = 4;

/// A temperature sample, in bytes: one 16-bit value. *Ours*.
pub const TEMPERATURE_SAMPLE_BYTES: u32 = 2;

/// Bytes that announce one user-data record (type and length), in bytes.
/// *Ours*.
pub const USER_DATA_HEADER_BYTES: u32 = 2;

/// One tick of a tag's 32.768 kHz sleep timer, in microseconds (30.52 µs). A
/// sleeping tag wakes for its slot on this clock, so its transmit instant is
/// uncertain by one tick either way: the guard holds two. *Ours* (the watch
/// crystal that low-power tags sleep on).
pub const SLEEP_TIMER_TICK_US: f64 = 1e6 / 32_768.0;

/// A tag's clock tolerance, as a fraction (20 ppm). Over one beacon period a
/// tag may run early or late by this share of the period; the guard holds
/// both. Source: IEEE 802.15.4 HRP UWB (±20 ppm).
pub const CLOCK_TOLERANCE: f64 = 20e-6;

/// Time an anchor needs after a frame ends before it can time the next one,
/// in microseconds: store the timestamp, read out the frame and diagnostics,
/// re-enable the receiver. *Ours* (DW1000-class radios behind an SPI bus).
pub const ANCHOR_REARM_US: f64 = 100.0;

/// Time for the previous frame to die out across the coverage area, in
/// microseconds: propagation over 300 m (1.0 µs) plus the channel impulse
/// response (about 1 µs, the radio's accumulator span). *Ours*.
pub const CHANNEL_SETTLE_US: f64 = 2.0;

/// Anchors a tag ranges with for one MultiRange location (a 3-D fix needs 4
/// ranges). *Ours*.
pub const RANGING_ANCHORS: u32 = 4;

/// An anchor's ranging response, in bytes (header 10, poll-receive and
/// response-transmit timestamps, FCS). Source: the DW1000 API's
/// double-sided two-way-ranging examples.
pub const RANGING_RESPONSE_BYTES: u32 = 15;

/// The tag's final ranging frame, in bytes (header 10, three timestamps,
/// FCS). Source: the DW1000 API's double-sided two-way-ranging examples.
pub const RANGING_FINAL_BYTES: u32 = 24;

/// Silence between the end of one ranging frame and the start of its reply,
/// in microseconds. *Ours*: the DWM1001 (nRF52) ranging examples reply 1,100
/// UWB microseconds (1,128 µs) after a frame's timestamp; about 180 µs of that
/// is frame at 6.8 Mbit/s, leaving about 950 µs of turnaround.
pub const RANGING_TURNAROUND_US: f64 = 950.0;
