//! The data streams: a UDP listener on 127.0.0.1 set as a stream's
//! destination receives announcements, device health and positions at the
//! configured rates.

mod common;

use std::time::Duration;

use common::*;
use netcfg_engine::{
    Engine, EngineOptions, NetcfgEngine,
    datagram::{Datagram, DatagramBody},
};
use netcfg_model::{DEFAULT_TAG_PERIOD, SettingKey, SettingValue, SystemSetting};
use tokio::net::UdpSocket;

async fn listener() -> (UdpSocket, u16) {
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let port = socket.local_addr().unwrap().port();
    (socket, port)
}

async fn next_datagram(socket: &UdpSocket) -> Datagram {
    let mut buffer = vec![0u8; 2048];
    let length = within("a datagram", socket.recv(&mut buffer))
        .await
        .unwrap();
    Datagram::decode(&buffer[..length]).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listeners_receive_announcements_health_and_positions_at_their_rates() {
    let logs = tempfile::tempdir().unwrap();
    let announce_period = Duration::from_millis(100);
    let engine = NetcfgEngine::new(
        EngineOptions {
            announce_period,
            ..EngineOptions::default()
        },
        tokio::runtime::Handle::current(),
    );
    let (config, config_port) = listener().await;
    let (anchor, anchor_port) = listener().await;
    let (user, user_port) = listener().await;
    let mut plan = site_plan("streams", "sim", logs.path());
    aim_stream(&mut plan, "Config", config_port);
    aim_stream(&mut plan, "Anchor", anchor_port);
    aim_stream(&mut plan, "User", user_port);
    plan.settings.push(SystemSetting {
        setting_key: "anchor_health_report_period".parse::<SettingKey>().unwrap(),
        value: SettingValue::Integer(1),
        setting_class: "system".parse::<SettingKey>().unwrap(),
        setting_id: 0,
    });
    let name = plan.configuration.clone();
    within("start", engine.start(plan)).await.unwrap();

    // Announcements: consecutive sequence numbers, about one per period.
    let mut announcements = Vec::new();
    while announcements.len() < 6 {
        let datagram = next_datagram(&config).await;
        let DatagramBody::Announcement(announcement) = &datagram.body else {
            panic!("the Config stream carries announcements only, got {datagram:?}");
        };
        assert_eq!(announcement.configuration, "streams");
        assert_eq!(announcement.instance, "sim");
        assert_eq!(announcement.configured_devices, 6);
        announcements.push(datagram);
    }
    for pair in announcements.windows(2) {
        assert_eq!(pair[1].sequence, pair[0].sequence + 1);
    }
    let span = announcements[5].timestamp_ms - announcements[0].timestamp_ms;
    let mean = span as f64 / 5.0;
    let period = announce_period.as_millis() as f64;
    assert!(
        mean > period * 0.5 && mean < period * 2.0,
        "announcements every {mean} ms, configured {period} ms"
    );

    // Health: every configured device, once per report period.
    let health = loop {
        if let DatagramBody::Health(records) = next_datagram(&anchor).await.body
            && records.len() == 6
        {
            break records;
        }
    };
    assert!(health.iter().any(
        |record| record.serial_number == serial("01:04:0001") && record.battery_percent == 255
    ));

    // Positions: each tag at its role's rate (10 Hz), counted in network time.
    let tag = serial("01:05:0001");
    let mut times = Vec::new();
    while times.len() < 25 {
        if let DatagramBody::Positions(records) = next_datagram(&user).await.body {
            times.extend(
                records
                    .iter()
                    .filter(|record| record.serial_number == tag)
                    .map(|record| record.network_time),
            );
        }
    }
    let span = times[times.len() - 1] - times[0];
    let expected = span as f64 / f64::from(DEFAULT_TAG_PERIOD.units());
    let delivered = (times.len() - 1) as f64;
    assert!(
        (delivered - expected).abs() <= 1.5,
        "{delivered} positions over {expected} periods"
    );

    within("stop", engine.stop(&name)).await.unwrap();
}
