//! Properties of the maximum-tag calculator: the result moves the way the
//! physics says when one input changes, and no input makes it panic or give
//! a number that is not finite.

use netcfg_model::{
    BitRate, Channel, FromJson, NetworkMode, NetworkTime, PreambleLength, Prf, RfSetting,
    SensorPeriod,
    body::CalculateMaximumTagsParameterizedBody,
    max_tags::{self, MaxTagsInputs},
};
use proptest::prelude::*;

fn rf_setting() -> impl Strategy<Value = RfSetting> {
    (
        prop::sample::select(BitRate::ALL),
        prop::sample::select(Prf::ALL),
        prop::sample::select(PreambleLength::ALL),
    )
        .prop_map(|(bit_rate, prf, preamble_length)| {
            let mut setting = RfSetting::default_setting();
            setting.bit_rate = bit_rate;
            setting.prf = prf;
            setting.preamble_length = preamble_length;
            setting.channel = Channel::Ch5;
            let code = if prf == Prf::Mhz16 { 3 } else { 9 };
            setting.preamble_code = code.try_into().expect("a preamble code");
            setting
        })
}

fn sensor_period() -> impl Strategy<Value = SensorPeriod> {
    prop_oneof![
        Just(SensorPeriod::OFF),
        (975u32..=10_000_000).prop_map(|units| SensorPeriod::try_from(units).expect("valid")),
    ]
}

/// Inputs that follow every rule.
fn valid_inputs() -> impl Strategy<Value = MaxTagsInputs> {
    let timing = (
        0u32..40,
        4_375u32..=2_000_000,
        975u32..=500_000,
        0u32..=2_000_000,
        0u32..=20_000,
    );
    let data = (
        prop::array::uniform6(sensor_period()),
        0u32..=1_022,
        sensor_period(),
        0u32..=1_023,
    );
    let radio = (
        rf_setting(),
        prop::sample::select(NetworkMode::ALL.to_vec()),
    );
    (timing, data, radio).prop_map(
        |(
            (seeders, seeder_period, cycle, extra, window),
            (sensors, overhead, user_period, user_size),
            (rf_setting, network_mode),
        )| {
            let tag_period = cycle + extra;
            MaxTagsInputs {
                number_of_seeders: seeders,
                seeder_period: NetworkTime::from_units(seeder_period),
                tag_period: NetworkTime::from_units(tag_period),
                maximum_tag_period: NetworkTime::from_units(cycle),
                accelerometer_period: sensors[0],
                gyroscope_period: sensors[1],
                magnetometer_period: sensors[2],
                quaternion_period: sensors[3],
                pressure_period: sensors[4],
                temperature_period: sensors[5],
                payload_overhead_size: overhead,
                user_data_period: user_period,
                user_data_size: user_size,
                window_duration: NetworkTime::from_units(window.min(tag_period - 1)),
                rf_setting,
                network_mode,
            }
        },
    )
}

fn tags(inputs: &MaxTagsInputs) -> u32 {
    match max_tags::calculate(inputs) {
        Ok(result) => result.maximum_tags,
        Err(problems) => panic!("valid inputs were refused: {problems}"),
    }
}

/// A shorter period for one sensor: off becomes on, on becomes shorter.
fn more_often(period: SensorPeriod, factor: u32) -> SensorPeriod {
    let units = period.period().map_or(10_000_000, NetworkTime::units);
    SensorPeriod::try_from((units / factor).max(975)).expect("valid")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn more_seeders_never_raise_the_result(inputs in valid_inputs(), more in 1u32..20) {
        let mut busier = inputs.clone();
        busier.number_of_seeders += more;
        prop_assert!(tags(&busier) <= tags(&inputs));
    }

    #[test]
    fn a_shorter_seeder_period_never_raises_the_result(inputs in valid_inputs(), shorter in 1u32..1_000_000) {
        let mut busier = inputs.clone();
        busier.seeder_period = NetworkTime::from_units(
            inputs.seeder_period.units().saturating_sub(shorter).max(4_375),
        );
        prop_assert!(tags(&busier) <= tags(&inputs));
    }

    #[test]
    fn a_longer_tag_period_never_lowers_the_result(inputs in valid_inputs(), longer in 1u32..3_000_000) {
        let mut slower = inputs.clone();
        slower.tag_period = NetworkTime::from_units(inputs.tag_period.units() + longer);
        prop_assert!(tags(&slower) >= tags(&inputs));
    }

    #[test]
    fn more_payload_never_raises_the_result(inputs in valid_inputs(), more in 1u32..200) {
        let mut heavier = inputs.clone();
        heavier.payload_overhead_size = (inputs.payload_overhead_size + more).min(1_022);
        prop_assert!(tags(&heavier) <= tags(&inputs));
        let mut heavier = inputs.clone();
        heavier.user_data_size = (inputs.user_data_size + more).min(1_023);
        if heavier.user_data_period.is_off() {
            heavier.user_data_period = more_often(SensorPeriod::OFF, 1);
        }
        prop_assert!(tags(&heavier) <= tags(&inputs));
    }

    #[test]
    fn more_sensor_data_never_raises_the_result(inputs in valid_inputs(), sensor in 0usize..6, factor in 1u32..100) {
        let mut heavier = inputs.clone();
        let period = match sensor {
            0 => &mut heavier.accelerometer_period,
            1 => &mut heavier.gyroscope_period,
            2 => &mut heavier.magnetometer_period,
            3 => &mut heavier.quaternion_period,
            4 => &mut heavier.pressure_period,
            _ => &mut heavier.temperature_period,
        };
        *period = more_often(*period, factor);
        prop_assert!(tags(&heavier) <= tags(&inputs));
    }

    #[test]
    fn no_input_panics_or_gives_a_number_that_is_not_finite(
        raw in prop::array::uniform16(any::<u32>()),
        rf_setting in rf_setting(),
        multirange in any::<bool>(),
    ) {
        let sensor = |units: u32| SensorPeriod::try_from(units).unwrap_or(SensorPeriod::OFF);
        let inputs = MaxTagsInputs {
            number_of_seeders: raw[0] % 1_000,
            seeder_period: NetworkTime::from_units(raw[1]),
            tag_period: NetworkTime::from_units(raw[2]),
            maximum_tag_period: NetworkTime::from_units(raw[3] >> (raw[4] % 32)),
            accelerometer_period: sensor(raw[5] % 2_000_000),
            gyroscope_period: sensor(raw[6]),
            magnetometer_period: sensor(raw[7] % 10_000),
            quaternion_period: sensor(raw[8]),
            pressure_period: sensor(raw[9] % 1_000),
            temperature_period: sensor(raw[10]),
            payload_overhead_size: raw[11] % 1_100,
            user_data_period: sensor(raw[12] % 5_000),
            user_data_size: raw[13] % 1_100,
            window_duration: NetworkTime::from_units(raw[14] >> (raw[15] % 32)),
            rf_setting,
            network_mode: if multirange { NetworkMode::MultiRange } else { NetworkMode::MultiTime },
        };
        match max_tags::calculate(&inputs) {
            Ok(result) => {
                let value = serde_json::to_value(&result).expect("serialises");
                for (field, number) in value.as_object().expect("an object") {
                    if let Some(number) = number.as_f64() {
                        prop_assert!(number.is_finite() && number >= 0.0, "{field} = {number}");
                    }
                }
                prop_assert!(result.effective_tag_period <= inputs.tag_period);
                prop_assert!(result.slot_us > result.exchange_airtime_us);
            }
            Err(problems) => prop_assert!(!problems.is_empty()),
        }
    }

    #[test]
    fn no_body_panics(fields in prop::collection::vec((0usize..15, any::<i64>()), 0..15)) {
        const NAMES: [&str; 15] = [
            "number_of_seeders", "seeder_period", "tag_period", "maximum_tag_period",
            "accelerometer_period", "gyroscope_period", "magnetometer_period", "quaternion_period",
            "pressure_period", "temperature_period", "payload_overhead_size", "user_data_period",
            "user_data_size", "settings", "unknown",
        ];
        let body: serde_json::Map<String, serde_json::Value> = fields
            .into_iter()
            .map(|(name, value)| (NAMES[name].to_owned(), value.into()))
            .collect();
        if let Ok(body) = CalculateMaximumTagsParameterizedBody::from_json(&body.into()) {
            let inputs = MaxTagsInputs::from_body(&body, &[], NetworkMode::MultiTime);
            // A body that reads cleanly follows every rule: it calculates.
            prop_assert!(max_tags::calculate(&inputs.expect("resolves")).is_ok());
        }
    }
}
