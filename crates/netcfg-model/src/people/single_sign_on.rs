//! Single sign-on through OpenID Connect (decisions §17, `auth.oidc`): the
//! settings, and the rules that need no I/O (which role a person's claims
//! give, which user name they sign in as).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::AccessRole;
use crate::UserName;

/// The settings of `auth.oidc`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OidcSettings {
    /// The provider's issuer URL; its discovery document is
    /// `<issuer>/.well-known/openid-configuration`.
    pub issuer: String,
    /// netcfg's client id at the provider.
    pub client_id: String,
    /// Its secret (none for a public client).
    pub client_secret: Option<String>,
    /// The claim whose values give the role (`groups`, `roles`, …); none:
    /// every person gets `default_role`.
    pub role_claim: Option<String>,
    /// A value of `role_claim` → the role it gives (the highest wins).
    pub roles: BTreeMap<String, AccessRole>,
    /// The role of a person none of whose values is mapped; none: such a
    /// person cannot sign in.
    pub default_role: Option<AccessRole>,
    /// The scopes asked for besides `openid`.
    pub scopes: Vec<String>,
    /// Where the provider sends the browser back: the front end's own page
    /// (`https://netcfg.example/`); none: the address the browser used.
    pub redirect_url: Option<String>,
    /// A PEM file of the certificate authorities that sign the provider's
    /// certificate (none: the system's).
    pub ca_file: Option<String>,
}

impl OidcSettings {
    /// The role that `claims` give: the highest of the roles mapped from
    /// the role claim's values (a string or a list of strings), else the
    /// default role; none when neither gives one.
    pub fn role_of(
        &self,
        claims: &serde_json::Map<String, serde_json::Value>,
    ) -> Option<AccessRole> {
        let Some(claim) = &self.role_claim else {
            return self.default_role;
        };
        let values: Vec<&str> = match claims.get(claim) {
            Some(serde_json::Value::String(value)) => vec![value.as_str()],
            Some(serde_json::Value::Array(values)) => values
                .iter()
                .filter_map(serde_json::Value::as_str)
                .collect(),
            _ => Vec::new(),
        };
        values
            .iter()
            .filter_map(|value| self.roles.get(*value).copied())
            .max()
            .or(self.default_role)
    }
}

/// The user name a person signs in as: the provider's `preferred_username`,
/// lowercased; an error saying why when it is missing or not a valid name.
pub fn user_name_of(preferred_username: Option<&str>) -> Result<UserName, String> {
    let Some(given) = preferred_username
        .map(str::trim)
        .filter(|name| !name.is_empty())
    else {
        return Err("the provider gave no preferred_username for this person".to_owned());
    };
    given.to_lowercase().parse::<UserName>().map_err(|error| {
        format!("the provider's preferred_username {given:?} is not a user name here: {error}")
    })
}

/// What `GET /session/oidc` and `POST /session/oidc` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OidcInfo {
    /// Whether single sign-on is set up.
    pub enabled: bool,
    /// The provider's issuer URL, when set up.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub issuer: Option<String>,
    /// Where to send the browser to sign in (`POST` only): the provider's
    /// authorization page, valid for 10 minutes.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub url: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(role_claim: Option<&str>, default_role: Option<AccessRole>) -> OidcSettings {
        OidcSettings {
            issuer: "https://id.example".to_owned(),
            client_id: "netcfg".to_owned(),
            client_secret: None,
            role_claim: role_claim.map(str::to_owned),
            roles: BTreeMap::from([
                ("rtls-admins".to_owned(), AccessRole::Admin),
                ("rtls-operators".to_owned(), AccessRole::Operator),
            ]),
            default_role,
            scopes: vec!["profile".to_owned()],
            redirect_url: None,
            ca_file: None,
        }
    }

    fn claims(json: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        match json {
            serde_json::Value::Object(map) => map,
            _ => unreachable!("the tests give objects"),
        }
    }

    #[test]
    fn the_highest_mapped_value_of_the_role_claim_gives_the_role() {
        let groups = settings(Some("groups"), Some(AccessRole::Viewer));
        let cases = [
            (
                serde_json::json!({"groups": ["rtls-operators", "rtls-admins"]}),
                Some(AccessRole::Admin),
            ),
            (
                serde_json::json!({"groups": "rtls-operators"}),
                Some(AccessRole::Operator),
            ),
            (
                serde_json::json!({"groups": ["staff"]}),
                Some(AccessRole::Viewer),
            ),
            (serde_json::json!({"groups": 7}), Some(AccessRole::Viewer)),
            (serde_json::json!({}), Some(AccessRole::Viewer)),
        ];
        for (given, role) in cases {
            assert_eq!(groups.role_of(&claims(given.clone())), role, "{given}");
        }
    }

    #[test]
    fn without_a_default_role_an_unmapped_person_gets_none() {
        let strict = settings(Some("groups"), None);
        assert_eq!(
            strict.role_of(&claims(serde_json::json!({"groups": ["staff"]}))),
            None
        );
        let everyone = settings(None, Some(AccessRole::Editor));
        let admins = claims(serde_json::json!({"groups": ["rtls-admins"]}));
        assert_eq!(everyone.role_of(&admins), Some(AccessRole::Editor));
    }

    #[test]
    fn the_user_name_is_the_preferred_username_lowercased_or_a_reason() {
        assert_eq!(
            user_name_of(Some("Ada.Lovelace")).map(|name| name.to_string()),
            Ok("ada.lovelace".to_owned())
        );
        assert!(
            user_name_of(None)
                .unwrap_err()
                .contains("no preferred_username")
        );
        assert!(
            user_name_of(Some("  "))
                .unwrap_err()
                .contains("no preferred_username")
        );
        let spaced = user_name_of(Some("Ada Lovelace")).unwrap_err();
        assert!(
            spaced.contains("\"Ada Lovelace\" is not a user name"),
            "{spaced}"
        );
    }
}
