use netcfg_model_derive::request_body;

use crate::{
    names::RecordingName,
    recording::{MAX_RECORDING_S, ReplayControl, ReplaySpeed},
    validation::{Problems, join},
};

/// `recording_post_body`: starts a recording (decisions §15).
#[request_body(check = check_duration)]
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct RecordingPostBody {
    /// Its name, unique within the configuration; the start's UTC time
    /// (`2026-11-26T10-43-00Z`) when absent.
    pub name: Option<RecordingName>,
    /// How long it records, 1 to 604,800 seconds; until stopped (or a
    /// limit) when absent.
    #[schemars(range(min = 1, max = 604_800))]
    pub duration_s: Option<u32>,
}

fn check_duration(body: &RecordingPostBody, path: &str, problems: &mut Problems) {
    if let Some(seconds) = body.duration_s
        && !(1..=MAX_RECORDING_S).contains(&seconds)
    {
        problems.push(
            join(path, "duration_s"),
            format!("a recording lasts 1 to {MAX_RECORDING_S} seconds"),
        );
    }
}

/// `replay_patch_body`: pauses, resumes, changes the speed of, loops or
/// moves a running replay; at least one field.
#[request_body(at_least_one)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct ReplayPatchBody {
    /// Pauses (true) or resumes (false).
    pub paused: Option<bool>,
    /// A new speed, 0.1 to 50.
    pub speed: Option<ReplaySpeed>,
    /// Jumps to this point, milliseconds from the recording's start (past
    /// its end: to its end).
    pub position_ms: Option<u64>,
    /// Whether it starts again at its end.
    #[serde(rename = "loop")]
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::FromJson;

    #[test]
    fn a_recording_body_names_its_problems() {
        let problems =
            RecordingPostBody::from_json(&json!({"name": "a/b", "duration_s": 0})).unwrap_err();
        assert_eq!(problems.paths(), ["name", "duration_s"]);
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
        assert_eq!(problems.paths(), ["speed", "looping"]);
    }
}
