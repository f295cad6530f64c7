//! The data streams: a UDP listener on 127.0.0.1 set as a stream's
//! destination receives CDP announcements, anchor health and positions at
//! the configured rates. (`cdp_py.rs` decodes them with the vendor's decoder.)

use std::time::Duration;

use crate::support::*;
use netcfg_engine::{
    Engine, EngineOptions, NetcfgEngine, NetworkPlan,
    cdp::{self, Item, Packet},
};
use netcfg_model::{DEFAULT_TAG_PERIOD, SettingKey, SettingValue, SystemSetting};
use tokio::net::UdpSocket;

async fn listener() -> (UdpSocket, u16) {
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let port = socket.local_addr().unwrap().port();
    (socket, port)
}

async fn next_datagram(socket: &UdpSocket) -> Packet {
    let mut buffer = vec![0u8; 2048];
    let length = within("a datagram", socket.recv(&mut buffer))
        .await
        .unwrap();
    assert!(length <= cdp::MAX_DATAGRAM_LEN);
    Packet::decode(&buffer[..length]).unwrap()
}

/// Sets the plan's anchor health report period to its shortest, one second.
fn report_health_every_second(plan: &mut NetworkPlan) {
    plan.settings.push(SystemSetting {
        setting_key: "anchor_health_report_period".parse::<SettingKey>().unwrap(),
        value: SettingValue::Integer(1),
        setting_class: "system".parse::<SettingKey>().unwrap(),
        setting_id: 0,
    });
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
    report_health_every_second(&mut plan);
    let name = plan.configuration.clone();
    within("start", engine.start(plan)).await.unwrap();

    // Announcements: consecutive sequence numbers, one per period (counted
    // in datagrams: each announcement fits one).
    let mut announcements = Vec::new();
    while announcements.len() < 6 {
        let packet = next_datagram(&config).await;
        let [
            Item::InstanceAnnounce(instance),
            Item::HostnameAnnounce(_),
            streams @ ..,
        ] = &packet.items[..]
        else {
            panic!("the Config stream carries announcements only, got {packet:?}");
        };
        assert_eq!(instance, "streams");
        // One CDPStreamInformation per stream of the configuration.
        assert_eq!(streams.len(), 4, "{streams:?}");
        announcements.push(packet);
    }
    for pair in announcements.windows(2) {
        assert_eq!(pair[1].sequence, pair[0].sequence + 1);
        assert_eq!(pair[1].serial_number, pair[0].serial_number);
    }

    // Health: every anchor and seeder, once per report period.
    let health = loop {
        let health: Vec<_> = next_datagram(&anchor)
            .await
            .items
            .into_iter()
            .filter_map(|item| match item {
                Item::AnchorHealthV5(health) => Some(health),
                _ => None,
            })
            .collect();
        if health.len() == 4 {
            break health;
        }
    };
    // A period is 1 s, or 2 s when a late counter report was waited for.
    assert!(
        health
            .iter()
            .any(|item| item.serial_number == serial("01:04:0001")
                && (1..=2).contains(&item.report_period))
    );

    // Positions: each tag at its role's rate (10 Hz), counted in network time.
    let tag = serial("01:05:0001");
    let mut times = Vec::new();
    while times.len() < 25 {
        for item in next_datagram(&user).await.items {
            if let Item::PositionV3(position) = item
                && position.serial_number == tag
            {
                times.push(cdp::units_from_ticks(position.network_time));
            }
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

/// A survey that judges an anchor `bad` (it stands 1.5 m from where the
/// plan says) shows in that anchor's AnchorHealthV5: error code 2, bad
/// survey; the others keep 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_badly_surveyed_anchor_says_so_in_its_health() {
    let logs = tempfile::tempdir().unwrap();
    let engine = NetcfgEngine::new(EngineOptions::default(), tokio::runtime::Handle::current());
    let (anchor, anchor_port) = listener().await;
    let mut plan = site_plan(
        "surveyed",
        "sim?toa_noise_mm=30&survey_error=01:04:0003:1500:0:0",
        logs.path(),
    );
    aim_stream(&mut plan, "Anchor", anchor_port);
    report_health_every_second(&mut plan);
    let name = plan.configuration.clone();
    let unsurveyed = plan.clone();
    within("start", engine.start(plan)).await.unwrap();

    let survey = within("survey", engine.survey(&name)).await.unwrap();
    let bad: Vec<_> = survey.bad_anchors().collect();
    assert_eq!(bad, [serial("01:04:0003")], "{survey:?}");
    assert_eq!(engine.last_survey(&name).as_ref(), Some(&survey));

    // Reports sent before the survey may still be queued: read from the
    // first that names the bad survey (within a few report periods).
    let mut codes = std::collections::BTreeMap::new();
    let mut reports = 0;
    while codes.len() < 4 {
        for item in next_datagram(&anchor).await.items {
            if let Item::AnchorHealthV5(health) = item {
                reports += 1;
                let code = health.interanchor_comms_error_code;
                if !codes.is_empty() || (health.serial_number == serial("01:04:0003") && code == 2)
                {
                    codes.insert(health.serial_number, code);
                }
            }
        }
        assert!(reports < 40, "no report of the bad survey: {codes:?}");
    }
    for (anchor, code) in codes {
        let expected = if anchor == serial("01:04:0003") { 2 } else { 0 };
        assert_eq!(code, expected, "{anchor}");
    }
    within("stop", engine.stop(&name)).await.unwrap();

    // Started again with the survey kept (decisions §20: the caller reads
    // it from beside the saved-state file), the very first reports say so.
    let mut kept = unsurveyed;
    kept.survey = Some(survey);
    within("start again", engine.start(kept)).await.unwrap();
    let mut first = std::collections::BTreeMap::new();
    while first.len() < 4 {
        for item in next_datagram(&anchor).await.items {
            if let Item::AnchorHealthV5(health) = item {
                first
                    .entry(health.serial_number)
                    .or_insert(health.interanchor_comms_error_code);
            }
        }
    }
    for (anchor, code) in first {
        let expected = if anchor == serial("01:04:0003") { 2 } else { 0 };
        assert_eq!(code, expected, "{anchor} after the start");
    }
    within("stop", engine.stop(&name)).await.unwrap();
}
