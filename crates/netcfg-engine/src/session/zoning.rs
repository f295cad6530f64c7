//! A session's zones (decisions §13): every position delivered is tested
//! against them; each enter and exit goes to the live feed, to the User
//! stream as TagZoneInfo, and (when the zone says so) to the tag as a
//! device action. Zone events are never dropped the way positions are:
//! they are few, and each is sent once, whoever listens.

use std::collections::HashMap;

use netcfg_model::{
    DeviceAction, ItemName, RoleId, SerialNumber, Zone,
    geofence::{Crossing, CrossingKind, FenceId, Geofence, Occupant},
};
use tokio::sync::mpsc;

use netcfg_model::time::clock::wall_clock_ms;

use super::{Session, lock};
use crate::{
    api::{LiveEvent, ZoneEvent},
    cdp::{self, GeofencerZoneInfo, Item, TagZoneInfo},
    plan::NetworkPlan,
    protocol::PositionReport,
};

/// Device actions waiting for the link; beyond this many, new ones are
/// dropped with a warning rather than held without bound.
pub(super) const ACTION_QUEUE: usize = 1_024;

/// What a crossing needs beyond the geometry.
#[derive(Debug)]
struct ZoneInfo {
    name: ItemName,
    on_enter: Option<DeviceAction>,
    on_exit: Option<DeviceAction>,
    /// GeofencerZoneInfo for the User stream (none when the outline does
    /// not fit one datagram).
    announcement: Option<Item>,
}

/// The zones of a running configuration and where its tags stand.
#[derive(Debug, Default)]
pub(crate) struct Zoning {
    geofence: Geofence,
    zones: HashMap<FenceId, ZoneInfo>,
    /// The zones the last replacement removed: their occupants' exits are
    /// told with their names.
    removed: HashMap<FenceId, ZoneInfo>,
    /// Each configured device's roles (the zones' role filters).
    roles: HashMap<SerialNumber, Vec<RoleId>>,
}

fn announcement(zone: &Zone) -> Option<Item> {
    let item = Item::GeofencerZoneInfo(GeofencerZoneInfo {
        zone_id: zone.zone_id,
        zone_name: zone.name.as_str().to_owned(),
        z_min: zone.z_min.unwrap_or(i32::MIN),
        z_max: zone.z_max.unwrap_or(i32::MAX),
        hysteresis: zone.hysteresis_mm.get(),
        vertices: zone.polygon.points().to_vec(),
    });
    (item.data_len() <= cdp::MAX_ITEM_DATA_LEN).then_some(item)
}

impl Zoning {
    /// The zones of `plan`, with no tag in them yet.
    pub(crate) fn new(plan: &NetworkPlan) -> Self {
        let mut zoning = Self::default();
        zoning.take_roles(plan);
        zoning.replace(plan.zones.clone(), 0, &mut Vec::new());
        zoning
    }

    /// Reads the devices' roles from a (new) plan.
    pub(crate) fn take_roles(&mut self, plan: &NetworkPlan) {
        self.roles = plan
            .devices
            .iter()
            .map(|device| {
                let roles = device.interfaces.iter().map(|i| i.role_id).collect();
                (device.serial_number, roles)
            })
            .collect();
    }

    fn replace(&mut self, zones: Vec<Zone>, now: u64, out: &mut Vec<Crossing>) {
        let fences = zones.iter().map(Zone::fence).collect();
        self.geofence.replace(fences, now, out);
        let mut old = std::mem::take(&mut self.zones);
        self.zones = zones
            .into_iter()
            .map(|zone| {
                let info = ZoneInfo {
                    announcement: announcement(&zone),
                    name: zone.name,
                    on_enter: zone.on_enter,
                    on_exit: zone.on_exit,
                };
                (zone.zone_id, info)
            })
            .collect();
        old.retain(|id, _| !self.zones.contains_key(id));
        self.removed = old;
    }

    /// What a crossing of zone `id` needs: a current zone's, or one just
    /// removed.
    fn info(&self, id: FenceId) -> Option<&ZoneInfo> {
        self.zones.get(&id).or_else(|| self.removed.get(&id))
    }

    /// The zones' GeofencerZoneInfo items, by number.
    pub(crate) fn announcements(&self) -> Vec<Item> {
        let mut zones: Vec<_> = self.zones.iter().collect();
        zones.sort_by_key(|(id, _)| **id);
        zones
            .into_iter()
            .filter_map(|(_, info)| info.announcement.clone())
            .collect()
    }
}

/// What one batch of crossings becomes.
#[derive(Debug)]
pub(crate) struct Told {
    events: Vec<ZoneEvent>,
    items: Vec<Item>,
    actions: Vec<(SerialNumber, DeviceAction)>,
}

impl Session {
    /// Tests a batch of positions against the zones; tells the live feed
    /// and the tags what crossed, and returns the TagZoneInfo items for the
    /// caller to send with the batch's positions (in the same datagrams).
    pub(super) fn track_zones(&self, network_time: u64, reports: &[PositionReport]) -> Vec<Item> {
        let now = wall_clock_ms();
        let told = {
            let mut zoning = lock(&self.zoning);
            if zoning.geofence.is_empty() {
                return Vec::new();
            }
            let mut crossings = Vec::new();
            zoning.geofence.advance(now, &mut crossings);
            for report in reports {
                let Zoning {
                    geofence, roles, ..
                } = &mut *zoning;
                let tag_roles = roles
                    .get(&report.serial_number)
                    .map_or(&[][..], Vec::as_slice);
                let position = report.position;
                geofence.update(
                    report.serial_number,
                    tag_roles,
                    [position.x, position.y, position.z],
                    now,
                    &mut crossings,
                );
            }
            if crossings.is_empty() {
                return Vec::new();
            }
            self.tell(&zoning, &crossings, network_time)
        };
        self.tell_live(told)
    }

    /// New zones for the running network, at once: the exits and enters
    /// that follow, to be sent with [`Session::send_told`].
    pub(crate) fn replace_zones(&self, zones: Vec<Zone>) -> Told {
        let told = {
            let mut zoning = lock(&self.zoning);
            let mut crossings = Vec::new();
            zoning.replace(zones, wall_clock_ms(), &mut crossings);
            self.tell(&zoning, &crossings, 0)
        };
        // The User stream learns the new outlines at once.
        self.state_changed.notify_one();
        told
    }

    /// A tag that went silent leaves every zone it was in.
    pub(super) async fn forget_zones_of(&self, serial_number: SerialNumber) {
        let told = {
            let mut zoning = lock(&self.zoning);
            let mut crossings = Vec::new();
            zoning
                .geofence
                .forget(serial_number, wall_clock_ms(), &mut crossings);
            if crossings.is_empty() {
                return;
            }
            self.tell(&zoning, &crossings, 0)
        };
        self.send_told(told).await;
    }

    /// The tags inside zone `zone_id` now.
    pub(crate) fn zone_occupancy(&self, zone_id: FenceId) -> Vec<Occupant> {
        lock(&self.zoning).geofence.occupants(zone_id)
    }

    /// The live events, stream items and actions of `crossings`.
    fn tell(&self, zoning: &Zoning, crossings: &[Crossing], network_time: u64) -> Told {
        let mut told = Told {
            events: Vec::with_capacity(crossings.len()),
            items: Vec::new(),
            actions: Vec::new(),
        };
        let mut tags = Vec::new();
        for crossing in crossings {
            let Some(info) = zoning.info(crossing.fence) else {
                continue;
            };
            told.events.push(ZoneEvent {
                configuration: self.configuration.clone(),
                zone: info.name.clone(),
                zone_id: crossing.fence,
                serial_number: crossing.serial_number,
                kind: crossing.kind,
                position: crossing.position,
                network_time,
                time_ms: crossing.at_ms,
            });
            let action = match crossing.kind {
                CrossingKind::Enter => &info.on_enter,
                CrossingKind::Exit => &info.on_exit,
            };
            if let Some(action) = action {
                told.actions.push((crossing.serial_number, action.clone()));
            }
            if !tags.contains(&crossing.serial_number) {
                tags.push(crossing.serial_number);
            }
        }
        told.items = tags
            .into_iter()
            .map(|serial_number| {
                Item::TagZoneInfo(TagZoneInfo {
                    serial_number,
                    zones: zoning.geofence.fences_of(serial_number),
                })
            })
            .collect();
        told
    }

    /// Tells the live feed, the tags and the User stream.
    pub(crate) async fn send_told(&self, told: Told) {
        let items = self.tell_live(told);
        let streams = self.streams();
        if let Some(user) = &streams.user {
            let result = user.send_items(&items).await;
            self.stream_result(user, result);
        }
    }

    /// Tells the live feed and the tags; returns the User stream's items.
    fn tell_live(&self, told: Told) -> Vec<Item> {
        if !told.events.is_empty() {
            let _ = self.live.send(LiveEvent::Zones(told.events.into()));
        }
        for (serial_number, action) in told.actions {
            if self.zone_actions.try_send((serial_number, action)).is_err() {
                self.journal.notify(
                    netcfg_model::Level::Warning,
                    format!(
                        "a zone's action for tag {serial_number} was dropped: \
                         {ACTION_QUEUE} actions are waiting already"
                    ),
                    Some(serial_number),
                );
            }
        }
        told.items
    }

    /// Sends the zones' device actions, one after another, until the
    /// session ends.
    pub(super) async fn run_zone_actions(
        self: std::sync::Arc<Self>,
        mut actions: mpsc::Receiver<(SerialNumber, DeviceAction)>,
    ) {
        while let Some((serial_number, action)) = actions.recv().await {
            let name = action.name();
            if let Err(error) = self
                .command(serial_number, action, self.timing.push_timeout)
                .await
            {
                self.journal.notify(
                    netcfg_model::Level::Warning,
                    format!("a zone's {name} for tag {serial_number} failed: {error}"),
                    Some(serial_number),
                );
            }
        }
    }
}
