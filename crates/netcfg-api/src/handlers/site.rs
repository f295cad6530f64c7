//! How well a site locates (decisions §12): 5.1 only.

use netcfg_model::{SerialNumber, locate::CoverageRequest};

use super::count;
use crate::{
    context::Ctx,
    error_code::ErrorCode,
    path::NetPath,
    payload::keys,
    reply::{ApiError, FieldProblem, Reply},
};

pub(crate) async fn accuracy(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let accuracy = context.service().accuracy(&path.net_name).await?;
    Reply::ok(count(accuracy.len(), "tag")).with::<keys::Accuracy>(&accuracy)
}

pub(crate) async fn positions(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let serial = match context.query("serial_number") {
        None => None,
        Some(text) => Some(text.trim().parse::<SerialNumber>().map_err(|_| {
            ApiError::parameters(vec![FieldProblem {
                field: "serial_number".to_owned(),
                problem: format!("`{text}` is not a serial number (XX:XX:XXXX)"),
            }])
        })?),
    };
    let positions = context.service().positions(&path.net_name, serial).await?;
    Reply::ok(count(positions.len(), "located tag")).with::<keys::Positions>(&positions)
}

/// Declares a number query parameter of the coverage with its range.
macro_rules! coverage_parameter {
    ($name:ident, $schema:tt) => {
        /// A number query parameter of the coverage, with its range.
        pub(crate) struct $name;

        impl schemars::JsonSchema for $name {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!($schema)
            }
        }
    };
}

coverage_parameter!(CoverageHeight, {"type": "number", "minimum": -1_000_000, "maximum": 1_000_000});
coverage_parameter!(CoverageResolution, {"type": "number", "minimum": 50, "maximum": 10_000});
coverage_parameter!(CoverageNoise, {"type": "number", "exclusiveMinimum": 0, "maximum": 10_000});
coverage_parameter!(CoverageRange, {"type": "number", "exclusiveMinimum": 0, "maximum": 1_000_000});

/// `?z=&resolution_mm=&toa_noise_mm=&range_mm=`: each a number; the
/// ranges of the last three are the model's to check.
fn coverage_request(context: &Ctx) -> Result<CoverageRequest, ApiError> {
    let mut request = CoverageRequest::default();
    let mut problems = Vec::new();
    for (name, slot) in [
        ("z", &mut request.z_mm),
        ("resolution_mm", &mut request.resolution_mm),
        ("toa_noise_mm", &mut request.toa_noise_mm),
        ("range_mm", &mut request.range_mm),
    ] {
        if let Some(text) = context.query(name) {
            match text.trim().parse::<f64>() {
                // The model checks the others' ranges; a height is any
                // within a kilometre.
                Ok(value) if name == "z" && value.abs() > 1_000_000.0 => {
                    problems.push(FieldProblem {
                        field: name.to_owned(),
                        problem: format!("{text} is out of range (-1000000 to 1000000 mm)"),
                    });
                }
                Ok(value) if value.is_finite() => *slot = value,
                _ => problems.push(FieldProblem {
                    field: name.to_owned(),
                    problem: format!("`{text}` is not a number"),
                }),
            }
        }
    }
    if problems.is_empty() {
        Ok(request)
    } else {
        Err(ApiError::parameters(problems))
    }
}

pub(crate) async fn coverage(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let request = coverage_request(&context)?;
    let coverage = context.service().coverage(&path.net_name, request).await?;
    let message = format!(
        "Predicted 95% error over {} × {} cells of {} mm",
        coverage.columns, coverage.rows, coverage.resolution_mm
    );
    Reply::ok(message).with::<keys::Coverage>(&coverage)
}

pub(crate) async fn run_survey(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    let survey = context.service().survey(&path.net_name).await?;
    let bad = survey.bad_anchors().count();
    let message = format!(
        "Surveyed {}: {bad} bad",
        count(survey.anchors.len(), "anchor")
    );
    Reply::ok(message).with::<keys::Survey>(&survey)
}

pub(crate) async fn last_survey(context: Ctx, path: NetPath) -> Result<Reply, ApiError> {
    match context.service().last_survey(&path.net_name).await? {
        Some(survey) => Reply::ok("The last survey").with::<keys::Survey>(&survey),
        None => Err(ApiError::new(
            ErrorCode::SurveyNotFound,
            format!("configuration `{}` has no survey yet", path.net_name),
        )),
    }
}
