//! Finding the route table's pattern a request's path matches.
//!
//! actix tries its resources one after the other, each with its own regular
//! expression, and the request metrics matched the path once more to name
//! its pattern: a PATCH of a device tried some 45 expressions before its
//! own, twice, a fifth of what a worker spent on the request. Here the
//! patterns are grouped by their number of segments (a parameter never
//! spans a `/`), and within a group only a pattern whose static segments
//! equal the path's is matched: segment by segment when each parameter is
//! a whole segment, otherwise by actix's own [`ResourceDef`]; either fills
//! the request's match info as a resource of its own would. The order is
//! that of [`crate::dispatch::patterns`] (static segments first).

use actix_web::{
    FromRequest, HttpMessage, HttpRequest, HttpResponse,
    dev::{ResourceDef, ServiceRequest, ServiceResponse},
    error::ErrorInternalServerError,
    web,
};

use crate::{
    dispatch::{self, request_version},
    state::AppState,
    tables::Tables,
    version::ApiVersion,
};

/// The pattern a request matched, kept in its extensions (for the metrics).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Matched(pub(crate) &'static str);

/// One segment of a pattern, as far as the quick comparison goes.
#[derive(Debug, PartialEq)]
enum Segment {
    Static(&'static str),
    /// A parameter, alone or beside text (the text between parameters
    /// given): left to the [`ResourceDef`], and matched by it only when
    /// the path's segment holds each of these texts.
    Dynamic(Vec<&'static str>),
}

impl Segment {
    fn of(segment: &'static str) -> Self {
        if !segment.contains('{') {
            return Self::Static(segment);
        }
        // "{device_key}-{interface_identifier}": the texts are at the even
        // places between braces. A parameter with its own expression
        // (`{name:regex}`) may hold braces: no texts are known then.
        if segment.contains(':') {
            return Self::Dynamic(Vec::new());
        }
        let texts = segment
            .split(['{', '}'])
            .step_by(2)
            .filter(|text| !text.is_empty())
            .collect();
        Self::Dynamic(texts)
    }
}

#[derive(Debug)]
struct Candidate {
    pattern: &'static str,
    segments: Vec<Segment>,
    /// When every parameter is a whole segment (`{name}`): each one's
    /// place among the segments and its name. Such a pattern is matched
    /// here, segment by segment; one with text beside a parameter is left
    /// to the [`ResourceDef`]'s regular expression (which took a tenth of a
    /// worker's time on a device PATCH).
    whole_parameters: Option<Vec<(usize, &'static str)>>,
    definition: ResourceDef,
    /// Where patterns of one shape differ by version (their parameters'
    /// names), the versions that use this one.
    versions: Option<Vec<ApiVersion>>,
}

impl Candidate {
    /// Fills `request`'s match info from its path, which this pattern's
    /// static segments matched; false when the path does not fit.
    fn capture(&self, request: &mut ServiceRequest) -> bool {
        match &self.whole_parameters {
            Some(parameters) => capture_whole_segments(request, parameters),
            None => self.definition.capture_match_info(request),
        }
    }

    /// Whether a path of these `segments` may match: they equal the static
    /// ones and hold the texts of the others (a device's
    /// `{device_key}-{interface}` is not tried, with its expression, on a
    /// serial number).
    fn statics_match(&self, segments: &[&str]) -> bool {
        segments
            .iter()
            .zip(&self.segments)
            .all(|(given, segment)| match segment {
                Segment::Static(text) => given == text,
                Segment::Dynamic(texts) => texts.iter().all(|text| given.contains(text)),
            })
    }
}

/// Fills `request`'s match info for a pattern whose parameters are whole
/// segments (at `parameters`' places), as its [`ResourceDef`] would: a
/// parameter takes a segment of at least one character, and the path is
/// consumed.
fn capture_whole_segments(
    request: &mut ServiceRequest,
    parameters: &[(usize, &'static str)],
) -> bool {
    let path = request.match_info().unprocessed();
    let Ok(length) = u16::try_from(path.len()) else {
        return false;
    };
    let segments: Vec<&str> = path.split('/').collect();
    if parameters
        .iter()
        .any(|(place, _)| segments.get(*place).is_none_or(|given| given.is_empty()))
    {
        return false;
    }
    let values: Vec<(&'static str, String)> = parameters
        .iter()
        .map(|(place, name)| (*name, segments[*place].to_owned()))
        .collect();
    let info = request.match_info_mut();
    for (name, value) in values {
        info.add_static(name, value);
    }
    info.skip(length);
    true
}

/// The API's patterns, ready to match requests.
#[derive(Debug)]
pub(crate) struct Router {
    /// Indexed by the number of `/`-separated segments (the leading empty
    /// one included).
    by_length: Vec<Vec<Candidate>>,
}

impl Router {
    /// `patterns` in the order they must be tried.
    pub(crate) fn new(patterns: &[&'static str], tables: &Tables) -> Self {
        let mut by_length: Vec<Vec<Candidate>> = Vec::new();
        for &pattern in patterns {
            let segments: Vec<Segment> = pattern.split('/').map(Segment::of).collect();
            let twins = patterns
                .iter()
                .filter(|other| dispatch::shape(other) == dispatch::shape(pattern))
                .count();
            let versions = (twins > 1).then(|| {
                ApiVersion::ALL
                    .into_iter()
                    .filter(|version| {
                        tables
                            .table(*version)
                            .routes
                            .iter()
                            .any(|route| route.paths.contains(&pattern))
                    })
                    .collect()
            });
            let whole_parameters = pattern
                .split('/')
                .enumerate()
                .filter(|(_, segment)| segment.contains('{'))
                .map(|(place, segment)| {
                    let name = segment.strip_prefix('{')?.strip_suffix('}')?;
                    let plain = !name.is_empty() && !name.contains(['{', '}', ':']);
                    plain.then_some((place, name))
                })
                .collect::<Option<Vec<_>>>();
            let length = segments.len();
            if by_length.len() <= length {
                by_length.resize_with(length + 1, Vec::new);
            }
            by_length[length].push(Candidate {
                pattern,
                segments,
                whole_parameters,
                definition: ResourceDef::new(pattern),
                versions,
            });
        }
        Self { by_length }
    }

    /// The pattern `request` matches for `version`, its parameters put in
    /// the request's match info.
    fn find(&self, request: &mut ServiceRequest, version: ApiVersion) -> Option<&'static str> {
        // The candidates whose static segments fit, the path split once.
        let fitting: Vec<&Candidate> = {
            let segments: Vec<&str> = request.match_info().unprocessed().split('/').collect();
            self.by_length
                .get(segments.len())?
                .iter()
                .filter(|candidate| {
                    candidate.statics_match(&segments)
                        && candidate
                            .versions
                            .as_ref()
                            .is_none_or(|versions| versions.contains(&version))
                })
                .collect()
        };
        fitting
            .into_iter()
            .find(|candidate| candidate.capture(request))
            .map(|candidate| candidate.pattern)
    }
}

/// The application's default service: a request no other service took goes
/// to its route's handler, or is answered as an unknown route.
pub(crate) async fn serve(
    router: &Router,
    mut request: ServiceRequest,
) -> Result<ServiceResponse, actix_web::Error> {
    let (Some(state), Some(tables)) = (
        request.app_data::<web::Data<AppState>>().cloned(),
        request.app_data::<web::Data<Tables>>().cloned(),
    ) else {
        return Err(ErrorInternalServerError(
            "the application has no state or route tables",
        ));
    };
    let version = request_version(request.request(), &state);
    let found = router.find(&mut request, version);
    let (request, mut payload) = request.into_parts();
    let response: HttpResponse = match found {
        Some(pattern) => {
            request.extensions_mut().insert(Matched(pattern));
            let payload = web::Payload::from_request(&request, &mut payload).await?;
            logged_if_slow(
                &request,
                dispatch::dispatch(request.clone(), payload, state, tables, pattern),
            )
            .await
        }
        None => dispatch::unknown_route(request.clone(), state).await,
    };
    Ok(ServiceResponse::new(request, response))
}

/// How long a request may go unanswered before the log says so. No
/// operation takes this long but a large upload or download on a slow
/// link; a request that waits longer is most likely stuck, and the line is
/// what tells which one (a hang seen in CI left only time-outs to read).
const SLOW_AFTER: std::time::Duration = std::time::Duration::from_secs(10);

/// Awaits `answer`, logging a warning when it is not ready after
/// [`SLOW_AFTER`] and again when it comes.
async fn logged_if_slow<T>(request: &HttpRequest, answer: impl Future<Output = T>) -> T {
    let (method, path) = (request.method(), request.path());
    let late = |waited| log::warn!("{method} {path} unanswered after {waited:?}");
    let (answered, waited) = awaited_noting_delay(answer, SLOW_AFTER, late).await;
    if let Some(waited) = waited {
        log::warn!("{method} {path} answered after {waited:?}");
    }
    answered
}

/// Awaits `answer`; when it is not ready after `after`, calls `late` and
/// goes on waiting. Gives the answer and, when it was late, how long it took.
async fn awaited_noting_delay<T>(
    answer: impl Future<Output = T>,
    after: std::time::Duration,
    late: impl FnOnce(std::time::Duration),
) -> (T, Option<std::time::Duration>) {
    use futures_util::future::{Either, select};
    let started = std::time::Instant::now();
    let answer = std::pin::pin!(answer);
    let waited = std::pin::pin!(actix_web::rt::time::sleep(after));
    match select(answer, waited).await {
        Either::Left((answered, _)) => (answered, None),
        Either::Right(((), answer)) => {
            late(after);
            let answered = answer.await;
            (answered, Some(started.elapsed()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[actix_web::test]
    async fn an_answer_later_than_the_limit_is_noted_once_and_a_prompt_one_not_at_all() {
        use std::{cell::Cell, time::Duration};
        let noted = Cell::new(0);
        let slow = async {
            actix_web::rt::time::sleep(Duration::from_millis(60)).await;
            7
        };
        let (answer, took) = awaited_noting_delay(slow, Duration::from_millis(10), |_| {
            noted.set(noted.get() + 1)
        })
        .await;
        assert_eq!((answer, noted.get()), (7, 1));
        assert!(
            took.is_some_and(|took| took >= Duration::from_millis(60)),
            "{took:?}"
        );

        let (answer, took) =
            awaited_noting_delay(async { 8 }, Duration::from_millis(10), |_| noted.set(99)).await;
        assert_eq!((answer, took, noted.get()), (8, None, 1));
    }

    fn router(patterns: &[&'static str]) -> Router {
        Router::new(patterns, &Tables::standard())
    }

    fn find(router: &Router, path: &str) -> Option<(&'static str, Vec<(String, String)>)> {
        let mut request = actix_web::test::TestRequest::with_uri(path).to_srv_request();
        let pattern = router.find(&mut request, ApiVersion::V5_1)?;
        let parameters = request
            .match_info()
            .iter()
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
            .collect();
        Some((pattern, parameters))
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect()
    }

    #[test]
    fn a_path_matches_its_pattern_with_its_parameters() {
        let mut patterns = vec![
            "/nets",
            "/nets/{net_name}",
            "/nets/upload",
            "/nets/{net_name}/devices/{device_key}",
            "/nets/{net_name}/devices/{device_key}-{interface_identifier}",
            "/nets/{net_name}/devices/action",
        ];
        patterns.sort_by_key(|pattern| dispatch::specificity(pattern));
        let router = router(&patterns);
        assert_eq!(find(&router, "/nets"), Some(("/nets", vec![])));
        assert_eq!(
            find(&router, "/nets/upload"),
            Some(("/nets/upload", vec![]))
        );
        assert_eq!(
            find(&router, "/nets/lab"),
            Some(("/nets/{net_name}", pairs(&[("net_name", "lab")])))
        );
        assert_eq!(
            find(&router, "/nets/lab/devices/action"),
            Some((
                "/nets/{net_name}/devices/action",
                pairs(&[("net_name", "lab")])
            ))
        );
        assert_eq!(
            find(&router, "/nets/lab/devices/01:05:0001"),
            Some((
                "/nets/{net_name}/devices/{device_key}",
                pairs(&[("net_name", "lab"), ("device_key", "01:05:0001")])
            ))
        );
        // As actix's expression reads it: the last `-` splits the segment.
        assert_eq!(
            find(&router, "/nets/lab/devices/01:05:0001-2"),
            Some((
                "/nets/{net_name}/devices/{device_key}-{interface_identifier}",
                pairs(&[
                    ("net_name", "lab"),
                    ("device_key", "01:05:0001"),
                    ("interface_identifier", "2")
                ])
            ))
        );
    }

    #[test]
    fn a_segment_with_parameters_knows_the_texts_between_them() {
        assert_eq!(Segment::of("devices"), Segment::Static("devices"));
        assert_eq!(Segment::of("{device_key}"), Segment::Dynamic(vec![]));
        assert_eq!(
            Segment::of("{device_key}-{interface_identifier}"),
            Segment::Dynamic(vec!["-"])
        );
        assert_eq!(
            Segment::of("{_type}_interfaces"),
            Segment::Dynamic(vec!["_interfaces"])
        );
        assert_eq!(Segment::of("{path:.*}"), Segment::Dynamic(vec![]));
        let router = router(&["/nets/{net_name}/devices/{device_key}-{interface_identifier}"]);
        let candidate = &router.by_length[5][0];
        let segments = |path: &'static str| path.split('/').collect::<Vec<_>>();
        assert!(candidate.statics_match(&segments("/nets/lab/devices/01:05:0001-2")));
        assert!(!candidate.statics_match(&segments("/nets/lab/devices/01:05:0001")));
    }

    #[test]
    fn a_path_of_no_pattern_matches_none() {
        let router = router(&["/nets", "/nets/{net_name}"]);
        for path in [
            "/",
            "/nets/",
            "/nets//",
            "/other",
            "/nets/lab/devices",
            "/netsx",
        ] {
            assert_eq!(find(&router, path), None, "{path}");
        }
    }

    /// A pattern of whole-segment parameters, matched without actix's
    /// expression, takes the same paths and the same values as the
    /// expression does.
    #[test]
    fn whole_segment_parameters_are_captured_as_actix_captures_them() {
        let pattern = "/nets/{net_name}/devices/{device_key}";
        let router = router(&[pattern]);
        assert!(router.by_length[5][0].whole_parameters.is_some());
        for path in [
            "/nets/lab/devices/01:05:0001",
            "/nets/l%20ab/devices/01%3A05%3A0001",
            "/nets/a-b/devices/c.d",
            "/nets/%C3%BC/devices/%E2%82%AC",
            "/nets/lab/devices/",
            "/nets//devices/x",
            "/nets/lab/devices/x/",
            "/nets/lab/device/x",
            "/nets/lab/devices/x?y=1",
        ] {
            let mut probe = actix_web::test::TestRequest::with_uri(path).to_srv_request();
            let expected = ResourceDef::new(pattern)
                .capture_match_info(&mut probe)
                .then(|| {
                    let parameters = probe
                        .match_info()
                        .iter()
                        .map(|(name, value)| (name.to_owned(), value.to_owned()))
                        .collect();
                    (pattern, parameters)
                });
            assert_eq!(find(&router, path), expected, "{path}");
            // What is left of the path after the match, as actix leaves it.
            let mut request = actix_web::test::TestRequest::with_uri(path).to_srv_request();
            router.find(&mut request, ApiVersion::V5_1);
            assert_eq!(
                request.match_info().unprocessed(),
                probe.match_info().unprocessed(),
                "{path}"
            );
        }
    }

    /// Every pattern of both tables is found by a path made from it, as
    /// actix's own resources found it.
    #[test]
    fn every_pattern_of_the_tables_is_found() {
        let tables = Tables::standard();
        let patterns = dispatch::patterns(&tables);
        let router = Router::new(&patterns, &tables);
        for pattern in &patterns {
            let path: String = pattern
                .split('/')
                .map(|segment| {
                    if segment.contains('{') {
                        segment
                            .split(['{', '}'])
                            .enumerate()
                            .map(|(index, part)| if index % 2 == 1 { "x1" } else { part })
                            .collect::<String>()
                    } else {
                        segment.to_owned()
                    }
                })
                .collect::<Vec<_>>()
                .join("/");
            let mut request = actix_web::test::TestRequest::with_uri(&path).to_srv_request();
            let version = ApiVersion::ALL
                .into_iter()
                .find(|version| {
                    tables
                        .table(*version)
                        .routes
                        .iter()
                        .any(|route| route.paths.contains(pattern))
                })
                .unwrap_or(ApiVersion::V5_1);
            let found = router.find(&mut request, version);
            let expected = patterns
                .iter()
                .find(|other| {
                    let mut probe = actix_web::test::TestRequest::with_uri(&path).to_srv_request();
                    ResourceDef::new(**other).capture_match_info(&mut probe)
                        && router.by_length.iter().flatten().any(|candidate| {
                            candidate.pattern == **other
                                && candidate
                                    .versions
                                    .as_ref()
                                    .is_none_or(|versions| versions.contains(&version))
                        })
                })
                .copied();
            assert_eq!(found, expected, "{path} (made from {pattern})");
        }
    }
}
