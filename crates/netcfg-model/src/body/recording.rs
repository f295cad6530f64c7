use super::plain_body;
use crate::{
    json::{Fields, FromJson, deserialize_via_from_json},
    names::RecordingName,
    recording::{MAX_RECORDING_S, ReplayControl, ReplaySpeed},
    validation::Problems,
};

/// `recording_post_body`: starts a recording (decisions §15).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordingPostBody {
    /// Its name, unique within the configuration; the start's UTC time
    /// (`2026-11-26T10-43-00Z`) when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "RecordingName")]
    pub name: Option<RecordingName>,
    /// How long it records, 1 to 604,800 seconds; until stopped (or a
    /// limit) when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32", range(min = 1, max = 604_800))]
    pub duration_s: Option<u32>,
}

fn check_duration(body: &RecordingPostBody, path: &str, problems: &mut Problems) {
    if let Some(seconds) = body.duration_s
        && !(1..=MAX_RECORDING_S).contains(&seconds)
    {
        let field = if path.is_empty() {
            "duration_s".to_owned()
        } else {
            format!("{path}.duration_s")
        };
        problems.push(
            &field,
            format!("a recording lasts 1 to {MAX_RECORDING_S} seconds"),
        );
    }
}

plain_body!(RecordingPostBody {
    optional name, optional duration_s,
} at_least_one: false, check: check_duration);

/// `replay_patch_body`: pauses, resumes, changes the speed of, loops or
/// moves a running replay; at least one field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(extend("minProperties" = 1))]
pub struct ReplayPatchBody {
    /// Pauses (true) or resumes (false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub paused: Option<bool>,
    /// A new speed, 0.1 to 50.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "ReplaySpeed")]
    pub speed: Option<ReplaySpeed>,
    /// Jumps to this point, milliseconds from the recording's start (past
    /// its end: to its end).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub position_ms: Option<u64>,
    /// Whether it starts again at its end.
    #[serde(default, rename = "loop", skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub looping: Option<bool>,
}

impl ReplayPatchBody {
    /// What the body asks of the replay.
    pub fn control(self) -> ReplayControl {
        ReplayControl {
            paused: self.paused,
            speed: self.speed,
            position_ms: self.position_ms,
            looping: self.looping,
        }
    }
}

impl FromJson for ReplayPatchBody {
    fn from_json_at(
        value: &serde_json::Value,
        path: &str,
        problems: &mut Problems,
    ) -> Option<Self> {
        let mut fields = Fields::open(value, path, problems)?;
        let paused = fields.optional("paused", problems);
        let speed = fields.optional("speed", problems);
        let position_ms = fields.optional("position_ms", problems);
        let looping = fields.optional("loop", problems);
        if fields.present_count() == 0 {
            problems.push(
                path,
                "at least one field must be given: paused, speed, position_ms, loop",
            );
        }
        let clean = fields.finish(problems);
        let body = Self {
            paused,
            speed,
            position_ms,
            looping,
        };
        (clean && body != Self::default()).then_some(body)
    }
}

deserialize_via_from_json!(ReplayPatchBody);

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_recording_body_names_its_problems() {
        let problems =
            RecordingPostBody::from_json(&json!({"name": "a/b", "duration_s": 0})).unwrap_err();
        let fields: Vec<&str> = problems
            .as_slice()
            .iter()
            .map(|p| p.path.as_str())
            .collect();
        assert_eq!(fields, ["name", "duration_s"]);
        let problems = RecordingPostBody::from_json(&json!({"duration_s": 0})).unwrap_err();
        assert_eq!(problems.as_slice()[0].path, "duration_s");
        assert_eq!(
            RecordingPostBody::from_json(&json!({})).unwrap(),
            RecordingPostBody::default()
        );
    }

    #[test]
    fn a_replay_patch_reads_loop_and_speed() {
        let body = ReplayPatchBody::from_json(&json!({"loop": true, "speed": 2.5})).unwrap();
        assert_eq!(body.looping, Some(true));
        assert_eq!(body.speed.unwrap().factor(), 2.5);
        assert!(ReplayPatchBody::from_json(&json!({})).is_err());
        let problems = ReplayPatchBody::from_json(&json!({"speed": 99, "looping": 1})).unwrap_err();
        let fields: Vec<&str> = problems
            .as_slice()
            .iter()
            .map(|p| p.path.as_str())
            .collect();
        assert_eq!(fields, ["speed", "looping"]);
    }
}
