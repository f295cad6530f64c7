//! Operation ids: one variant per operation of either table, so a table,
//! a 5.0 change or a test that names an operation is checked by the
//! compiler. The wire form (`operationId` in the OpenAPI documents) is the
//! snake_case word beside each variant.

use std::fmt;

macro_rules! operations {
    ($($variant:ident = $id:literal,)+) => {
        /// An operation of the API.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(non_camel_case_types)]
        pub enum Operation {
            $(#[doc = concat!("`", $id, "`")] $variant,)+
        }

        impl Operation {
            /// Every operation.
            pub const ALL: &'static [Self] = &[$(Self::$variant,)+];

            /// The operation id as the OpenAPI documents give it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $id,)+
                }
            }
        }
    };
}

operations! {
    GetApiDescription = "get_api_description",
    ListCachedDevices = "list_cached_devices",
    DeleteCachedDevice = "delete_cached_device",
    ClearCachedDevices = "clear_cached_devices",
    CalculateMaximumTags = "calculate_maximum_tags",
    CalculateMaximumTagsForRole = "calculate_maximum_tags_for_role",
    CreateDataStream = "create_data_stream",
    GetDataStream = "get_data_stream",
    ListDataStreams = "list_data_streams",
    ListDefaultDataStreams = "list_default_data_streams",
    UpdateDataStream = "update_data_stream",
    DeleteDataStream = "delete_data_stream",
    CreateConfiguration = "create_configuration",
    UploadConfiguration = "upload_configuration",
    ConfigurationAction = "configuration_action",
    GetConfiguration = "get_configuration",
    ListConfigurations = "list_configurations",
    DownloadConfiguration = "download_configuration",
    UpdateConfiguration = "update_configuration",
    DeleteConfiguration = "delete_configuration",
    StreamEvents = "stream_events",
    StreamConfigurationEvents = "stream_configuration_events",
    ListHistory = "list_history",
    RestoreHistory = "restore_history",
    DeviceAction = "device_action",
    MultiDeviceAction = "multi_device_action",
    CreateDevice = "create_device",
    GetDevice = "get_device",
    ListDevices = "list_devices",
    ListUnconfiguredDevicesOfConfiguration = "list_unconfigured_devices_of_configuration",
    ListUnconfiguredDevices = "list_unconfigured_devices",
    UpdateDevice = "update_device",
    UpdateDevices = "update_devices",
    DeleteDevice = "delete_device",
    DeleteDevices = "delete_devices",
    CreateDevicePairs = "create_device_pairs",
    ListDevicePairsOfDevice = "list_device_pairs_of_device",
    ListDevicePairs = "list_device_pairs",
    DeleteDevicePairs = "delete_device_pairs",
    GetGroupImage = "get_group_image",
    UpdateGroupImage = "update_group_image",
    GetInterface = "get_interface",
    ListInterfaces = "list_interfaces",
    DeleteInterface = "delete_interface",
    GetLogMessages = "get_log_messages",
    ListLogFiles = "list_log_files",
    GetLogFile = "get_log_file",
    SetMagnetometerCalibration = "set_magnetometer_calibration",
    GetNetworkInfo = "get_network_info",
    GetPackages = "get_packages",
    GetNotification = "get_notification",
    ListNotifications = "list_notifications",
    CountNotifications = "count_notifications",
    UpdateNotification = "update_notification",
    UpdateNotifications = "update_notifications",
    ListNetworkModes = "list_network_modes",
    UpdateNetworkMode = "update_network_mode",
    CreatePositionLimit = "create_position_limit",
    GetPositionLimit = "get_position_limit",
    ListPositionLimits = "list_position_limits",
    UpdatePositionLimit = "update_position_limit",
    DeletePositionLimit = "delete_position_limit",
    CreateAlertRule = "create_alert_rule",
    GetAlertRule = "get_alert_rule",
    ListAlertRules = "list_alert_rules",
    UpdateAlertRule = "update_alert_rule",
    DeleteAlertRule = "delete_alert_rule",
    ListAlerts = "list_alerts",
    CreateSchedule = "create_schedule",
    GetSchedule = "get_schedule",
    ListSchedules = "list_schedules",
    UpdateSchedule = "update_schedule",
    DeleteSchedule = "delete_schedule",
    SignIn = "sign_in",
    GetSession = "get_session",
    SignOut = "sign_out",
    GetSignOn = "get_sign_on",
    BeginSignOn = "begin_sign_on",
    FinishSignOn = "finish_sign_on",
    ListUsers = "list_users",
    CreateUser = "create_user",
    GetUser = "get_user",
    UpdateUser = "update_user",
    DeleteUser = "delete_user",
    ListApiKeys = "list_api_keys",
    CreateApiKey = "create_api_key",
    DeleteApiKey = "delete_api_key",
    GetAudit = "get_audit",
    CreateZone = "create_zone",
    GetZone = "get_zone",
    ListZones = "list_zones",
    UpdateZone = "update_zone",
    DeleteZone = "delete_zone",
    GetZoneOccupancy = "get_zone_occupancy",
    CreateOutput = "create_output",
    GetOutput = "get_output",
    ListOutputs = "list_outputs",
    UpdateOutput = "update_output",
    DeleteOutput = "delete_output",
    GetOutputStatus = "get_output_status",
    StartRecording = "start_recording",
    ListRecordings = "list_recordings",
    GetRecording = "get_recording",
    DeleteRecording = "delete_recording",
    DownloadRecording = "download_recording",
    UploadRecording = "upload_recording",
    GetReplay = "get_replay",
    ControlReplay = "control_replay",
    GetAccuracy = "get_accuracy",
    GetPositions = "get_positions",
    GetCoverage = "get_coverage",
    RunSurvey = "run_survey",
    GetSurvey = "get_survey",
    CreateRfSetting = "create_rf_setting",
    UpdateRfSetting = "update_rf_setting",
    GetRfSetting = "get_rf_setting",
    ListRfSettings = "list_rf_settings",
    DeleteRfSetting = "delete_rf_setting",
    CreateRole = "create_role",
    GetRole = "get_role",
    ListRoles = "list_roles",
    UpdateRole = "update_role",
    DeleteRole = "delete_role",
    CreateSetting = "create_setting",
    GetSetting = "get_setting",
    ListSettings = "list_settings",
    ReplaceSettings = "replace_settings",
    UpdateSettings = "update_settings",
    DeleteSetting = "delete_setting",
    GetDefaultSetting = "get_default_setting",
    ListDefaultSettings = "list_default_settings",
    ListNotifications5_0 = "list_notifications_5_0",
    EngineCommand = "engine_command",
    ListInterfaceRoles = "list_interface_roles",
    GetInterfaceRole = "get_interface_role",
    DeleteInterfaceRole = "delete_interface_role",
    AddPairedInterface = "add_paired_interface",
    DeletePairedInterface = "delete_paired_interface",
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Operation {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .iter()
            .copied()
            .find(|operation| operation.as_str() == text)
            .ok_or_else(|| format!("no operation `{text}`"))
    }
}
