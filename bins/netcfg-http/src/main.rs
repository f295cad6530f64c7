//! `netcfg-http`: the network configuration manager's HTTP API server.
//!
//! Reads its settings (command line over `NETCFG_*` environment over a TOML
//! file over defaults; see docs/configuration.md), logs with env_logger
//! (`RUST_LOG`), opens the data directory, starts the engine on a runtime
//! of its own, serves the API, and on SIGTERM or Ctrl-C stops the running
//! configurations before it exits.

mod baseline;
mod settings;
mod systemd;
mod tls;
mod users;

use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Parser;
use netcfg_api::{AppState, create_app};
use netcfg_engine::{Engine, EngineOptions, NetcfgEngine};
use netcfg_model::Instance;
use netcfg_service::{DEFAULT_COMMAND_TIMEOUT, Service, Services};
use netcfg_store::{Store, StoreOptions};

use crate::{
    baseline::Baseline,
    settings::{Cli, Settings},
};

/// jemalloc serves every allocation of the process, SQLite's too (its
/// `unprefixed_malloc_on_supported_platforms` feature makes it `malloc`):
/// per-thread caches where glibc's single arena made concurrent writes wait
/// on its lock (a fifth of the server's time at 32 connections), and freed
/// pages returned by a background thread (docs/reliability.md, "The
/// allocator"; its options are in .cargo/config.toml).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// The data directory opened, the engine on its own runtime, and the
/// service over both with its background work started.
fn start_service(
    settings: &Settings,
) -> Result<(tokio::runtime::Runtime, Arc<NetcfgEngine>, Service)> {
    std::fs::create_dir_all(settings.data_dir()).with_context(|| {
        format!(
            "could not create the data directory {}",
            settings.data_dir().display()
        )
    })?;
    let options = StoreOptions {
        retention: settings.retention()?,
        ..StoreOptions::default()
    };
    let store = Arc::new(
        Store::open_with(settings.data_dir(), options).with_context(|| {
            format!(
                "could not open the data directory {}",
                settings.data_dir().display()
            )
        })?,
    );

    // The engine runs on its own runtime, so serial I/O and UDP streams
    // never wait behind HTTP work, and its futures outlive any one request.
    let engine_runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("netcfg-engine")
        .enable_all()
        .build()
        .context("could not start the engine's runtime")?;
    let default_instance: Instance = settings
        .default_instance
        .parse()
        .with_context(|| format!("default_instance `{}`", settings.default_instance))?;
    let engine = Arc::new(NetcfgEngine::new(
        EngineOptions {
            default_instance,
            ..EngineOptions::default()
        },
        engine_runtime.handle().clone(),
    ));
    let services = Services {
        store,
        engine: engine.clone(),
        command_timeout: DEFAULT_COMMAND_TIMEOUT,
    };
    let service = Service::new(services);
    service.set_recording_limits(settings.recording_limits()?);
    service.set_people_settings(settings.people()?);
    service.set_oidc(settings.oidc()?);
    service.start_background_work(engine_runtime.handle());
    Ok((engine_runtime, engine, service))
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let settings = Settings::load(
        &cli,
        std::env::vars().filter(|(name, _)| !Baseline::is_variable(name)),
    )?;
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    if let Some(settings::Command::Users(command)) = &cli.command {
        return users::run(&settings, command);
    }

    let (engine_runtime, engine, service) = start_service(&settings)?;
    let state = actix_web::web::Data::new(
        AppState::new(settings.version()?, service).with_auth(settings.auth()?),
    );
    state.start_events(engine_runtime.handle());
    let hub = state.events().clone();
    let address = (settings.bind, settings.port);
    let baseline = Baseline::from_env()?;
    let engine_handle = engine_runtime.handle().clone();
    let tls = match settings.tls()? {
        Some((cert, key)) => Some(tls::server_config(cert, key)?),
        None => None,
    };
    let scheme = if tls.is_some() { "https" } else { "http" };

    // Limits against floods of connections (docs/configuration.md): actix
    // counts connections per worker, so the total is shared among them.
    let workers = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
    let per_worker = settings.max_connections.div_ceil(workers);
    let request_timeout = std::time::Duration::from_secs(settings.request_timeout);
    let keep_alive = std::time::Duration::from_secs(settings.keep_alive);

    actix_web::rt::System::new().block_on(async move {
        let server = actix_web::HttpServer::new(move || {
            create_app(state.clone()).configure(|config| baseline.register(config))
        })
        .workers(workers)
        .max_connections(per_worker)
        .client_request_timeout(request_timeout)
        .keep_alive(keep_alive)
        // Every answer is written whole, and an event stream's small
        // chunks must leave at once: with Nagle's algorithm a chunk
        // written while the previous one is unacknowledged waited for the
        // client's delayed ACK (40 ms: the zone events' p99).
        .tcp_nodelay(true)
        // A client that closes its end is gone: HTTP clients do not
        // half-close to wait for an answer, and an event stream of a client
        // that left would otherwise hold its buffers until its next write
        // failed (a keep-alive comment, up to 15 s later).
        .h1_allow_half_closed(false)
        // An event stream's pieces are written one at a time, so that each
        // connection's write buffer stays at its first 8 KiB (the live
        // events' memory per subscriber).
        .h1_write_buffer_size(netcfg_api::events::WRITE_BUFFER_FLUSH)
        // On SIGTERM, SIGINT or SIGQUIT the event streams end first: their
        // clients see a clean end, and draining waits for no open stream.
        .shutdown_signal(async move {
            termination().await;
            systemd::stopping();
            log::info!("stopping: the event streams end");
            hub.close();
        });
        let server = match tls {
            Some(config) => server.bind_rustls_0_23(address, config),
            None => server.bind(address),
        }
        .with_context(|| format!("could not listen on {}:{}", address.0, address.1))?;
        for bound in server.addrs() {
            log::info!(
                "netcfg listening on {scheme}://{bound} (API {})",
                settings.api_version
            );
        }
        let server = server.run();
        systemd::ready();
        actix_web::rt::spawn(systemd::watchdog(engine_handle));
        // On a signal actix-web stops accepting and drains requests; then
        // the networks are stopped cleanly.
        server.await.context("the HTTP server failed")?;
        for name in engine.running() {
            log::info!("stopping configuration {name}");
            if let Err(error) = engine.stop(&name).await {
                log::warn!("configuration {name} did not stop cleanly: {error}");
            }
        }
        log::info!("netcfg stopped");
        anyhow::Ok(())
    })
}

/// Waits for SIGTERM, SIGINT or SIGQUIT (a signal that cannot be watched
/// is logged and left out).
async fn termination() {
    use tokio::signal::unix::{SignalKind, signal};
    async fn next(kind: SignalKind) {
        match signal(kind) {
            Ok(mut stream) => {
                stream.recv().await;
            }
            Err(error) => {
                log::warn!("cannot watch signal {kind:?}: {error}");
                std::future::pending::<()>().await;
            }
        }
    }
    tokio::select! {
        () = next(SignalKind::terminate()) => {}
        () = next(SignalKind::interrupt()) => {}
        () = next(SignalKind::quit()) => {}
    }
}
