use netcfg_model_derive::request_body;

use crate::{
    names::ItemName,
    rf::{
        BitRate, Channel, PreambleCode, PreambleLength, Prf, RfSetting, add_preamble_rules,
        check_preamble_code,
    },
    validation::Problems,
};

/// `rf_settings_post_body`: creates a named RF setting.
#[request_body(check = check_post)]
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[schemars(transform = add_preamble_rules)]
pub struct RfSettingsPostBody {
    /// Data bit rate in kbit/s: 110, 850 or 6800.
    pub bit_rate: BitRate,
    /// Channel: 1, 2, 3, 4, 5, 7 or 9.
    pub channel: Channel,
    /// Preamble code, suited to channel and PRF.
    pub preamble_code: PreambleCode,
    /// Preamble length in symbols.
    pub preamble_length: PreambleLength,
    /// PRF in MHz: 16 or 64.
    pub prf: Prf,
    /// Unique name within the configuration.
    pub name: ItemName,
}

impl RfSettingsPostBody {
    /// The RF setting this body creates.
    pub fn into_setting(self) -> RfSetting {
        RfSetting {
            name: self.name,
            bit_rate: self.bit_rate,
            channel: self.channel,
            preamble_code: self.preamble_code,
            preamble_length: self.preamble_length,
            prf: self.prf,
        }
    }
}

/// `rf_settings_patch_body`: changes an RF setting; at least one field.
#[request_body(at_least_one, check = check_patch)]
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[schemars(transform = add_preamble_rules)]
pub struct RfSettingsPatchBody {
    /// New bit rate.
    pub bit_rate: Option<BitRate>,
    /// New channel.
    pub channel: Option<Channel>,
    /// New preamble code.
    pub preamble_code: Option<PreambleCode>,
    /// New preamble length.
    pub preamble_length: Option<PreambleLength>,
    /// New PRF.
    pub prf: Option<Prf>,
}

impl RfSettingsPatchBody {
    /// Writes the given fields into `setting`. Validate it afterwards: the
    /// preamble code must still suit the (possibly new) channel and PRF.
    pub fn apply(&self, setting: &mut RfSetting) {
        setting.bit_rate = self.bit_rate.unwrap_or(setting.bit_rate);
        setting.channel = self.channel.unwrap_or(setting.channel);
        setting.preamble_code = self.preamble_code.unwrap_or(setting.preamble_code);
        setting.preamble_length = self.preamble_length.unwrap_or(setting.preamble_length);
        setting.prf = self.prf.unwrap_or(setting.prf);
    }
}

fn check_post(body: &RfSettingsPostBody, path: &str, problems: &mut Problems) {
    check_preamble_code(body.channel, body.prf, body.preamble_code, path, problems);
}

fn check_patch(body: &RfSettingsPatchBody, path: &str, problems: &mut Problems) {
    if let (Some(channel), Some(prf), Some(code)) = (body.channel, body.prf, body.preamble_code) {
        check_preamble_code(channel, prf, code, path, problems);
    }
}
