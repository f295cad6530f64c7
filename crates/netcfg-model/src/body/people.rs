//! The bodies of people (decisions §17): users, their API keys, sign-in.

use netcfg_model_derive::request_body;

use crate::{
    ConfigName, KeyName, UserName,
    people::{AccessRole, Password},
    validation::{Problems, join},
};

/// The longest display name, in characters.
const MAX_DISPLAY_NAME: usize = 128;

/// `user_post_body`: adds a user.
#[request_body(check = check_post)]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct UserPostBody {
    /// 1 to 64 characters of `a-z 0-9 . _ -`, starting with a letter or digit.
    pub name: UserName,
    /// How it is shown (at most 128 characters); empty by default.
    pub display_name: Option<String>,
    /// What it may do.
    pub role: AccessRole,
    /// The only configurations it sees, each an existing one; all when not given.
    #[schemars(length(max = 1000))]
    pub nets: Option<Vec<ConfigName>>,
    /// A disabled user cannot sign in; false by default.
    pub disabled: Option<bool>,
    /// At least 12 characters; write-only.
    pub password: Password,
}

/// `user_patch_body`: changes a user. A user changes its own
/// `display_name` and `password` (with `current_password`); the rest is
/// an admin's.
#[request_body(at_least_one, check = check_patch)]
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct UserPatchBody {
    /// How it is shown (at most 128 characters).
    pub display_name: Option<String>,
    /// What it may do.
    pub role: Option<AccessRole>,
    /// The only configurations it sees; `null`: all.
    #[schemars(length(max = 1000))]
    pub nets: Option<Option<Vec<ConfigName>>>,
    /// A disabled user cannot sign in, and its sessions and keys stop working.
    pub disabled: Option<bool>,
    /// A new password, at least 12 characters; write-only.
    pub password: Option<Password>,
    /// The present password: required when a user changes its own.
    pub current_password: Option<String>,
}

/// `api_key_post_body`: makes an API key.
#[request_body]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct ApiKeyPostBody {
    /// Unique among the user's keys.
    pub name: KeyName,
    /// The most it may do: at most its user's role.
    pub role: AccessRole,
    /// When it stops working, ms since 1970, in the future; never when not given.
    pub expires_ms: Option<i64>,
}

/// `session_post_body`: signs in with a name and password.
#[request_body]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct SessionPostBody {
    /// The user's name.
    #[schemars(length(min = 1, max = 64))]
    pub name: String,
    /// Its password.
    #[schemars(length(min = 1, max = 1024))]
    pub password: String,
}

/// `oidc_callback_body`: finishes a single sign-on with what the provider
/// sent the browser back with (the query of the front end's page).
#[request_body(check = check_callback)]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct OidcCallbackBody {
    /// The authorization code (`code`).
    #[schemars(length(min = 1, max = 4096))]
    pub code: String,
    /// The `state` that `POST /session/oidc` put in its URL.
    #[schemars(length(min = 1, max = 512))]
    pub state: String,
}

fn check_display_name(name: Option<&String>, path: &str, problems: &mut Problems) {
    let Some(name) = name else { return };
    if name.chars().count() > MAX_DISPLAY_NAME {
        problems.push(
            join(path, "display_name"),
            "a display name has at most 128 characters",
        );
    }
    if name.chars().any(char::is_control) {
        problems.push(
            join(path, "display_name"),
            "a display name must not hold control characters",
        );
    }
}

fn check_nets(nets: Option<&Vec<ConfigName>>, path: &str, problems: &mut Problems) {
    let Some(nets) = nets else { return };
    for (index, net) in nets.iter().enumerate() {
        if nets[..index].contains(net) {
            problems.push(
                join(path, &format!("nets[{index}]")),
                format!("configuration {net} is listed twice"),
            );
        }
    }
}

fn check_callback(body: &OidcCallbackBody, path: &str, problems: &mut Problems) {
    for (field, value, longest) in [("code", &body.code, 4096), ("state", &body.state, 512)] {
        let length = value.chars().count();
        if length == 0 || length > longest {
            problems.push(
                join(path, field),
                format!("1 to {longest} characters, as the provider sent it"),
            );
        }
    }
}

fn check_post(body: &UserPostBody, path: &str, problems: &mut Problems) {
    check_display_name(body.display_name.as_ref(), path, problems);
    check_nets(body.nets.as_ref(), path, problems);
}

fn check_patch(body: &UserPatchBody, path: &str, problems: &mut Problems) {
    check_display_name(body.display_name.as_ref(), path, problems);
    check_nets(body.nets.as_ref().and_then(Option::as_ref), path, problems);
    if body.current_password.is_some() && body.password.is_none() {
        problems.push(
            join(path, "current_password"),
            "current_password goes with a new password",
        );
    }
}
