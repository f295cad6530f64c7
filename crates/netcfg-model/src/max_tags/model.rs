//! The airtime model: what one tag and the seeders cost, and how many tags
//! fit in what is left. `docs/max-tags.md` gives the formula term by term.

use super::constants::{
    ACCELEROMETER_SAMPLE_BYTES, ANCHOR_REARM_US, CHANNEL_SETTLE_US, CLOCK_TOLERANCE,
    GYROSCOPE_SAMPLE_BYTES, MAGNETOMETER_SAMPLE_BYTES, MAX_FRAME_BYTES, PRESSURE_SAMPLE_BYTES,
    QUATERNION_SAMPLE_BYTES, RANGING_ANCHORS, RANGING_FINAL_BYTES, RANGING_RESPONSE_BYTES,
    RANGING_TURNAROUND_US, SENSOR_RECORD_HEADER_BYTES, SLEEP_TIMER_TICK_US,
    TEMPERATURE_SAMPLE_BYTES, TIMING_PACKET_BYTES, USER_DATA_HEADER_BYTES,
};
use super::inputs::MaxTagsInputs;
use super::phy::Phy;
use super::result::{LimitingFactor, MaxTagsResult};
use crate::{
    network_mode::NetworkMode,
    time::{NetworkTime, SensorPeriod},
};

/// What one tag costs, for a given beacon period.
#[derive(Debug, Clone, Copy)]
struct TagCost {
    /// Average data bytes (sensor and user records) a beacon carries.
    data_bytes: f64,
    /// Average frames per beacon.
    frames: f64,
    /// Airtime of the beacon's frames.
    beacon_us: f64,
    /// Airtime of one location (beacon, or ranging exchange).
    exchange_us: f64,
    /// Guard time of the slot.
    guard_us: f64,
    /// The whole slot: exchange, guard and window.
    slot_us: f64,
    /// The share of the channel one tag takes (slot / period), computed so
    /// that each input enters once and rounding keeps it monotone.
    channel_share: f64,
}

/// The parts of the model that do not depend on the tag period.
#[derive(Debug, Clone, Copy)]
struct Model {
    phy: Phy,
    /// Data bytes per microsecond a tag produces (sensor and user records).
    data_rate: f64,
    /// Airtime of a frame holding only the overhead.
    overhead_frame_us: f64,
    /// Bytes of data a frame has room for.
    frame_room: f64,
    /// Airtime of a location beyond its beacon (MultiRange's other frames).
    exchange_extra_us: f64,
    /// The guard's part that does not grow with the period.
    fixed_guard_us: f64,
    window_us: f64,
    overhead_bytes: f64,
}

/// Bytes per microsecond of a record of `bytes` bytes sent every `period`;
/// nothing when off.
fn record_rate(bytes: u32, period: SensorPeriod) -> f64 {
    period
        .period()
        .map_or(0.0, |period| f64::from(bytes) / period.as_micros())
}

impl Model {
    fn of(inputs: &MaxTagsInputs) -> Self {
        let phy = Phy::of(&inputs.rf_setting);
        let sample_bytes = [
            ACCELEROMETER_SAMPLE_BYTES,
            GYROSCOPE_SAMPLE_BYTES,
            MAGNETOMETER_SAMPLE_BYTES,
            QUATERNION_SAMPLE_BYTES,
            PRESSURE_SAMPLE_BYTES,
            TEMPERATURE_SAMPLE_BYTES,
        ];
        let mut data_rate = 0.0;
        for ((_, period), sample) in inputs.sensor_periods().into_iter().zip(sample_bytes) {
            data_rate += record_rate(SENSOR_RECORD_HEADER_BYTES + sample, period);
        }
        if inputs.user_data_size > 0 {
            data_rate += record_rate(
                USER_DATA_HEADER_BYTES + inputs.user_data_size,
                inputs.user_data_period,
            );
        }
        let exchange_extra_us = match inputs.network_mode {
            NetworkMode::MultiTime => 0.0,
            NetworkMode::MultiRange => {
                f64::from(RANGING_ANCHORS)
                    * (RANGING_TURNAROUND_US + phy.frame_us(RANGING_RESPONSE_BYTES))
                    + RANGING_TURNAROUND_US
                    + phy.frame_us(RANGING_FINAL_BYTES)
            }
        };
        Self {
            phy,
            data_rate,
            overhead_frame_us: phy.frame_us(inputs.payload_overhead_size),
            // The rules keep the overhead below the largest frame.
            frame_room: f64::from(MAX_FRAME_BYTES.saturating_sub(inputs.payload_overhead_size))
                .max(1.0),
            exchange_extra_us,
            fixed_guard_us: 2.0 * SLEEP_TIMER_TICK_US + ANCHOR_REARM_US + CHANNEL_SETTLE_US,
            window_us: inputs.window_duration.as_micros(),
            overhead_bytes: f64::from(inputs.payload_overhead_size),
        }
    }

    /// What one tag beaconing every `period_us` costs.
    fn tag_cost(&self, period_us: f64) -> TagCost {
        let data_bytes = self.data_rate * period_us;
        let frames = (data_bytes / self.frame_room).max(1.0);
        let beacon_us = frames * self.overhead_frame_us + self.phy.data_us(data_bytes);
        let exchange_us = beacon_us + self.exchange_extra_us;
        let drift_share = 2.0 * CLOCK_TOLERANCE;
        let guard_us = self.fixed_guard_us + drift_share * period_us;
        let per_period = 1.0 / period_us;
        let frames_per_us = per_period.max(self.data_rate / self.frame_room);
        let channel_share = frames_per_us * self.overhead_frame_us
            + self.phy.data_us(self.data_rate)
            + (self.exchange_extra_us + self.fixed_guard_us + self.window_us) * per_period
            + drift_share;
        TagCost {
            data_bytes,
            frames,
            beacon_us,
            exchange_us,
            guard_us,
            slot_us: exchange_us + guard_us + self.window_us,
            channel_share,
        }
    }
}

/// How many tags fit in the channel share the seeders leave.
fn tags_that_fit(seeder_share: f64, tag_share: f64) -> u32 {
    if seeder_share >= 1.0 {
        return 0;
    }
    let tags = ((1.0 - seeder_share) / tag_share).floor();
    // tag_share is at least 2 × CLOCK_TOLERANCE, so tags is finite and at
    // most 25,000; the clamp only documents the cast.
    tags.clamp(0.0, f64::from(u32::MAX)) as u32
}

/// Rounds a duration or rate to three decimals (nanoseconds for durations).
fn round3(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

/// The period tags really beacon at: the tag period rounded down to a whole
/// number of `maximum_tag_period` cycles (the rules make it at least one).
pub(crate) fn effective_tag_period(inputs: &MaxTagsInputs) -> NetworkTime {
    let cycle = inputs.maximum_tag_period.units();
    if cycle == 0 {
        return inputs.tag_period;
    }
    NetworkTime::from_units(inputs.tag_period.units() / cycle * cycle)
}

/// Evaluates the model for inputs that follow every rule.
pub(crate) fn evaluate(inputs: &MaxTagsInputs) -> MaxTagsResult {
    let model = Model::of(inputs);
    let effective_period = effective_tag_period(inputs);
    let period_us = effective_period.as_micros();
    let cost = model.tag_cost(period_us);

    let seeder_frame_us = model.phy.frame_us(TIMING_PACKET_BYTES);
    let seeder_slot_us = seeder_frame_us + ANCHOR_REARM_US + CHANNEL_SETTLE_US;
    let seeder_share = if inputs.number_of_seeders == 0 || inputs.seeder_period.is_zero() {
        0.0
    } else {
        f64::from(inputs.number_of_seeders) * seeder_slot_us / inputs.seeder_period.as_micros()
    };

    let maximum_tags = tags_that_fit(seeder_share, cost.channel_share);
    let limiting_factor = if seeder_share >= 1.0 {
        LimitingFactor::Seeders
    } else if effective_period < inputs.tag_period
        && tags_that_fit(
            seeder_share,
            model.tag_cost(inputs.tag_period.as_micros()).channel_share,
        ) > maximum_tags
    {
        LimitingFactor::MaximumTagPeriod
    } else {
        LimitingFactor::Airtime
    };

    let seeder_airtime_us = seeder_share * period_us;
    MaxTagsResult {
        maximum_tags,
        limiting_factor,
        network_mode: inputs.network_mode,
        effective_tag_period: effective_period,
        tag_period_us: round3(period_us),
        beacon_bytes: round3(cost.frames * model.overhead_bytes + cost.data_bytes),
        frames_per_beacon: round3(cost.frames),
        frame_airtime_us: round3(cost.beacon_us),
        exchange_airtime_us: round3(cost.exchange_us),
        guard_time_us: round3(cost.guard_us),
        window_us: round3(model.window_us),
        slot_us: round3(cost.slot_us),
        seeder_frame_airtime_us: round3(seeder_frame_us),
        seeder_airtime_us: round3(seeder_airtime_us),
        airtime_left_for_tags_us: round3((period_us - seeder_airtime_us).max(0.0)),
        locations_per_second: round3(f64::from(maximum_tags) * 1e6 / period_us),
    }
}
