use netcfg_model_derive::request_body;

use crate::{
    misc::GroupImage,
    network_mode::NetworkMode,
    validation::{Problems, join},
};

fn image_path_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string", "minLength": 1, "maxLength": 1024,
        "pattern": "^[^\\x00-\\x1f\\x7f-\\x9f]+$",
        "description": "The path of the image bundle on the host."
    })
}

/// `group_image_patch_body`: sets the group image; at least one field.
#[request_body(at_least_one, check = check_group_image)]
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct GroupImagePatchBody {
    /// The path of the image bundle on the host: 1 to 1024 characters, no
    /// control characters.
    #[schemars(schema_with = "image_path_schema")]
    pub path: Option<String>,
}

impl GroupImagePatchBody {
    /// Writes the given fields into `image`.
    pub fn apply(&self, image: &mut GroupImage) {
        if let Some(path) = &self.path {
            image.path = Some(path.clone());
        }
    }
}

fn check_group_image(body: &GroupImagePatchBody, path: &str, problems: &mut Problems) {
    if let Some(image_path) = &body.path
        && (image_path.is_empty()
            || image_path.chars().count() > 1024
            || image_path.chars().any(char::is_control))
    {
        problems.push(
            join(path, "path"),
            "a path has 1 to 1024 characters and no control characters",
        );
    }
}

/// `magnetometer_calibration_body`: three signed 16-bit offsets.
#[request_body]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct MagnetometerCalibrationBody {
    /// Offset on the x axis, -32768 to 32767.
    pub x_offset: i16,
    /// Offset on the y axis, -32768 to 32767.
    pub y_offset: i16,
    /// Offset on the z axis, -32768 to 32767.
    pub z_offset: i16,
}

/// `notification_patch_body`: marks notifications read or unread.
#[request_body]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct NotificationPatchBody {
    /// The new read flag.
    pub read: bool,
}

/// `operating_mode_patch_body`: changes the network mode; at least one field.
#[request_body(at_least_one)]
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct OperatingModePatchBody {
    /// The new mode: multitime or multirange.
    pub network_mode: Option<NetworkMode>,
}
