//! Recordings and replays (decisions §15): 5.1 only. A recording's file
//! goes out and comes in as a stream, never whole in memory.

use std::{future::poll_fn, pin::Pin};

use actix_web::{http::StatusCode, web};
use futures_core::Stream;
use netcfg_model::body::{RecordingPostBody, ReplayPatchBody};
use netcfg_service::RecordingRequest;
use tokio::sync::mpsc;

use super::count;
use crate::{
    context::Ctx,
    dispatch::FILE_BODY_LIMIT,
    error_code::ErrorCode,
    path::{NetPath, RecordingPath},
    payload::keys,
    reply::{ApiError, Reply},
};

/// How many pieces of an upload may wait for the disk.
const CHUNKS_IN_FLIGHT: usize = 4;

pub(crate) async fn start(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: RecordingPostBody = context.body()?;
    let request = RecordingRequest {
        name: body.name,
        duration_s: body.duration_s,
    };
    let recording = context
        .service()
        .start_recording(&path.net_name, request)
        .await?;
    Reply::created(format!("Recording {} started", recording.name))
        .with::<keys::Recording>(&recording)
}

pub(crate) async fn list(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let recordings = context.service().recordings(&path.net_name).await?;
    Reply::ok(count(recordings.len(), "recording")).with::<keys::Recordings>(&recordings)
}

pub(crate) async fn get(context: Ctx, path: RecordingPath) -> Result<Reply, ApiError> {
    let recording = context
        .service()
        .recording(&path.net_name, &path.recording_name)
        .await?;
    Reply::ok(format!("Recording {}", recording.name)).with::<keys::Recording>(&recording)
}

pub(crate) async fn delete(context: Ctx, path: RecordingPath) -> Result<Reply, ApiError> {
    let name = &path.recording_name;
    match context
        .service()
        .delete_recording(&path.net_name, name)
        .await?
    {
        Some(stopped) => {
            Reply::ok(format!("Recording {name} stopped")).with::<keys::Recording>(&stopped)
        }
        None => Ok(Reply::new(
            StatusCode::NO_CONTENT,
            format!("Recording {name} deleted"),
        )),
    }
}

pub(crate) async fn download(context: Ctx, path: RecordingPath) -> Result<Reply, ApiError> {
    let (length, chunks) = context
        .service()
        .download_recording(&path.net_name, &path.recording_name)
        .await?;
    Ok(Reply::file_stream(
        length,
        chunks,
        "application/vnd.tcpdump.pcap",
        format!("{}.pcap", path.recording_name),
    ))
}

pub(crate) async fn upload(mut context: Ctx, path: RecordingPath) -> Result<Reply, ApiError> {
    let Some(mut body) = context.take_stream() else {
        return Err(ApiError::problem(
            ErrorCode::InvalidUpload,
            "",
            "the body is empty; send the pcap file as the body (Content-Type application/vnd.tcpdump.pcap)",
        ));
    };
    let service = context.service();
    // A configuration that does not exist is said before the file is read.
    service.require_net(&path.net_name).await?;
    let (chunks, queue) = mpsc::channel::<web::Bytes>(CHUNKS_IN_FLIGHT);
    let writer = service.receive_recording(queue);
    let mut total = 0usize;
    let mut reading = Ok(());
    while let Some(chunk) = poll_fn(|cx| Pin::new(&mut body).poll_next(cx)).await {
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(error) => {
                reading = Err(ApiError::problem(
                    ErrorCode::InvalidUpload,
                    "",
                    format!("the body could not be read: {error}"),
                ));
                break;
            }
        };
        total += chunk.len();
        if total > FILE_BODY_LIMIT {
            reading = Err(ApiError::new(
                ErrorCode::BodyTooLarge,
                format!("the body is larger than the limit of {FILE_BODY_LIMIT} bytes"),
            ));
            break;
        }
        // The writer stopped (the file was refused): its error says why.
        if chunks.send(chunk).await.is_err() {
            break;
        }
    }
    drop(chunks);
    let written = writer.await;
    reading?;
    let recording = service
        .finish_recording_upload(&path.net_name, &path.recording_name, written?)
        .await?;
    Reply::created(format!(
        "Recording {} uploaded: {} datagrams over {} ms",
        recording.name, recording.datagrams, recording.duration_ms
    ))
    .with::<keys::Recording>(&recording)
}

pub(crate) async fn replay(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let state = context.service().replay_state(&path.net_name).await?;
    Reply::ok(format!("Replay of {}/{}", state.net, state.recording)).with::<keys::Replay>(&state)
}

pub(crate) async fn control(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let body: ReplayPatchBody = context.body()?;
    let state = context
        .service()
        .control_replay(&path.net_name, body.control())
        .await?;
    Reply::ok(format!("Replay of {}/{}", state.net, state.recording)).with::<keys::Replay>(&state)
}
