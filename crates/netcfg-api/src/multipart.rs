//! The upload form (`multipart/form-data`), read as a stream with
//! actix-multipart: the file field goes chunk by chunk into a store
//! [`Upload`] in the data directory's `.tmp/`, written on the blocking pool
//! behind a small bounded channel, so an upload costs a few chunks of
//! memory whatever its size, and no async worker waits for the disk.

use std::{future::poll_fn, pin::Pin};

use actix_multipart::{Field, Multipart};
use actix_web::web;
use futures_core::Stream;
use netcfg_service::{Service, Upload};
use tokio::sync::mpsc;

use crate::{dispatch::UPLOAD_BODY_LIMIT, error_code::ErrorCode, reply::ApiError};

/// The field that carries the file.
pub(crate) const FILE_FIELD: &str = "net_file";
/// The field that may name the configuration.
pub(crate) const NAME_FIELD: &str = "name";
/// The longest text field read, in bytes.
const TEXT_LIMIT: usize = 1024;
/// How many chunks may wait for the disk.
const CHUNKS_IN_FLIGHT: usize = 4;

/// What the form held: the file, written aside, and the names it gave.
#[derive(Debug)]
pub(crate) struct ReceivedUpload {
    /// The file, written in full.
    pub(crate) upload: Upload,
    /// The `name` field, if given and not empty.
    pub(crate) name: Option<String>,
    /// The file's own name, as the form gave it.
    pub(crate) file_name: Option<String>,
}

fn malformed(message: impl std::fmt::Display) -> ApiError {
    ApiError::problem(
        ErrorCode::InvalidUpload,
        "",
        format!("the multipart form is malformed: {message}"),
    )
}

fn too_large() -> ApiError {
    ApiError::new(
        ErrorCode::BodyTooLarge,
        format!("the body is larger than the limit of {UPLOAD_BODY_LIMIT} bytes"),
    )
}

/// The next field of the form, if any.
async fn next_field(form: &mut Multipart) -> Result<Option<Field>, ApiError> {
    poll_fn(|context| Pin::new(&mut *form).poll_next(context))
        .await
        .transpose()
        .map_err(malformed)
}

/// The next chunk of a field, if any.
async fn next_chunk(field: &mut Field) -> Result<Option<web::Bytes>, ApiError> {
    poll_fn(|context| Pin::new(&mut *field).poll_next(context))
        .await
        .transpose()
        .map_err(malformed)
}

/// Reads the form of `payload`: the file field into a new upload of
/// `store`, the name field into memory (at most 1 KiB); other fields are
/// read and dropped. The whole body may hold at most the upload limit.
pub(crate) async fn receive(
    service: &Service,
    headers: &actix_web::http::header::HeaderMap,
    payload: web::Payload,
) -> Result<ReceivedUpload, ApiError> {
    let mut form = Multipart::new(headers, payload);
    let mut received: Option<(Upload, Option<String>)> = None;
    let mut name = None;
    let mut total = 0usize;
    while let Some(mut field) = next_field(&mut form).await? {
        let disposition = field.content_disposition().cloned();
        let field_name = disposition
            .as_ref()
            .and_then(|disposition| disposition.get_name())
            .unwrap_or("")
            .to_owned();
        let file_name = disposition
            .as_ref()
            .and_then(|disposition| disposition.get_filename())
            .map(str::to_owned);
        if field_name == FILE_FIELD && received.is_none() {
            let upload = write_file(service, &mut field, &mut total).await?;
            received = Some((upload, file_name));
            continue;
        }
        let mut text = Vec::new();
        while let Some(chunk) = next_chunk(&mut field).await? {
            total += chunk.len();
            if total > UPLOAD_BODY_LIMIT {
                return Err(too_large());
            }
            if text.len() + chunk.len() <= TEXT_LIMIT {
                text.extend_from_slice(&chunk);
            }
        }
        if field_name == NAME_FIELD && file_name.is_none() {
            let value = String::from_utf8(text).map_err(|_| {
                ApiError::problem(
                    ErrorCode::InvalidUpload,
                    NAME_FIELD,
                    "the name is not UTF-8",
                )
            })?;
            let value = value.trim();
            if !value.is_empty() {
                name = Some(value.to_owned());
            }
        }
    }
    let (upload, file_name) = received.ok_or_else(|| {
        ApiError::problem(
            ErrorCode::InvalidUpload,
            FILE_FIELD,
            "the form has no file field net_file",
        )
    })?;
    Ok(ReceivedUpload {
        upload,
        name,
        file_name,
    })
}

/// Streams the file field into a new upload, written on the blocking pool.
async fn write_file(
    service: &Service,
    field: &mut Field,
    total: &mut usize,
) -> Result<Upload, ApiError> {
    let (chunks, queue) = mpsc::channel::<web::Bytes>(CHUNKS_IN_FLIGHT);
    let writer = service.receive_upload(queue);
    let mut reading = Ok(());
    while let Some(chunk) = next_chunk(field).await.transpose() {
        let chunk = match chunk {
            Ok(chunk) => chunk,
            Err(error) => {
                reading = Err(error);
                break;
            }
        };
        *total += chunk.len();
        if *total > UPLOAD_BODY_LIMIT {
            reading = Err(too_large());
            break;
        }
        // The writer stopped (a write failed): its error says why.
        if chunks.send(chunk).await.is_err() {
            break;
        }
    }
    drop(chunks);
    let written = writer.await.map_err(ApiError::from);
    // A refusal of the request comes first; the partial file is dropped.
    reading?;
    written
}
