//! 300 tags at 10 Hz (3,000 positions a second) from the simulator, through
//! the pseudo-terminal and the engine, to a UDP listener on loopback: the
//! share of positions delivered, and the process's CPU use against a
//! baseline measured in the same run (the same site with no tags).

#![allow(
    clippy::print_stdout,
    missing_docs,
    reason = "a benchmark prints its figures"
)]

use std::{
    net::UdpSocket,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    thread,
    time::{Duration, Instant},
};

use netcfg_engine::{
    Engine, EngineOptions, NetcfgEngine, NetworkPlan,
    datagram::{Datagram, DatagramBody},
};
use netcfg_model::{Device, DeviceId, Instance, Interface, RoleId, SerialNumber};

const TAGS: u32 = 300;
const RUN: Duration = Duration::from_secs(5);

/// User + system CPU time of this process, in clock ticks (fields 14 and 15
/// of /proc/self/stat; 100 ticks a second on Linux).
fn cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let field = |index: usize| {
        fields
            .get(index)
            .and_then(|value| value.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // After the name, state is field 3 (index 0): utime is 14, stime 15.
    field(11) + field(12)
}

fn device(id: u32, serial: u32, role: RoleId, position: Option<[i32; 3]>) -> Device {
    Device {
        id: DeviceId::try_from(id).unwrap(),
        serial_number: SerialNumber::from_u32(serial),
        name: None,
        disabled: false,
        interfaces: vec![Interface {
            identifier: 0,
            role_id: role,
            x: position.map(|p| p[0]),
            y: position.map(|p| p[1]),
            z: position.map(|p| p[2]),
        }],
    }
}

struct Listener {
    port: u16,
    positions: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

fn listen() -> Listener {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let port = socket.local_addr().unwrap().port();
    let positions = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let (count, done) = (Arc::clone(&positions), Arc::clone(&stop));
    thread::spawn(move || {
        let mut buffer = vec![0u8; 2048];
        while !done.load(Ordering::Relaxed) {
            if let Ok(length) = socket.recv(&mut buffer)
                && let Ok(Datagram {
                    body: DatagramBody::Positions(records),
                    ..
                }) = Datagram::decode(&buffer[..length])
            {
                count.fetch_add(records.len() as u64, Ordering::Relaxed);
            }
        }
    });
    Listener {
        port,
        positions,
        stop,
    }
}

struct Figures {
    cpu_percent: f64,
    generated: u64,
    delivered: u64,
    seconds: f64,
}

fn run(runtime: &tokio::runtime::Runtime, name: &str, tags: u32) -> Figures {
    let logs = std::env::temp_dir().join("netcfg-engine-bench");
    let engine = NetcfgEngine::new(EngineOptions::default(), runtime.handle().clone());
    let listener = listen();
    let mut plan = NetworkPlan::new(
        name.parse().unwrap(),
        Instance::Simulator { scenario: None },
        logs,
    );
    plan.devices = vec![
        device(1, 0x0104_0001, RoleId::SEEDER, Some([0, 0, 2500])),
        device(2, 0x0104_0002, RoleId::ANCHOR, Some([30_000, 0, 2500])),
        device(3, 0x0104_0003, RoleId::ANCHOR, Some([30_000, 30_000, 2500])),
        device(4, 0x0104_0004, RoleId::ANCHOR, Some([0, 30_000, 2500])),
    ];
    plan.devices.extend(
        (0..tags).map(|index| device(10 + index, 0x0105_0000 + index, RoleId::DEFAULT_TAG, None)),
    );
    for stream in &mut plan.streams {
        stream.destination_ip = [127, 0, 0, 1].into();
        stream.destination_port = if stream.name.as_str() == "User" {
            listener.port
        } else {
            9
        };
    }
    let configuration = plan.configuration.clone();
    runtime.block_on(engine.start(plan)).unwrap();
    let simulator = engine.simulator(&configuration).unwrap();
    let started = Instant::now();
    let cpu_before = cpu_ticks();
    thread::sleep(RUN);
    let cpu = cpu_ticks() - cpu_before;
    let seconds = started.elapsed().as_secs_f64();
    runtime.block_on(engine.stop(&configuration)).unwrap();
    thread::sleep(Duration::from_millis(300));
    listener.stop.store(true, Ordering::Relaxed);
    Figures {
        cpu_percent: cpu as f64 / seconds,
        generated: simulator.stats().positions(),
        delivered: listener.positions.load(Ordering::Relaxed),
        seconds,
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let baseline = run(&runtime, "bench-baseline", 0);
    let loaded = run(&runtime, "bench-300-tags", TAGS);
    let share = if loaded.generated == 0 {
        0.0
    } else {
        loaded.delivered as f64 / loaded.generated as f64
    };
    let rate = loaded.generated as f64 / loaded.seconds;
    println!(
        "positions: {TAGS} tags at 10 Hz for {:.1} s",
        loaded.seconds
    );
    println!(
        "  generated by the simulator: {} ({rate:.0}/s, target 3000/s)",
        loaded.generated
    );
    println!(
        "  delivered on the User stream: {} ({:.2}%, must be >= 99%)",
        loaded.delivered,
        share * 100.0
    );
    println!("cpu (engine + simulator + listener, one process; 100% = one core):");
    println!(
        "  baseline, same site without tags: {:.1}%",
        baseline.cpu_percent
    );
    println!(
        "  300 tags:                         {:.1}%",
        loaded.cpu_percent
    );
    println!(
        "  ratio to baseline: {:.1}x; extra per 1,000 positions/s: {:.2}% of a core",
        loaded.cpu_percent / baseline.cpu_percent.max(0.1),
        (loaded.cpu_percent - baseline.cpu_percent) / (rate / 1_000.0).max(0.001)
    );
    println!(
        "{}",
        if share >= 0.99 {
            "PASS: at least 99% delivered"
        } else {
            "FAIL: under 99% delivered"
        }
    );
}
