//! The 5.1 route table: every row of the seed's endpoint tables, with its
//! path aliases, body type and declared responses (status, payload, level).

use actix_web::http::Method;
use netcfg_model::{
    CachedDevice, Configuration, DataStream, DefaultSetting, Device, DevicePair, GroupImage,
    HostNetworkInterface, Interface, Level::*, MagnetometerCalibration, NetworkModeInfo,
    Notification, PackageStatus, PositionLimit, RfSetting, Role, SystemSetting, UnconfiguredDevice,
    body::*,
};

use crate::{
    handlers::*,
    table::{Payload, Route},
    wire::{ConfigurationStatus, DeviceCommandStatus, NetworkModeStatus, OneOrMany, UploadForm},
};

const GET: Method = Method::GET;
const POST: Method = Method::POST;
const PUT: Method = Method::PUT;
const PATCH: Method = Method::PATCH;
const DELETE: Method = Method::DELETE;

fn message() -> Payload {
    Payload::Message
}

/// Every 5.1 row, in the seed's order.
pub(crate) fn routes() -> Vec<Route> {
    let mut routes = crate::common_routes();
    routes.extend(cache_manager());
    routes.extend(maximum_tags());
    routes.extend(data_streams());
    routes.extend(configurations());
    routes.extend(device_commands());
    routes.extend(devices());
    routes.extend(device_pairs());
    routes.extend(group_image());
    routes.extend(interfaces());
    routes.extend(logs());
    routes.extend(magnetometer());
    routes.extend(host());
    routes.extend(notifications());
    routes.extend(operating_modes());
    routes.extend(position_limits());
    routes.extend(rf_settings());
    routes.extend(roles());
    routes.extend(settings());
    routes.extend(default_settings());
    routes
}

fn cache_manager() -> Vec<Route> {
    vec![
        Route::new(
            GET,
            &["/cache-manager/{net_name}"],
            "list_cached_devices",
            "What the network last reported about each device",
            cache::list,
        )
        .responds(
            200,
            Payload::json::<Vec<CachedDevice>>("cached_devices"),
            Debug,
        ),
        Route::new(
            DELETE,
            &["/cache-manager/{net_name}/{device_key}"],
            "delete_cached_device",
            "Forget what the network reported about one device",
            cache::delete_one,
        )
        .responds(200, message(), Information)
        .errors(&[500]),
        Route::new(
            DELETE,
            &["/cache-manager/{net_name}"],
            "clear_cached_devices",
            "Forget what the network reported about every device",
            cache::clear,
        )
        .responds(200, message(), Information)
        .errors(&[500]),
    ]
}

fn maximum_tags() -> Vec<Route> {
    let result =
        || Payload::json::<netcfg_model::max_tags::MaxTagsResult>("maximum_tags_calculation");
    vec![
        Route::new(
            POST,
            &["/calculate_maximum_tags"],
            "calculate_maximum_tags",
            "How many tags a network can carry, from parameters",
            max_tags::parameterized,
        )
        .json_body::<CalculateMaximumTagsParameterizedBody>()
        .responds(200, result(), Information)
        .errors(&[400, 404, 409, 500]),
        Route::new(
            POST,
            &["/nets/{net_name}/calculate_maximum_tags"],
            "calculate_maximum_tags_for_role",
            "How many tags a configuration can carry in one of its tag roles",
            max_tags::for_role,
        )
        .json_body::<CalculateMaximumTagsBody>()
        .responds(200, result(), Information)
        .errors(&[400, 404, 409, 500]),
    ]
}

fn data_streams() -> Vec<Route> {
    let one = || Payload::json::<DataStream>("stream");
    let many = || Payload::json::<Vec<DataStream>>("streams");
    vec![
        Route::new(
            POST,
            &[
                "/nets/{net_name}/data-streams",
                "/nets/{net_name}/data_streams",
            ],
            "create_data_stream",
            "Add a data stream",
            streams::create,
        )
        .json_body::<DataStreamBody>()
        .responds(201, one(), Information)
        .errors(&[400, 409, 500]),
        Route::new(
            GET,
            &[
                "/nets/{net_name}/data-streams/{id}",
                "/nets/{net_name}/data_streams/{id}",
            ],
            "get_data_stream",
            "One data stream",
            streams::get,
        )
        .responds(200, one(), Debug)
        .errors(&[404]),
        Route::new(
            GET,
            &[
                "/nets/{net_name}/data-streams",
                "/nets/{net_name}/data_streams",
            ],
            "list_data_streams",
            "The data streams of a configuration",
            streams::list,
        )
        .responds(200, many(), Debug),
        Route::new(
            GET,
            &["/default-data-streams", "/default_data_streams"],
            "list_default_data_streams",
            "The default data streams with their default values",
            streams::defaults,
        )
        .responds(200, many(), Debug),
        Route::new(
            PATCH,
            &[
                "/nets/{net_name}/data-streams/{id}",
                "/nets/{net_name}/data_streams/{id}",
            ],
            "update_data_stream",
            "Replace a data stream's settings",
            streams::update,
        )
        .json_body::<DataStreamBody>()
        .responds(200, one(), Information)
        .errors(&[400, 404, 409, 500]),
        Route::new(
            DELETE,
            &[
                "/nets/{net_name}/data-streams/{id}",
                "/nets/{net_name}/data_streams/{id}",
            ],
            "delete_data_stream",
            "Delete a data stream, or reset a default one (Config, Anchor and User cannot go)",
            streams::delete,
        )
        .responds(200, message(), Information)
        .errors(&[400, 404, 409]),
    ]
}

fn configurations() -> Vec<Route> {
    let one = || Payload::json::<Configuration>("configuration");
    vec![
        Route::new(POST, &["/nets"], "create_configuration", "Create a configuration", nets::create)
            .json_body::<NetworkBody>()
            .responds(201, one(), Information)
            .errors(&[400, 409]),
        Route::new(POST, &["/nets/upload"], "upload_configuration", "Upload a saved-state file as a new configuration (form field net_file; optional field name)", nets::upload)
            .multipart_body::<UploadForm>()
            .responds(201, one(), Information)
            .errors(&[400, 409]),
        Route::new(POST, &["/nets/{net_name}"], "configuration_action", "Copy, delete, start or stop a configuration", nets::action)
            .json_body::<ActionBody>()
            .responds(200, Payload::json::<ConfigurationStatus>("status"), Information)
            .errors(&[400, 404, 409]),
        Route::new(GET, &["/nets/{net_name}"], "get_configuration", "One configuration", nets::get)
            .responds(200, one(), Debug)
            .errors(&[404]),
        Route::new(GET, &["/nets"], "list_configurations", "Every configuration", nets::list)
            .responds(200, Payload::json::<Vec<Configuration>>("configurations"), Debug),
        Route::new(GET, &["/nets/{net_name}/download"], "download_configuration", "The configuration's saved-state file (SQLite)", nets::download)
            .responds(200, Payload::File { content_type: "application/vnd.sqlite3" }, Information)
            .errors(&[404]),
        Route::new(PATCH, &["/nets/{net_name}"], "update_configuration", "Rename a configuration or change its instance", nets::update)
            .json_body::<NetworkBody>()
            .responds(200, one(), Information)
            .errors(&[400, 404, 409]),
        Route::new(DELETE, &["/nets/{net_name}"], "delete_configuration", "Delete a configuration (stopping it first)", nets::delete)
            .responds(204, message(), Information),
    ]
}

fn device_commands() -> Vec<Route> {
    let status = || Payload::json::<DeviceCommandStatus>("status");
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/devices/{device_key}/action"],
            "device_action",
            "Send an action to a device of a running configuration",
            commands::one,
        )
        .json_body::<netcfg_model::DeviceAction>()
        .responds(200, status(), Information)
        .errors(&[400, 404, 504]),
        Route::new(
            POST,
            &["/nets/{net_name}/devices/action"],
            "multi_device_action",
            "Send an action to several devices of a running configuration",
            commands::many,
        )
        .json_body::<MultiDeviceCommandBody>()
        .responds(200, status(), Information)
        .errors(&[400, 404, 504]),
    ]
}

fn devices() -> Vec<Route> {
    let one = || Payload::json::<Device>("device");
    let unconfigured = || Payload::json::<Vec<UnconfiguredDevice>>("unconfigured_devices");
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/devices"],
            "create_device",
            "Add a device",
            devices::create,
        )
        .json_body::<DeviceBody>()
        .responds(201, one(), Information)
        .errors(&[400, 409, 500]),
        Route::new(
            GET,
            &["/nets/{net_name}/devices/{device_key}"],
            "get_device",
            "One device, by serial number or id",
            devices::get,
        )
        .responds(200, one(), Debug)
        .errors(&[404]),
        Route::new(
            GET,
            &["/nets/{net_name}/devices"],
            "list_devices",
            "The devices of a configuration",
            devices::list,
        )
        .responds(200, Payload::json::<Vec<Device>>("devices"), Debug),
        Route::new(
            GET,
            &["/nets/{net_name}/unconfigured_devices"],
            "list_unconfigured_devices_of_configuration",
            "Devices the configuration's network hears that it does not hold",
            devices::unconfigured_of_net,
        )
        .responds(200, unconfigured(), Debug),
        Route::new(
            GET,
            &["/unconfigured_devices"],
            "list_unconfigured_devices",
            "Devices any running network hears that its configuration does not hold",
            devices::unconfigured,
        )
        .responds(200, unconfigured(), Debug),
        Route::new(
            PATCH,
            &["/nets/{net_name}/devices/{device_key}"],
            "update_device",
            "Replace a device's settings",
            devices::update,
        )
        .json_body::<DeviceBody>()
        .responds(200, one(), Information)
        .errors(&[400, 404, 409, 500]),
        Route::new(
            PATCH,
            &["/nets/{net_name}/devices"],
            "update_devices",
            "Replace the settings of one device (device_body) or several (an array)",
            devices::update_many,
        )
        .json_body::<DevicesPatchBody>()
        .responds(
            200,
            Payload::json::<OneOrMany<Device>>("device"),
            Information,
        )
        .errors(&[400, 404, 409, 500]),
        Route::new(
            DELETE,
            &["/nets/{net_name}/devices/{device_key}"],
            "delete_device",
            "Delete a device",
            devices::delete,
        )
        .responds(200, message(), Information)
        .errors(&[404]),
        Route::new(
            DELETE,
            &["/nets/{net_name}/devices"],
            "delete_devices",
            "Delete several devices, or all",
            devices::delete_many,
        )
        .json_body::<MultipleDeviceDeleteBody>()
        .responds(200, message(), Information)
        .errors(&[404]),
    ]
}

fn device_pairs() -> Vec<Route> {
    let pairs = || Payload::json::<Vec<DevicePair>>("pairs");
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/device_pairs"],
            "create_device_pairs",
            "Pair devices (201 all created, 206 some, 409 all existed, 417 none could be)",
            pairs::create,
        )
        .json_body::<DevicePairsBody>()
        .responds(201, message(), Information)
        .responds(206, message(), Warning)
        .errors(&[400, 409, 417, 500]),
        Route::new(
            GET,
            &["/nets/{net_name}/device_pairs/{serial_number}"],
            "list_device_pairs_of_device",
            "The pairs of one device",
            pairs::of_device,
        )
        .responds(200, pairs(), Debug),
        Route::new(
            GET,
            &["/nets/{net_name}/device_pairs"],
            "list_device_pairs",
            "Every pair of a configuration",
            pairs::list,
        )
        .responds(200, pairs(), Debug),
        Route::new(
            DELETE,
            &["/nets/{net_name}/device_pairs"],
            "delete_device_pairs",
            "Unpair devices (200 all deleted, 206 some, 417 none existed)",
            pairs::delete,
        )
        .json_body::<DevicePairsBody>()
        .responds(200, message(), Information)
        .responds(206, message(), Warning)
        .errors(&[400, 409, 417, 500]),
    ]
}

fn group_image() -> Vec<Route> {
    let image = || Payload::json::<GroupImage>("group_images");
    vec![
        Route::new(
            GET,
            &["/nets/{net_name}/group_image"],
            "get_group_image",
            "The firmware bundle devices are updated to",
            misc::get_group_image,
        )
        .responds(200, image(), Information)
        .errors(&[404]),
        Route::new(
            PATCH,
            &["/nets/{net_name}/group_image"],
            "update_group_image",
            "Set the firmware bundle devices are updated to",
            misc::update_group_image,
        )
        .json_body::<GroupImagePatchBody>()
        .responds(200, image(), Information)
        .errors(&[404, 500]),
    ]
}

/// The two spellings of one interface's path.
pub(crate) const INTERFACE_PATHS: [&str; 2] = [
    "/nets/{net_name}/devices/{device_key}-{interface_identifier}",
    "/nets/{net_name}/devices/{device_key}/interfaces/{interface_identifier}",
];

fn interfaces() -> Vec<Route> {
    vec![
        Route::new(
            GET,
            &INTERFACE_PATHS,
            "get_interface",
            "One interface of a device",
            interfaces::get,
        )
        .responds(200, Payload::json::<Interface>("interface"), Debug)
        .errors(&[404]),
        Route::new(
            GET,
            &["/nets/{net_name}/devices/{device_key}/interfaces"],
            "list_interfaces",
            "The interfaces of a device",
            interfaces::list,
        )
        .responds(
            200,
            Payload::json::<Vec<Interface>>("interfaces"),
            Information,
        )
        .errors(&[404]),
        Route::new(
            DELETE,
            &INTERFACE_PATHS,
            "delete_interface",
            "Delete an interface of a device (not its last)",
            interfaces::delete,
        )
        .responds(200, message(), Information)
        .errors(&[404, 409]),
    ]
}

fn logs() -> Vec<Route> {
    vec![
        Route::new(
            GET,
            &["/nets/{net_name}/log_messages"],
            "get_log_messages",
            "The latest log lines of a configuration",
            logs::messages,
        )
        .responds(200, Payload::json::<Vec<String>>("log_messages"), Debug),
        Route::new(
            GET,
            &["/nets/{net_name}/logs"],
            "list_log_files",
            "The log files of a configuration",
            logs::list,
        )
        .responds(200, Payload::json::<Vec<String>>("logs"), Debug),
        Route::new(
            GET,
            &["/nets/{net_name}/logs/{log_file_name}"],
            "get_log_file",
            "One log file",
            logs::file,
        )
        .responds(
            200,
            Payload::File {
                content_type: "text/plain; charset=utf-8",
            },
            Debug,
        )
        .errors(&[404]),
    ]
}

fn magnetometer() -> Vec<Route> {
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/devices/{device_key}/set_magnetometer_calibration"],
            "set_magnetometer_calibration",
            "Set a device's magnetometer calibration",
            misc::set_magnetometer_calibration,
        )
        .json_body::<MagnetometerCalibrationBody>()
        .responds(
            201,
            Payload::json::<MagnetometerCalibration>("magnetometer_calibration"),
            Information,
        )
        .errors(&[400, 404, 409, 500]),
    ]
}

fn host() -> Vec<Route> {
    vec![
        Route::new(
            GET,
            &["/network-info"],
            "get_network_info",
            "The host's network interfaces",
            misc::network_info,
        )
        .responds(
            200,
            Payload::json::<Vec<HostNetworkInterface>>("network_interfaces"),
            Information,
        ),
        Route::new(
            GET,
            &["/packages"],
            "get_packages",
            "The installed components and their versions (404 when one is missing)",
            misc::packages,
        )
        .responds(200, Payload::json::<Vec<PackageStatus>>("packages"), Debug)
        .responds(404, Payload::json::<Vec<PackageStatus>>("packages"), Error),
    ]
}

fn notifications() -> Vec<Route> {
    let one = || Payload::json::<Notification>("notification");
    let many = || Payload::json::<Vec<Notification>>("notifications");
    vec![
        Route::new(
            GET,
            &["/nets/{net_name}/notifications/{identifier}"],
            "get_notification",
            "One notification",
            notifications::get,
        )
        .responds(200, one(), Debug)
        .errors(&[404]),
        Route::new(
            GET,
            &["/nets/{net_name}/notifications"],
            "list_notifications",
            "Every notification of a configuration",
            notifications::list,
        )
        .responds(200, many(), Debug),
        Route::new(
            GET,
            &["/nets/{net_name}/notifications_count"],
            "count_notifications",
            "The number of unread notifications",
            notifications::unread,
        )
        .responds(200, Payload::json::<u64>("count"), Debug),
        Route::new(
            PATCH,
            &["/nets/{net_name}/notifications/{identifier}"],
            "update_notification",
            "Mark a notification read or unread",
            notifications::update,
        )
        .json_body::<NotificationPatchBody>()
        .responds(200, one(), Information)
        .errors(&[404]),
        Route::new(
            PATCH,
            &["/nets/{net_name}/notifications"],
            "update_notifications",
            "Mark every notification read or unread",
            notifications::update_all,
        )
        .json_body::<NotificationPatchBody>()
        .responds(200, many(), Information),
    ]
}

fn operating_modes() -> Vec<Route> {
    vec![
        Route::new(
            GET,
            &["/network_modes"],
            "list_network_modes",
            "The operating modes",
            misc::network_modes,
        )
        .responds(
            200,
            Payload::json::<Vec<NetworkModeInfo>>("network_modes"),
            Debug,
        ),
        Route::new(
            PATCH,
            &["/nets/{net_name}/network_mode"],
            "update_network_mode",
            "Change a configuration's operating mode (not while it runs)",
            misc::update_network_mode,
        )
        .json_body::<OperatingModePatchBody>()
        .responds(
            200,
            Payload::json::<NetworkModeStatus>("network_mode"),
            Information,
        )
        .errors(&[404, 409, 500]),
    ]
}

fn position_limits() -> Vec<Route> {
    let one = || Payload::json::<PositionLimit>("position_limit");
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/position_limits"],
            "create_position_limit",
            "Add a bounding box",
            limits::create,
        )
        .json_body::<PositionLimitsPostBody>()
        .responds(200, one(), Information)
        .errors(&[400, 409]),
        Route::new(
            GET,
            &["/nets/{net_name}/position_limits/{id}"],
            "get_position_limit",
            "One bounding box",
            limits::get,
        )
        .responds(200, one(), Debug)
        .errors(&[404]),
        Route::new(
            GET,
            &["/nets/{net_name}/position_limits"],
            "list_position_limits",
            "The bounding boxes of a configuration",
            limits::list,
        )
        .responds(
            200,
            Payload::json::<Vec<PositionLimit>>("position_limits"),
            Debug,
        ),
        Route::new(
            PATCH,
            &["/nets/{net_name}/position_limits/{id}"],
            "update_position_limit",
            "Change a bounding box",
            limits::update,
        )
        .json_body::<PositionLimitsPatchBody>()
        .responds(200, one(), Information)
        .errors(&[404, 409, 500]),
        Route::new(
            DELETE,
            &["/nets/{net_name}/position_limits/{id}"],
            "delete_position_limit",
            "Delete a bounding box",
            limits::delete,
        )
        .responds(200, message(), Information)
        .errors(&[404]),
    ]
}

fn rf_settings() -> Vec<Route> {
    let one = || Payload::json::<RfSetting>("rf_setting");
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/rf_settings"],
            "create_rf_setting",
            "Add a named RF setting",
            rf::create,
        )
        .json_body::<RfSettingsPostBody>()
        .responds(200, one(), Information)
        .errors(&[400, 409]),
        Route::new(
            PATCH,
            &["/nets/{net_name}/rf_settings/{name}"],
            "update_rf_setting",
            "Change an RF setting (not while the configuration runs)",
            rf::update,
        )
        .json_body::<RfSettingsPatchBody>()
        .responds(200, one(), Information)
        .errors(&[404, 409, 500]),
        Route::new(
            GET,
            &["/nets/{net_name}/rf_settings/{name}"],
            "get_rf_setting",
            "One RF setting",
            rf::get,
        )
        .responds(200, one(), Debug)
        .errors(&[404]),
        Route::new(
            GET,
            &["/nets/{net_name}/rf_settings"],
            "list_rf_settings",
            "The RF settings of a configuration",
            rf::list,
        )
        .responds(200, Payload::json::<Vec<RfSetting>>("rf_settings"), Debug),
        Route::new(
            DELETE,
            &["/nets/{net_name}/rf_settings/{name}"],
            "delete_rf_setting",
            "Delete an RF setting (not `default`, not one in use)",
            rf::delete,
        )
        .responds(204, message(), Information)
        .errors(&[404, 409]),
    ]
}

fn roles() -> Vec<Route> {
    let one = || Payload::json::<Role>("role");
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/roles"],
            "create_role",
            "Add a custom tag role",
            roles::create,
        )
        .json_body::<RolePostBody>()
        .responds(201, one(), Information)
        .errors(&[400, 409, 500]),
        Route::new(
            GET,
            &["/nets/{net_name}/roles/{role_id}"],
            "get_role",
            "One role",
            roles::get,
        )
        .responds(200, one(), Debug)
        .errors(&[404]),
        Route::new(
            GET,
            &["/nets/{net_name}/roles"],
            "list_roles",
            "The roles of a configuration",
            roles::list,
        )
        .responds(200, Payload::json::<Vec<Role>>("roles"), Debug),
        Route::new(
            PATCH,
            &["/nets/{net_name}/roles/{role_id}"],
            "update_role",
            "Change a role",
            roles::update,
        )
        .json_body::<RolePatchBody>()
        .responds(200, one(), Information)
        .errors(&[400, 404, 409, 500]),
        Route::new(
            DELETE,
            &["/nets/{net_name}/roles/{role_id}"],
            "delete_role",
            "Delete a custom role that no interface uses",
            roles::delete,
        )
        .responds(204, message(), Information)
        .errors(&[404, 409]),
    ]
}

fn settings() -> Vec<Route> {
    let one = || Payload::json::<OneOrMany<SystemSetting>>("setting");
    let many = || Payload::json::<Vec<SystemSetting>>("settings");
    vec![
        Route::new(
            POST,
            &[
                "/nets/{net_name}/settings",
                "/nets/{net_name}/settings/{setting_class}/{setting_id}",
            ],
            "create_setting",
            "Add settings (a key that exists is a conflict)",
            settings::create,
        )
        .json_body::<SettingsBody>()
        .responds(200, one(), Information)
        .errors(&[409, 500]),
        Route::new(
            GET,
            &[
                "/nets/{net_name}/settings/{key}",
                "/nets/{net_name}/settings/{setting_class}/{setting_id}/{key}",
            ],
            "get_setting",
            "One setting",
            settings::get,
        )
        .responds(200, Payload::json::<SystemSetting>("setting"), Debug)
        .responds(404, message(), Debug)
        .responds(409, message(), Debug),
        Route::new(
            GET,
            &[
                "/nets/{net_name}/settings",
                "/nets/{net_name}/settings/{setting_class}/{setting_id}",
            ],
            "list_settings",
            "The settings of a configuration",
            settings::list,
        )
        .responds(200, many(), Debug)
        .errors(&[409]),
        Route::new(
            PUT,
            &[
                "/nets/{net_name}/settings",
                "/nets/{net_name}/settings/{setting_class}/{setting_id}",
            ],
            "replace_settings",
            "Replace the settings of the scope with the body's (known keys left out return to their defaults)",
            settings::put,
        )
        .json_body::<SettingsBody>()
        .responds(200, many(), Information)
        .errors(&[409, 500]),
        Route::new(
            PATCH,
            &[
                "/nets/{net_name}/settings",
                "/nets/{net_name}/settings/{setting_class}/{setting_id}",
            ],
            "update_settings",
            "Change settings that exist (404 for a key that does not)",
            settings::patch,
        )
        .json_body::<SettingsBody>()
        .responds(200, many(), Information)
        .errors(&[404, 409, 500]),
        Route::new(
            DELETE,
            &[
                "/nets/{net_name}/settings/{key}",
                "/nets/{net_name}/settings/{setting_class}/{setting_id}/{key}",
            ],
            "delete_setting",
            "Delete a setting (a catalogue key returns to its default)",
            settings::delete,
        )
        .responds(200, message(), Information)
        .errors(&[404, 409]),
    ]
}

fn default_settings() -> Vec<Route> {
    vec![
        Route::new(
            GET,
            &["/default-settings/{key}", "/default_settings/{key}"],
            "get_default_setting",
            "One known setting with its default, type and description",
            settings::get_default,
        )
        .responds(
            200,
            Payload::json::<DefaultSetting>("default_setting"),
            Debug,
        )
        .errors(&[404]),
        Route::new(
            GET,
            &["/default-settings", "/default_settings"],
            "list_default_settings",
            "The known settings with their defaults, types and descriptions",
            settings::list_defaults,
        )
        .responds(
            200,
            Payload::json::<Vec<DefaultSetting>>("default_settings"),
            Debug,
        ),
    ]
}
