//! Calculations per second of the maximum-tag calculator.
//!
//! Criterion measures each case with a throughput of one calculation; then a
//! short summary prints calculations per second and the ratio to a baseline
//! measured in the same run: serialising the result to JSON, which the API
//! does with every answer anyway.
#![allow(
    clippy::print_stdout,
    missing_docs,
    reason = "a benchmark prints its figures; criterion's macros make undocumented items"
)]

use std::{hint::black_box, time::Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use netcfg_model::{
    NetworkMode, NetworkTime, RfSetting, SensorPeriod,
    body::CalculateMaximumTagsParameterizedBody,
    max_tags::{self, MaxTagsInputs},
};

fn public_figure() -> MaxTagsInputs {
    let body: CalculateMaximumTagsParameterizedBody = serde_json::from_value(serde_json::json!({
        "number_of_seeders": 4, "seeder_period": 97_500,
        "tag_period": 97_500, "maximum_tag_period": 48_750,
    }))
    .expect("a valid body");
    MaxTagsInputs::from_body(
        &body,
        &[RfSetting::default_setting()],
        NetworkMode::MultiTime,
    )
    .expect("valid inputs")
}

fn ranging_with_sensors() -> MaxTagsInputs {
    let mut inputs = public_figure();
    inputs.network_mode = NetworkMode::MultiRange;
    inputs.accelerometer_period = SensorPeriod::try_from(9_750).expect("a sensor period");
    inputs.user_data_period = SensorPeriod::try_from(975_000).expect("a sensor period");
    inputs.user_data_size = 100;
    inputs.tag_period = NetworkTime::from_units(146_250);
    inputs
}

fn cases() -> [(&'static str, MaxTagsInputs); 2] {
    [
        ("multitime_public_figure", public_figure()),
        ("multirange_with_sensors", ranging_with_sensors()),
    ]
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("max_tags");
    group.throughput(Throughput::Elements(1));
    for (name, inputs) in cases() {
        group.bench_function(format!("calculate/{name}"), |b| {
            b.iter(|| max_tags::calculate(black_box(&inputs)))
        });
    }
    let result = max_tags::calculate(&public_figure()).expect("a result");
    group.bench_function("baseline/result_to_json", |b| {
        b.iter(|| serde_json::to_string(black_box(&result)))
    });
    group.finish();
    summary();
}

/// Operations per second of `operation`, timed over a fixed count of runs.
fn per_second(mut operation: impl FnMut()) -> f64 {
    const RUNS: u32 = 200_000;
    let start = Instant::now();
    for _ in 0..RUNS {
        operation();
    }
    f64::from(RUNS) / start.elapsed().as_secs_f64()
}

fn summary() {
    let result = max_tags::calculate(&public_figure()).expect("a result");
    let baseline = per_second(|| {
        black_box(serde_json::to_string(black_box(&result)).ok());
    });
    println!("baseline: result to JSON: {baseline:.0} per second");
    for (name, inputs) in cases() {
        let rate = per_second(|| {
            black_box(max_tags::calculate(black_box(&inputs)).ok());
        });
        println!(
            "calculate/{name}: {rate:.0} calculations per second, {:.2}× the baseline",
            rate / baseline
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
