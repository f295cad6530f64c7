//! `GET /events` and `GET /nets/{net_name}/events`: live events as
//! Server-Sent Events (decisions §8). The stream subscribes first, then
//! reads what a resuming client missed from the store, so that nothing
//! falls between the two and nothing comes twice.

use crate::{
    context::Ctx,
    events::{
        EventStream, NotificationRecord, Scope,
        data::{EventKind, EventKinds, PositionForm},
    },
    path::{NetPath, NoPath},
    reply::{ApiError, FieldProblem, Reply},
};
use netcfg_model::ConfigName;
use netcfg_service::Resume;

/// The header a client resumes with (set by `EventSource` itself).
pub(crate) const LAST_EVENT_ID: &str = "Last-Event-ID";
/// The highest `max_rate`.
pub(crate) const MAX_RATE: u32 = 100;
/// The default `max_rate`.
pub(crate) const DEFAULT_RATE: u32 = 10;

/// Every configuration's events.
pub(crate) async fn all(context: Ctx, _: NoPath) -> Result<Reply, ApiError> {
    if context.limited_to_some_nets() {
        return Err(ApiError::new(
            crate::error_code::ErrorCode::Forbidden,
            "a user limited to some configurations streams each one's events: GET /nets/{net_name}/events",
        ));
    }
    open(context, None).await
}

/// One configuration's events.
pub(crate) async fn of_net(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    context.service().require_net(&path.net_name).await?;
    open(context, Some(path.net_name)).await
}

/// What the query and headers ask for; every problem at once.
#[derive(Debug)]
struct Request {
    kinds: EventKinds,
    max_rate: u32,
    form: PositionForm,
    resume: Option<Resume>,
}

fn read_request(context: &Ctx, net: Option<&ConfigName>) -> Result<Request, ApiError> {
    let mut problems = Vec::new();
    let mut problem = |field: &str, problem: String| {
        problems.push(FieldProblem {
            field: field.to_owned(),
            problem,
        });
    };
    let mut kinds = EventKinds::all();
    if let Some(types) = context.query("types") {
        kinds = EventKinds::none();
        for name in types.split(',').map(str::trim) {
            match EventKind::from_name(name) {
                Some(kind) => kinds = kinds.with(kind),
                None => problem(
                    "types",
                    format!(
                        "`{name}` is not an event; the events are {}",
                        EventKind::ALL.map(EventKind::as_str).join(", ")
                    ),
                ),
            }
        }
    }
    let mut max_rate = DEFAULT_RATE;
    if let Some(text) = context.query("max_rate") {
        match text.trim().parse::<u32>() {
            Ok(rate) if (1..=MAX_RATE).contains(&rate) => max_rate = rate,
            _ => problem(
                "max_rate",
                format!("`{text}` is not a whole number of batches a second from 1 to {MAX_RATE}"),
            ),
        }
    }
    let mut form = PositionForm::default();
    if let Some(text) = context.query("positions") {
        match PositionForm::from_name(text.trim()) {
            Some(named) => form = named,
            None => problem(
                "positions",
                format!(
                    "`{text}` is not a form of position batches; the forms are {}",
                    PositionForm::ALL.map(PositionForm::as_str).join(", ")
                ),
            ),
        }
    }
    let mut resume = None;
    if let Some(value) = context.request().headers().get(LAST_EVENT_ID) {
        match value
            .to_str()
            .ok()
            .and_then(|text| parse_resume(text.trim(), net))
        {
            Some(parsed) => resume = Some(parsed),
            None => problem(
                LAST_EVENT_ID,
                match net {
                    Some(_) => "expected a notification's identifier".to_owned(),
                    None => "expected `{net}:{identifier}`, a notification's `id:` on this stream"
                        .to_owned(),
                },
            ),
        }
    }
    if problems.is_empty() {
        return Ok(Request {
            kinds,
            max_rate,
            form,
            resume,
        });
    }
    Err(ApiError::parameters(problems))
}

/// `17` on a configuration's stream; `site:17` on every configuration's.
fn parse_resume(text: &str, net: Option<&ConfigName>) -> Option<Resume> {
    match net {
        Some(net) => Some(Resume {
            net: net.clone(),
            identifier: text.parse().ok()?,
        }),
        None => {
            let (name, identifier) = text.rsplit_once(':')?;
            Some(Resume {
                net: name.parse().ok()?,
                identifier: identifier.parse().ok()?,
            })
        }
    }
}

async fn open(context: Ctx, net: Option<ConfigName>) -> Result<Reply, ApiError> {
    let request = read_request(&context, net.as_ref())?;
    let scope = match net {
        Some(_) => Scope::Net,
        None => Scope::All,
    };
    let hub = context.state().events().clone();
    let subscription = hub.subscribe(net.clone(), request.kinds, request.form);
    let mut stream = EventStream::new(hub, subscription, scope, request.max_rate);
    if let Some(resume) = request.resume
        && request.kinds.contains(EventKind::Notification)
    {
        let missed = context
            .service()
            .missed_notifications(resume, scope == Scope::All)
            .await?;
        stream.replay(
            missed
                .iter()
                .flat_map(|(net, notifications)| {
                    notifications
                        .iter()
                        .map(|notification| NotificationRecord::new(net, notification))
                })
                .collect(),
        );
    }
    Ok(Reply::events(stream))
}
