//! The hub's fan-out: frames, catch-up batches, queues.

use super::*;

fn name(text: &str) -> ConfigName {
    text.parse().unwrap()
}

fn change(hub: &EventHub, net: &ConfigName, number: usize) {
    hub.change(net, || ChangeEvent {
        net: net.to_string(),
        resource: "/nets/{net_name}".to_owned(),
        method: "PATCH".to_owned(),
        path: format!("/nets/{net}/{number}"),
    });
}

fn move_tags(hub: &EventHub, net: &ConfigName, tags: u32, time: u64) {
    let positions: Vec<PositionEntry> = (1..=tags)
        .map(|tag| PositionEntry {
            serial_number: SerialNumber::from_u32(tag),
            x: i32::try_from(time).unwrap(),
            y: 0,
            z: 0,
            quality: 100,
            error_mm: 80,
            network_time: time,
            vx: None,
            vy: None,
        })
        .collect();
    hub.positions(net, &positions);
}

#[test]
fn a_subscriber_that_never_reads_holds_a_bounded_queue_and_is_told_to_resync() {
    let hub = Arc::new(EventHub::new());
    let site = name("site");
    let stalled = hub.subscribe(Some(site.clone()), EventKinds::all(), PositionForm::Objects);
    for number in 0..10 * MAX_QUEUED + 7 {
        change(&hub, &site, number);
    }
    for time in 0..100 {
        move_tags(&hub, &site, 50, time);
        hub.cut_frames();
    }
    {
        let queue = lock(&stalled.subscriber.queue);
        assert!(queue.resync);
        assert!(queue.events.len() <= MAX_QUEUED, "{}", queue.events.len());
        assert!(queue.positions.len() == 1);
        assert!(queue.positions[0].frames.len() <= MAX_PENDING_FRAMES);
    }
    let (resync, events, _) = stalled.subscriber.take();
    assert!(resync);
    // What is kept is the newest: the last change published is last.
    let Some(Queued::Event(last)) = events.last() else {
        panic!("changes are queued");
    };
    assert!(String::from_utf8_lossy(last).contains(&format!("/nets/site/{}", 10 * MAX_QUEUED + 6)));

    // The positions it missed come as one batch: each tag's newest.
    let (net, taken) = stalled.subscriber.take_positions().unwrap();
    assert_eq!(net, site);
    let since = taken.expect_err("more frames than kept: a catch-up batch");
    let batch = hub
        .positions_since(&net, since, PositionForm::Objects)
        .unwrap();
    let text = String::from_utf8_lossy(&batch);
    assert_eq!(text.matches("serial_number").count(), 50, "{text}");
    assert!(text.contains("\"x\":99"), "the newest position: {text}");
    assert!(stalled.subscriber.take_positions().is_none());
}

fn latest_kept(hub: &EventHub, net: &ConfigName) -> usize {
    lock(&hub.inner).positions[net].latest.len()
}

#[test]
fn each_form_is_rendered_once_and_only_when_a_subscriber_asks_for_it() {
    let hub = Arc::new(EventHub::new());
    let site = name("site");
    let objects = hub.subscribe(Some(site.clone()), EventKinds::all(), PositionForm::Objects);
    move_tags(&hub, &site, 3, 7);
    hub.cut_frames();
    let (_, taken) = objects.subscriber.take_positions().unwrap();
    let frame = taken.unwrap();
    assert!(frame.bytes(PositionForm::Compact).is_none());
    let text = String::from_utf8_lossy(frame.bytes(PositionForm::Objects).unwrap());
    assert_eq!(text.matches("serial_number").count(), 3, "{text}");

    let compact = hub.subscribe(Some(site.clone()), EventKinds::all(), PositionForm::Compact);
    move_tags(&hub, &site, 3, 8);
    hub.cut_frames();
    let (_, shared) = objects.subscriber.take_positions().unwrap();
    let (_, own) = compact.subscriber.take_positions().unwrap();
    let (shared, own) = (shared.unwrap(), own.unwrap());
    assert!(Arc::ptr_eq(&shared, &own), "one frame for both");
    let text = String::from_utf8_lossy(own.bytes(PositionForm::Compact).unwrap()).into_owned();
    let data: serde_json::Value =
        serde_json::from_str(text.split_once("data: ").unwrap().1.trim()).unwrap();
    assert_eq!(data["network_time"], 8);
    assert_eq!(data["columns"][6], "network_time_offset");
    assert_eq!(
        data["rows"][0],
        // vx, vy null: these tags are not tracked.
        serde_json::json!(["00:00:0001", 8, 0, 0, 100, 80, 0, null, null]),
        "{text}"
    );
    // A catch-up batch comes in the form asked for.
    let batch = hub
        .positions_since(&site, own.tick, PositionForm::Compact)
        .unwrap();
    assert!(String::from_utf8_lossy(&batch).contains("\"rows\""));
}

#[test]
fn positions_nobody_listens_to_are_neither_rendered_nor_kept() {
    let hub = Arc::new(EventHub::new());
    let site = name("site");
    let changes = hub.subscribe(
        Some(site.clone()),
        EventKinds::none().with(EventKind::Change),
        PositionForm::Objects,
    );
    for time in 0..3 {
        move_tags(&hub, &site, 50, time);
        hub.cut_frames();
    }
    assert_eq!(latest_kept(&hub, &site), 0);
    assert!(changes.subscriber.take_positions().is_none());
}

#[test]
fn a_tag_that_stopped_moving_is_forgotten_unless_a_subscriber_is_owed_its_position() {
    let hub = Arc::new(EventHub::new());
    let site = name("site");
    let reader = hub.subscribe(Some(site.clone()), EventKinds::all(), PositionForm::Objects);
    let stalled = hub.subscribe(Some(site.clone()), EventKinds::all(), PositionForm::Objects);
    // Fifty tags move once; afterwards only the first one moves.
    move_tags(&hub, &site, 50, 0);
    hub.cut_frames();
    for time in 1..=100 {
        move_tags(&hub, &site, 1, time);
        hub.cut_frames();
        while reader.subscriber.take_positions().is_some() {}
    }
    // The stalled subscriber is owed every frame since the first: its
    // catch-up still has all fifty tags.
    assert_eq!(latest_kept(&hub, &site), 50);
    let (net, taken) = stalled.subscriber.take_positions().unwrap();
    let since = taken.expect_err("more frames than kept: a catch-up batch");
    let batch = hub
        .positions_since(&net, since, PositionForm::Objects)
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&batch)
            .matches("serial_number")
            .count(),
        50
    );
    // Once nobody is owed those frames, the tags that stopped go.
    for time in 101..=200 {
        move_tags(&hub, &site, 1, time);
        hub.cut_frames();
        while reader.subscriber.take_positions().is_some() {}
        while stalled.subscriber.take_positions().is_some() {}
    }
    assert_eq!(latest_kept(&hub, &site), 1);
}

#[test]
fn subscribers_get_their_configuration_and_kinds_only() {
    let hub = Arc::new(EventHub::new());
    let (site, yard) = (name("site"), name("yard"));
    let site_changes = hub.subscribe(
        Some(site.clone()),
        EventKinds::none().with(EventKind::Change),
        PositionForm::Objects,
    );
    let every_state = hub.subscribe(
        None,
        EventKinds::none().with(EventKind::State),
        PositionForm::Objects,
    );
    change(&hub, &site, 1);
    change(&hub, &yard, 2);
    hub.state(&yard, StateChange::Renamed, Some(&site));
    move_tags(&hub, &site, 3, 1);
    hub.cut_frames();

    let (_, events, _) = site_changes.subscriber.take();
    assert_eq!(events.len(), 1);
    assert!(site_changes.subscriber.take_positions().is_none());
    let (_, events, _) = every_state.subscriber.take();
    assert_eq!(events.len(), 1);
    drop(site_changes);
    assert_eq!(
        hub.subscribers(),
        1,
        "a dropped subscription leaves the hub"
    );
}

#[test]
fn a_closed_hub_ends_every_stream_and_every_later_one() {
    let hub = Arc::new(EventHub::new());
    let before = hub.subscribe(None, EventKinds::all(), PositionForm::Objects);
    hub.close();
    let after = hub.subscribe(None, EventKinds::all(), PositionForm::Objects);
    assert!(before.subscriber.take().2);
    assert!(after.subscriber.take().2);
}
