//! The 5.1 route table: every row of the seed's endpoint tables, with its
//! path aliases, body type and declared responses (status, payload, level).

use actix_web::http::{Method, StatusCode};
use netcfg_model::{
    Level::*,
    body::*,
    people::AccessRole::{Admin, Operator, Viewer},
};

use crate::{
    handlers::*,
    operation::Operation,
    path::IdPath,
    payload::keys,
    table::{Payload, Route},
    wire::UploadForm,
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
    routes.extend(events());
    routes.extend(history());
    routes.extend(operating_modes());
    routes.extend(position_limits());
    routes.extend(alert_rules());
    routes.extend(schedules());
    routes.extend(site());
    routes.extend(zones());
    routes.extend(outputs());
    routes.extend(recordings());
    routes.extend(rf_settings());
    routes.extend(roles());
    routes.extend(settings());
    routes.extend(default_settings());
    routes.extend(people());
    routes
}

/// People (decisions §17): signing in and out, users, their API keys and
/// the audit trail; 5.1 only. Who may change whom is the service's rule
/// (an admin anyone, a user itself): the rows' least roles let a user
/// reach its own record and keys.
fn people() -> Vec<Route> {
    let user = "/users/{user_name}";
    let keys = "/users/{user_name}/keys";
    let refusals = [
        StatusCode::BAD_REQUEST,
        StatusCode::UNAUTHORIZED,
        StatusCode::FORBIDDEN,
        StatusCode::NOT_FOUND,
    ];
    vec![
        Route::new(
            POST,
            &["/session"],
            Operation::SignIn,
            "Sign in with a name and password: the session cookie, and the CSRF token its changes carry",
            people::sign_in,
        )
        .open_to_all()
        .json_body::<SessionPostBody>()
        .responds(StatusCode::OK, Payload::of::<keys::Session>(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::UNAUTHORIZED,
            StatusCode::TOO_MANY_REQUESTS,
        ]),
        Route::new(
            GET,
            &["/session"],
            Operation::GetSession,
            "Who the request is: the user or token, its role, and a session's CSRF token",
            people::get,
        )
        .open_to_all()
        .responds(StatusCode::OK, Payload::of::<keys::Session>(), Debug)
        .errors(&[StatusCode::UNAUTHORIZED]),
        Route::new(
            DELETE,
            &["/session"],
            Operation::SignOut,
            "Sign out: the server forgets the session",
            people::sign_out,
        )
        .open_to_all()
        .changes_nothing()
        .responds(StatusCode::NO_CONTENT, message(), Information),
        Route::new(
            GET,
            &["/session/oidc"],
            Operation::GetSignOn,
            "Single sign-on: whether it is set up, and the OpenID provider people sign in through",
            single_sign_on::get,
        )
        .open_to_all()
        .responds(StatusCode::OK, Payload::of::<keys::Oidc>(), Debug),
        Route::new(
            POST,
            &["/session/oidc"],
            Operation::BeginSignOn,
            "Begin a single sign-on: the provider's URL to send the browser to (with PKCE), and a cookie binding the sign-in to this browser",
            single_sign_on::begin,
        )
        .open_to_all()
        .changes_nothing()
        .responds(StatusCode::OK, Payload::of::<keys::Oidc>(), Information)
        .errors(&[StatusCode::NOT_FOUND, StatusCode::BAD_GATEWAY]),
        Route::new(
            POST,
            &["/session/oidc/callback"],
            Operation::FinishSignOn,
            "Finish a single sign-on with the code and state the provider sent the browser back with: the session cookie, as a sign-in with a password gives",
            single_sign_on::finish,
        )
        .open_to_all()
        .changes_nothing()
        .json_body::<OidcCallbackBody>()
        .responds(StatusCode::OK, Payload::of::<keys::Session>(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::UNAUTHORIZED,
            StatusCode::NOT_FOUND,
            StatusCode::BAD_GATEWAY,
        ]),
        Route::new(GET, &["/users"], Operation::ListUsers, "Every user", people::list_users)
            .least_role(Admin)
            .responds(StatusCode::OK, Payload::of::<keys::Users>(), Debug),
        Route::new(
            POST,
            &["/users"],
            Operation::CreateUser,
            "Add a user (admin; the first one also from the server's own machine while nobody and no token exists)",
            people::create_user,
        )
        .least_role(Admin)
        .changes_nothing()
        .json_body::<UserPostBody>()
        .responds(StatusCode::CREATED, Payload::of::<keys::User>(), Information)
        .errors(&[StatusCode::BAD_REQUEST, StatusCode::FORBIDDEN, StatusCode::CONFLICT]),
        Route::new(GET, &[user], Operation::GetUser, "One user (itself, or any for an admin)", people::get_user)
            .responds(StatusCode::OK, Payload::of::<keys::User>(), Debug)
            .errors(&[StatusCode::FORBIDDEN, StatusCode::NOT_FOUND]),
        Route::new(
            PATCH,
            &[user],
            Operation::UpdateUser,
            "Change a user: its own display_name and password (with current_password), or anything for an admin",
            people::update_user,
        )
        .least_role(Viewer)
        .changes_nothing()
        .json_body::<UserPatchBody>()
        .responds(StatusCode::OK, Payload::of::<keys::User>(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::FORBIDDEN,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
        ]),
        Route::new(
            DELETE,
            &[user],
            Operation::DeleteUser,
            "Delete a user, its keys and its sessions",
            people::delete_user,
        )
        .least_role(Admin)
        .changes_nothing()
        .responds(StatusCode::NO_CONTENT, message(), Information)
        .errors(&[StatusCode::NOT_FOUND, StatusCode::CONFLICT]),
        Route::new(GET, &[keys], Operation::ListApiKeys, "A user's API keys (never their secrets)", people::list_keys)
            .responds(StatusCode::OK, Payload::of::<keys::ApiKeys>(), Debug)
            .errors(&[StatusCode::FORBIDDEN, StatusCode::NOT_FOUND]),
        Route::new(
            POST,
            &[keys],
            Operation::CreateApiKey,
            "Make an API key (role at most its user's): its secret is in this answer only",
            people::create_key,
        )
        .least_role(Viewer)
        .changes_nothing()
        .json_body::<ApiKeyPostBody>()
        .responds(StatusCode::CREATED, Payload::of::<keys::NewApiKey>(), Information)
        .errors(&refusals)
        .errors(&[StatusCode::CONFLICT]),
        Route::new(
            DELETE,
            &["/users/{user_name}/keys/{key_name}"],
            Operation::DeleteApiKey,
            "Revoke an API key at once",
            people::delete_key,
        )
        .least_role(Viewer)
        .changes_nothing()
        .responds(StatusCode::NO_CONTENT, message(), Information)
        .errors(&[StatusCode::FORBIDDEN, StatusCode::NOT_FOUND]),
        Route::new(GET, &["/audit"], Operation::GetAudit, "The audit trail, newest first: sign-ins, keys, users and refused requests", people::audit)
            .least_role(Admin)
            .query::<i64>("before_id", "Only entries older than this id (the next page starts before the last id of this one).")
            .query::<history::LimitParameter>("limit", "The most entries to list, 1 to 1,000 (default 100).")
            .responds(StatusCode::OK, Payload::of::<keys::Audit>(), Debug)
            .errors(&[StatusCode::BAD_REQUEST]),
    ]
}

fn cache_manager() -> Vec<Route> {
    vec![
        Route::new(
            GET,
            &["/cache-manager/{net_name}"],
            Operation::ListCachedDevices,
            "What the network last reported about each device",
            cache::list,
        )
        .responds(StatusCode::OK, Payload::of::<keys::CachedDevices>(), Debug),
        Route::new(
            DELETE,
            &["/cache-manager/{net_name}/{device_key}"],
            Operation::DeleteCachedDevice,
            "Forget what the network reported about one device",
            cache::delete_one,
        )
        .least_role(Operator)
        .responds(StatusCode::OK, message(), Information)
        .errors(&[StatusCode::INTERNAL_SERVER_ERROR]),
        Route::new(
            DELETE,
            &["/cache-manager/{net_name}"],
            Operation::ClearCachedDevices,
            "Forget what the network reported about every device",
            cache::clear,
        )
        .least_role(Operator)
        .responds(StatusCode::OK, message(), Information)
        .errors(&[StatusCode::INTERNAL_SERVER_ERROR]),
    ]
}

fn maximum_tags() -> Vec<Route> {
    let result = || Payload::of::<keys::MaximumTags>();
    vec![
        Route::new(
            POST,
            &["/calculate_maximum_tags"],
            Operation::CalculateMaximumTags,
            "How many tags a network can carry, from parameters",
            max_tags::parameterized,
        )
        .least_role(Viewer)
        .json_body::<CalculateMaximumTagsParameterizedBody>()
        .changes_nothing()
        .responds(StatusCode::OK, result(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            POST,
            &["/nets/{net_name}/calculate_maximum_tags"],
            Operation::CalculateMaximumTagsForRole,
            "How many tags a configuration can carry in one of its tag roles",
            max_tags::for_role,
        )
        .least_role(Viewer)
        .json_body::<CalculateMaximumTagsBody>()
        .changes_nothing()
        .responds(StatusCode::OK, result(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
    ]
}

fn data_streams() -> Vec<Route> {
    let one = || Payload::of::<keys::Stream>();
    let many = || Payload::of::<keys::Streams>();
    vec![
        Route::new(
            POST,
            &[
                "/nets/{net_name}/data-streams",
                "/nets/{net_name}/data_streams",
            ],
            Operation::CreateDataStream,
            "Add a data stream",
            streams::create,
        )
        .json_body::<DataStreamBody>()
        .responds(StatusCode::CREATED, one(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            GET,
            &[
                "/nets/{net_name}/data-streams/{id}",
                "/nets/{net_name}/data_streams/{id}",
            ],
            Operation::GetDataStream,
            "One data stream",
            streams::get,
        )
        .responds(StatusCode::OK, one(), Debug)
        .errors(&[StatusCode::NOT_FOUND]),
        Route::new(
            GET,
            &[
                "/nets/{net_name}/data-streams",
                "/nets/{net_name}/data_streams",
            ],
            Operation::ListDataStreams,
            "The data streams of a configuration",
            streams::list,
        )
        .responds(StatusCode::OK, many(), Debug),
        Route::new(
            GET,
            &["/default-data-streams", "/default_data_streams"],
            Operation::ListDefaultDataStreams,
            "The default data streams with their default values",
            streams::defaults,
        )
        .responds(StatusCode::OK, many(), Debug),
        Route::new(
            PATCH,
            &[
                "/nets/{net_name}/data-streams/{id}",
                "/nets/{net_name}/data_streams/{id}",
            ],
            Operation::UpdateDataStream,
            "Replace a data stream's settings",
            streams::update,
        )
        .json_body::<DataStreamBody>()
        .responds(StatusCode::OK, one(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            DELETE,
            &[
                "/nets/{net_name}/data-streams/{id}",
                "/nets/{net_name}/data_streams/{id}",
            ],
            Operation::DeleteDataStream,
            "Delete a data stream, or reset a default one (Config, Anchor and User cannot go)",
            streams::delete,
        )
        .responds(StatusCode::OK, message(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
        ]),
    ]
}

fn configurations() -> Vec<Route> {
    let one = || Payload::of::<keys::Configuration>();
    vec![
        Route::new(POST, &["/nets"], Operation::CreateConfiguration, "Create a configuration", nets::create)
            .json_body::<NetworkBody>()
            .responds(StatusCode::CREATED, one(), Information)
            .errors(&[StatusCode::BAD_REQUEST, StatusCode::CONFLICT]),
        Route::new(POST, &["/nets/upload"], Operation::UploadConfiguration, "Upload a saved-state file as a new configuration (form field net_file; optional field name)", nets::upload)
            .multipart_body::<UploadForm>()
            .responds(StatusCode::CREATED, one(), Information)
            .errors(&[StatusCode::BAD_REQUEST, StatusCode::CONFLICT]),
        Route::new(POST, &["/nets/{net_name}"], Operation::ConfigurationAction, "Copy, delete, start, stop, restart or reload a configuration", nets::action::<ActionBody>)
            .least_role(Operator)
            .json_body::<ActionBody>()
            // A copy onto a taken name is a 400 (the seed lists no 409 there).
            .conflicts_as_bad_request()
            .responds(StatusCode::OK, Payload::of::<keys::ConfigurationActionStatus>(), Information)
            .errors(&[StatusCode::BAD_REQUEST, StatusCode::NOT_FOUND, StatusCode::CONFLICT]),
        Route::new(GET, &["/nets/{net_name}"], Operation::GetConfiguration, "One configuration", nets::get)
            .responds(StatusCode::OK, one(), Debug)
            .errors(&[StatusCode::NOT_FOUND]),
        Route::new(GET, &["/nets"], Operation::ListConfigurations, "Every configuration", nets::list)
            .responds(StatusCode::OK, Payload::of::<keys::Configurations>(), Debug),
        Route::new(GET, &["/nets/{net_name}/download"], Operation::DownloadConfiguration, "The configuration's saved-state file (SQLite)", nets::download)
            .responds(StatusCode::OK, Payload::File { content_type: "application/vnd.sqlite3" }, Information)
            .errors(&[StatusCode::NOT_FOUND]),
        Route::new(PATCH, &["/nets/{net_name}"], Operation::UpdateConfiguration, "Rename a configuration or change its instance", nets::update)
            .json_body::<NetworkBody>()
            .responds(StatusCode::OK, one(), Information)
            .errors(&[StatusCode::BAD_REQUEST, StatusCode::NOT_FOUND, StatusCode::CONFLICT]),
        Route::new(DELETE, &["/nets/{net_name}"], Operation::DeleteConfiguration, "Delete a configuration (stopping it first)", nets::delete)
            .responds(StatusCode::NO_CONTENT, message(), Information),
    ]
}

fn device_commands() -> Vec<Route> {
    let status = || Payload::of::<keys::CommandStatus>();
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/devices/{device_key}/action"],
            Operation::DeviceAction,
            "Send an action to a device of a running configuration",
            commands::one,
        )
        .least_role(Operator)
        .json_body::<netcfg_model::DeviceAction>()
        .changes_nothing()
        .responds(StatusCode::OK, status(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::GATEWAY_TIMEOUT,
        ]),
        Route::new(
            POST,
            &["/nets/{net_name}/devices/action"],
            Operation::MultiDeviceAction,
            "Send an action to several devices of a running configuration",
            commands::many,
        )
        .least_role(Operator)
        .json_body::<MultiDeviceCommandBody>()
        // Some devices failing is a success at level 2 (decisions.md §4).
        .changes_nothing()
        .responds_partly(StatusCode::OK, status(), Information, Warning)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::GATEWAY_TIMEOUT,
        ]),
    ]
}

fn devices() -> Vec<Route> {
    let one = || Payload::of::<keys::Device>();
    let unconfigured = || Payload::of::<keys::UnconfiguredDevices>();
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/devices"],
            Operation::CreateDevice,
            "Add a device",
            devices::create,
        )
        .json_body::<DeviceBody>()
        .responds(StatusCode::CREATED, one(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            GET,
            &["/nets/{net_name}/devices/{device_key}"],
            Operation::GetDevice,
            "One device, by serial number or id",
            devices::get,
        )
        .responds(StatusCode::OK, one(), Debug)
        .errors(&[StatusCode::NOT_FOUND]),
        Route::new(
            GET,
            &["/nets/{net_name}/devices"],
            Operation::ListDevices,
            "The devices of a configuration",
            devices::list,
        )
        .responds(StatusCode::OK, Payload::of::<keys::Devices>(), Debug),
        Route::new(
            GET,
            &["/nets/{net_name}/unconfigured_devices"],
            Operation::ListUnconfiguredDevicesOfConfiguration,
            "Devices the configuration's network hears that it does not hold",
            devices::unconfigured_of_net,
        )
        .responds(StatusCode::OK, unconfigured(), Debug),
        Route::new(
            GET,
            &["/unconfigured_devices"],
            Operation::ListUnconfiguredDevices,
            "Devices any running network hears that its configuration does not hold",
            devices::unconfigured,
        )
        .responds(StatusCode::OK, unconfigured(), Debug),
        Route::new(
            PATCH,
            &["/nets/{net_name}/devices/{device_key}"],
            Operation::UpdateDevice,
            "Replace a device's settings",
            devices::update,
        )
        .json_body::<DeviceBody>()
        .responds(StatusCode::OK, one(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            PATCH,
            &["/nets/{net_name}/devices"],
            Operation::UpdateDevices,
            "Replace the settings of one device (device_body) or several (an array)",
            devices::update_many,
        )
        .json_body::<DevicesPatchBody>()
        .responds(
            StatusCode::OK,
            Payload::of::<keys::DeviceOrDevices>(),
            Information,
        )
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            DELETE,
            &["/nets/{net_name}/devices/{device_key}"],
            Operation::DeleteDevice,
            "Delete a device",
            devices::delete,
        )
        .responds(StatusCode::OK, message(), Information)
        .errors(&[StatusCode::NOT_FOUND]),
        Route::new(
            DELETE,
            &["/nets/{net_name}/devices"],
            Operation::DeleteDevices,
            "Delete several devices, or all",
            devices::delete_many,
        )
        .json_body::<MultipleDeviceDeleteBody>()
        .responds(StatusCode::OK, message(), Information)
        .errors(&[StatusCode::NOT_FOUND]),
    ]
}

fn device_pairs() -> Vec<Route> {
    let pairs = || Payload::of::<keys::Pairs>();
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/device_pairs"],
            Operation::CreateDevicePairs,
            "Pair devices (201 all created, 206 some, 409 all existed, 417 none could be)",
            pairs::create,
        )
        .json_body::<DevicePairsBody>()
        .responds(StatusCode::CREATED, message(), Information)
        .responds(StatusCode::PARTIAL_CONTENT, message(), Warning)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::CONFLICT,
            StatusCode::EXPECTATION_FAILED,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            GET,
            &["/nets/{net_name}/device_pairs/{serial_number}"],
            Operation::ListDevicePairsOfDevice,
            "The pairs of one device",
            pairs::of_device,
        )
        .responds(StatusCode::OK, pairs(), Debug),
        Route::new(
            GET,
            &["/nets/{net_name}/device_pairs"],
            Operation::ListDevicePairs,
            "Every pair of a configuration",
            pairs::list,
        )
        .responds(StatusCode::OK, pairs(), Debug),
        Route::new(
            DELETE,
            &["/nets/{net_name}/device_pairs"],
            Operation::DeleteDevicePairs,
            "Unpair devices (200 all deleted, 206 some, 417 none existed)",
            pairs::delete,
        )
        .json_body::<DevicePairsBody>()
        .responds(StatusCode::OK, message(), Information)
        .responds(StatusCode::PARTIAL_CONTENT, message(), Warning)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::CONFLICT,
            StatusCode::EXPECTATION_FAILED,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
    ]
}

fn group_image() -> Vec<Route> {
    let image = || Payload::of::<keys::GroupImages>();
    vec![
        Route::new(
            GET,
            &["/nets/{net_name}/group_image"],
            Operation::GetGroupImage,
            "The firmware bundle devices are updated to",
            misc::get_group_image,
        )
        .responds(StatusCode::OK, image(), Information)
        .errors(&[StatusCode::NOT_FOUND]),
        Route::new(
            PATCH,
            &["/nets/{net_name}/group_image"],
            Operation::UpdateGroupImage,
            "Set the firmware bundle devices are updated to",
            misc::update_group_image,
        )
        .json_body::<GroupImagePatchBody>()
        .responds(StatusCode::OK, image(), Information)
        .errors(&[StatusCode::NOT_FOUND, StatusCode::INTERNAL_SERVER_ERROR]),
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
            Operation::GetInterface,
            "One interface of a device",
            interfaces::get,
        )
        .responds(StatusCode::OK, Payload::of::<keys::Interface>(), Debug)
        .errors(&[StatusCode::NOT_FOUND]),
        Route::new(
            GET,
            &["/nets/{net_name}/devices/{device_key}/interfaces"],
            Operation::ListInterfaces,
            "The interfaces of a device",
            interfaces::list,
        )
        .responds(
            StatusCode::OK,
            Payload::of::<keys::Interfaces>(),
            Information,
        )
        .errors(&[StatusCode::NOT_FOUND]),
        Route::new(
            DELETE,
            &INTERFACE_PATHS,
            Operation::DeleteInterface,
            "Delete an interface of a device (not its last)",
            interfaces::delete,
        )
        .responds(StatusCode::OK, message(), Information)
        .errors(&[StatusCode::NOT_FOUND, StatusCode::CONFLICT]),
    ]
}

fn logs() -> Vec<Route> {
    vec![
        Route::new(
            GET,
            &["/nets/{net_name}/log_messages"],
            Operation::GetLogMessages,
            "The latest log lines of a configuration",
            logs::messages,
        )
        .responds(StatusCode::OK, Payload::of::<keys::LogMessages>(), Debug),
        Route::new(
            GET,
            &["/nets/{net_name}/logs"],
            Operation::ListLogFiles,
            "The log files of a configuration",
            logs::list,
        )
        .responds(StatusCode::OK, Payload::of::<keys::Logs>(), Debug),
        Route::new(
            GET,
            &["/nets/{net_name}/logs/{log_file_name}"],
            Operation::GetLogFile,
            "One log file",
            logs::file,
        )
        .responds(
            StatusCode::OK,
            Payload::File {
                content_type: "text/plain; charset=utf-8",
            },
            Debug,
        )
        .errors(&[StatusCode::NOT_FOUND]),
    ]
}

fn magnetometer() -> Vec<Route> {
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/devices/{device_key}/set_magnetometer_calibration"],
            Operation::SetMagnetometerCalibration,
            "Set a device's magnetometer calibration",
            misc::set_magnetometer_calibration,
        )
        .json_body::<MagnetometerCalibrationBody>()
        .responds(
            StatusCode::CREATED,
            Payload::of::<keys::MagnetometerCalibration>(),
            Information,
        )
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
    ]
}

fn host() -> Vec<Route> {
    vec![
        Route::new(
            GET,
            &["/network-info"],
            Operation::GetNetworkInfo,
            "The host's network interfaces",
            misc::network_info,
        )
        .responds(
            StatusCode::OK,
            Payload::of::<keys::NetworkInterfaces>(),
            Information,
        ),
        Route::new(
            GET,
            &["/packages"],
            Operation::GetPackages,
            "The installed components and their versions (404 when one is missing)",
            misc::packages,
        )
        .responds(StatusCode::OK, Payload::of::<keys::Packages>(), Debug)
        .responds(
            StatusCode::NOT_FOUND,
            Payload::of::<keys::Packages>(),
            Error,
        ),
    ]
}

fn notifications() -> Vec<Route> {
    let one = || Payload::of::<keys::Notification>();
    let many = || Payload::of::<keys::Notifications>();
    vec![
        Route::new(
            GET,
            &["/nets/{net_name}/notifications/{identifier}"],
            Operation::GetNotification,
            "One notification",
            notifications::get,
        )
        .responds(StatusCode::OK, one(), Debug)
        .errors(&[StatusCode::NOT_FOUND]),
        Route::new(
            GET,
            &["/nets/{net_name}/notifications"],
            Operation::ListNotifications,
            "Every notification of a configuration",
            notifications::list,
        )
        .responds(StatusCode::OK, many(), Debug),
        Route::new(
            GET,
            &["/nets/{net_name}/notifications_count"],
            Operation::CountNotifications,
            "The number of unread notifications",
            notifications::unread,
        )
        .responds(StatusCode::OK, Payload::of::<keys::Count>(), Debug),
        Route::new(
            PATCH,
            &["/nets/{net_name}/notifications/{identifier}"],
            Operation::UpdateNotification,
            "Mark a notification read or unread",
            notifications::update,
        )
        .least_role(Operator)
        .json_body::<NotificationPatchBody>()
        .responds(StatusCode::OK, one(), Information)
        .errors(&[StatusCode::NOT_FOUND]),
        Route::new(
            PATCH,
            &["/nets/{net_name}/notifications"],
            Operation::UpdateNotifications,
            "Mark every notification read or unread",
            notifications::update_all,
        )
        .least_role(Operator)
        .json_body::<NotificationPatchBody>()
        .responds(StatusCode::OK, many(), Information),
    ]
}

/// The change history and restore (decisions §10): 5.1 only.
fn history() -> Vec<Route> {
    vec![
        Route::new(
            GET,
            &["/nets/{net_name}/history"],
            Operation::ListHistory,
            "The changes made to a configuration, newest first",
            history::list,
        )
        .query::<history::BeforeParameter>(
            "before",
            "Only changes older than this id (the next page starts before the last id of this one).",
        )
        .query::<history::LimitParameter>(
            "limit",
            "The most changes to list, 1 to 1,000 (default 100).",
        )
        .responds(
            StatusCode::OK,
            Payload::of::<keys::History>(),
            Debug,
        )
        .errors(&[StatusCode::BAD_REQUEST, StatusCode::NOT_FOUND]),
        Route::new(
            POST,
            &["/nets/{net_name}/history/{id}/restore"],
            Operation::RestoreHistory,
            "Restore a configuration to what it was right after one of its changes (not while it runs)",
            history::restore,
        )
        .responds(
            StatusCode::OK,
            Payload::of::<keys::Configuration>(),
            Information,
        )
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
    ]
}

/// Live events (decisions §8): 5.1 only.
fn events() -> Vec<Route> {
    let stream = || Payload::Events {
        schema: crate::events::data::stream_schema,
    };
    let with_parameters = |route: Route| {
        route
            .query::<String>(
                "types",
                "The events to send, comma-separated (notification, state, device, position, change, resync); all when absent.",
            )
            .query::<u32>(
                "max_rate",
                "The most position batches a second, 1 to 100 (default 10).",
            )
            .query::<crate::events::data::PositionForm>(
                "positions",
                "How position batches are written: `objects` (the default: one object per tag, each field named) or `compact` (one array per tag, the fields in the batch's `columns` order: about half the bytes).",
            )
            .header::<String>(
                "Last-Event-ID",
                "Resume after this notification (its `id:`): the notifications since are sent first.",
            )
            .responds(StatusCode::OK, stream(), Debug)
    };
    vec![
        with_parameters(Route::new(
            GET,
            &["/events"],
            Operation::StreamEvents,
            "Live events of every configuration (Server-Sent Events)",
            events::all,
        )),
        with_parameters(Route::new(
            GET,
            &["/nets/{net_name}/events"],
            Operation::StreamConfigurationEvents,
            "Live events of one configuration (Server-Sent Events)",
            events::of_net,
        ))
        .errors(&[StatusCode::NOT_FOUND]),
    ]
}

fn operating_modes() -> Vec<Route> {
    vec![
        Route::new(
            GET,
            &["/network_modes"],
            Operation::ListNetworkModes,
            "The operating modes",
            misc::network_modes,
        )
        .responds(StatusCode::OK, Payload::of::<keys::NetworkModes>(), Debug),
        Route::new(
            PATCH,
            &["/nets/{net_name}/network_mode"],
            Operation::UpdateNetworkMode,
            "Change a configuration's operating mode (not while it runs)",
            misc::update_network_mode,
        )
        .json_body::<OperatingModePatchBody>()
        .responds(
            StatusCode::OK,
            Payload::of::<keys::NetworkMode>(),
            Information,
        )
        .errors(&[
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
    ]
}

fn position_limits() -> Vec<Route> {
    let one = || Payload::of::<keys::PositionLimit>();
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/position_limits"],
            Operation::CreatePositionLimit,
            "Add a bounding box",
            limits::create,
        )
        .json_body::<PositionLimitsPostBody>()
        .responds(StatusCode::OK, one(), Information)
        .errors(&[StatusCode::BAD_REQUEST, StatusCode::CONFLICT]),
        Route::new(
            GET,
            &["/nets/{net_name}/position_limits/{id}"],
            Operation::GetPositionLimit,
            "One bounding box",
            limits::get::<IdPath>,
        )
        .responds(StatusCode::OK, one(), Debug)
        .errors(&[StatusCode::NOT_FOUND]),
        Route::new(
            GET,
            &["/nets/{net_name}/position_limits"],
            Operation::ListPositionLimits,
            "The bounding boxes of a configuration",
            limits::list,
        )
        .responds(StatusCode::OK, Payload::of::<keys::PositionLimits>(), Debug),
        Route::new(
            PATCH,
            &["/nets/{net_name}/position_limits/{id}"],
            Operation::UpdatePositionLimit,
            "Change a bounding box",
            limits::update::<IdPath>,
        )
        .json_body::<PositionLimitsPatchBody>()
        .responds(StatusCode::OK, one(), Information)
        .errors(&[
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            DELETE,
            &["/nets/{net_name}/position_limits/{id}"],
            Operation::DeletePositionLimit,
            "Delete a bounding box",
            limits::delete::<IdPath>,
        )
        .responds(StatusCode::OK, message(), Information)
        .errors(&[StatusCode::NOT_FOUND]),
    ]
}

/// Alert rules (decisions §16): 5.1 only.
fn alert_rules() -> Vec<Route> {
    let one = || Payload::of::<keys::AlertRule>();
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/alert_rules"],
            Operation::CreateAlertRule,
            "Add an alert rule: a condition that raises a notification when it has held for a while",
            alert_rules::create,
        )
        .json_body::<AlertRulePostBody>()
        .responds(StatusCode::CREATED, one(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            GET,
            &["/nets/{net_name}/alert_rules/{rule_name}"],
            Operation::GetAlertRule,
            "One alert rule",
            alert_rules::get,
        )
        .responds(StatusCode::OK, one(), Debug)
        .errors(&[StatusCode::NOT_FOUND]),
        Route::new(
            GET,
            &["/nets/{net_name}/alert_rules"],
            Operation::ListAlertRules,
            "The alert rules of a configuration",
            alert_rules::list,
        )
        .responds(StatusCode::OK, Payload::of::<keys::AlertRules>(), Debug),
        Route::new(
            GET,
            &["/nets/{net_name}/alerts"],
            Operation::ListAlerts,
            "The alert rules that fire now (none while the configuration does not run), each with its device and since when",
            alert_rules::firing,
        )
        .responds(StatusCode::OK, Payload::of::<keys::Alerts>(), Debug),
        Route::new(
            PATCH,
            &["/nets/{net_name}/alert_rules/{rule_name}"],
            Operation::UpdateAlertRule,
            "Change an alert rule (a new condition takes its threshold from the body)",
            alert_rules::update,
        )
        .json_body::<AlertRulePatchBody>()
        .responds(StatusCode::OK, one(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            DELETE,
            &["/nets/{net_name}/alert_rules/{rule_name}"],
            Operation::DeleteAlertRule,
            "Delete an alert rule",
            alert_rules::delete,
        )
        .responds(StatusCode::NO_CONTENT, message(), Information)
        .errors(&[StatusCode::NOT_FOUND, StatusCode::INTERNAL_SERVER_ERROR]),
    ]
}

/// Zones (decisions §13): 5.1 only.
fn zones() -> Vec<Route> {
    let one = || Payload::of::<keys::Zone>();
    let path = "/nets/{net_name}/zones/{zone_name}";
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/zones"],
            Operation::CreateZone,
            "Add a zone: an area whose enters and exits are told",
            zones::create,
        )
        .json_body::<ZonePostBody>()
        .responds(StatusCode::CREATED, one(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(GET, &[path], Operation::GetZone, "One zone", zones::get)
            .responds(StatusCode::OK, one(), Debug)
            .errors(&[StatusCode::NOT_FOUND]),
        Route::new(
            GET,
            &["/nets/{net_name}/zones"],
            Operation::ListZones,
            "The zones of a configuration",
            zones::list,
        )
        .responds(StatusCode::OK, Payload::of::<keys::Zones>(), Debug),
        Route::new(
            PATCH,
            &[path],
            Operation::UpdateZone,
            "Change a zone (null clears a field)",
            zones::update,
        )
        .json_body::<ZonePatchBody>()
        .responds(StatusCode::OK, one(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            DELETE,
            &[path],
            Operation::DeleteZone,
            "Delete a zone",
            zones::delete,
        )
        .responds(StatusCode::NO_CONTENT, message(), Information)
        .errors(&[StatusCode::NOT_FOUND, StatusCode::INTERNAL_SERVER_ERROR]),
        Route::new(
            GET,
            &["/nets/{net_name}/zones/{zone_name}/occupancy"],
            Operation::GetZoneOccupancy,
            "The tags inside a zone now, each since its enter (409 while the configuration does not run)",
            zones::occupancy,
        )
        .responds(StatusCode::OK, Payload::of::<keys::Occupancy>(), Debug)
        .errors(&[StatusCode::NOT_FOUND, StatusCode::CONFLICT]),
    ]
}

/// Outputs (decisions §14): 5.1 only.
fn outputs() -> Vec<Route> {
    let one = || Payload::of::<keys::Output>();
    let path = "/nets/{net_name}/outputs/{output_name}";
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/outputs"],
            Operation::CreateOutput,
            "Add an output: an MQTT broker or a webhook that the running configuration's events go to (username, password and secret are write-only)",
            outputs::create,
        )
        .json_body::<OutputPostBody>()
        .responds(StatusCode::CREATED, one(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            GET,
            &[path],
            Operation::GetOutput,
            "One output (never its credentials: only whether each is set)",
            outputs::get,
        )
        .responds(StatusCode::OK, one(), Debug)
        .errors(&[StatusCode::NOT_FOUND]),
        Route::new(
            GET,
            &["/nets/{net_name}/outputs"],
            Operation::ListOutputs,
            "The outputs of a configuration",
            outputs::list,
        )
        .responds(StatusCode::OK, Payload::of::<keys::Outputs>(), Debug),
        Route::new(
            PATCH,
            &[path],
            Operation::UpdateOutput,
            "Change an output (null clears topic_prefix, ca_file, username, password); a running one reconnects",
            outputs::update,
        )
        .json_body::<OutputPatchBody>()
        .responds(StatusCode::OK, one(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            DELETE,
            &[path],
            Operation::DeleteOutput,
            "Delete an output and its credentials",
            outputs::delete,
        )
        .responds(StatusCode::NO_CONTENT, message(), Information)
        .errors(&[StatusCode::NOT_FOUND, StatusCode::INTERNAL_SERVER_ERROR]),
        Route::new(
            GET,
            &["/nets/{net_name}/outputs/{output_name}/status"],
            Operation::GetOutputStatus,
            "How an output fares: running, connected, messages sent, queued and dropped, its last error",
            outputs::status,
        )
        .responds(StatusCode::OK, Payload::of::<keys::OutputStatus>(), Debug)
        .errors(&[StatusCode::NOT_FOUND]),
    ]
}

/// Recordings and replays (decisions §15): 5.1 only.
fn recordings() -> Vec<Route> {
    let one = || Payload::of::<keys::Recording>();
    let path = "/nets/{net_name}/recordings/{recording_name}";
    let replay = "/nets/{net_name}/replay";
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/recordings"],
            Operation::StartRecording,
            "Record the running configuration's data streams, every datagram as sent, to a pcap file (optional name and duration_s)",
            recordings::start,
        )
        .least_role(Operator)
        .json_body::<RecordingPostBody>()
        .responds(StatusCode::CREATED, one(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            GET,
            &["/nets/{net_name}/recordings"],
            Operation::ListRecordings,
            "The configuration's recordings: size, start, duration, datagrams, whether each is still recording",
            recordings::list,
        )
        .responds(StatusCode::OK, Payload::of::<keys::Recordings>(), Debug)
        .errors(&[StatusCode::NOT_FOUND]),
        Route::new(GET, &[path], Operation::GetRecording, "One recording", recordings::get)
            .responds(StatusCode::OK, one(), Debug)
            .errors(&[StatusCode::NOT_FOUND]),
        Route::new(
            DELETE,
            &[path],
            Operation::DeleteRecording,
            "Stop a recording (200, the file kept) or delete a stopped one (204)",
            recordings::delete,
        )
        .least_role(Operator)
        .responds(StatusCode::OK, one(), Information)
        .responds(StatusCode::NO_CONTENT, message(), Information)
        .errors(&[StatusCode::NOT_FOUND, StatusCode::INTERNAL_SERVER_ERROR]),
        Route::new(
            GET,
            &["/nets/{net_name}/recordings/{recording_name}/download"],
            Operation::DownloadRecording,
            "The recording's capture file (classic pcap, raw IP: Wireshark and tcpdump open it)",
            recordings::download,
        )
        .responds(StatusCode::OK, Payload::File { content_type: PCAP }, Information)
        .errors(&[StatusCode::NOT_FOUND]),
        Route::new(
            PUT,
            &[path],
            Operation::UploadRecording,
            "Upload a pcap capture of CDP datagrams (made elsewhere, or by another netcfg) as a recording, to replay it",
            recordings::upload,
        )
        .least_role(Operator)
        .file_body(PCAP)
        .responds(StatusCode::CREATED, one(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::PAYLOAD_TOO_LARGE,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            GET,
            &[replay],
            Operation::GetReplay,
            "Where the running replay stands: position, duration, speed, paused, loop",
            recordings::replay,
        )
        .responds(StatusCode::OK, Payload::of::<keys::Replay>(), Debug)
        .errors(&[StatusCode::NOT_FOUND, StatusCode::CONFLICT]),
        Route::new(
            PATCH,
            &[replay],
            Operation::ControlReplay,
            "Pause, resume, change the speed (0.1 to 50), loop or seek (position_ms) the running replay",
            recordings::control,
        )
        .least_role(Operator)
        .json_body::<ReplayPatchBody>()
        .responds(StatusCode::OK, Payload::of::<keys::Replay>(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
        ]),
    ]
}

/// The media type of a capture file.
const PCAP: &str = "application/vnd.tcpdump.pcap";

/// How well a site locates (decisions §12): 5.1 only.
fn site() -> Vec<Route> {
    vec![
        Route::new(
            GET,
            &["/nets/{net_name}/accuracy"],
            Operation::GetAccuracy,
            "The tags' errors since the start, tracked and per fix: each reference tag against its configured position and, on a simulator, every other tag against its true path (mean, RMS, 95th percentile, largest, and how often a position was within its own error estimate)",
            site::accuracy,
        )
        .responds(StatusCode::OK, Payload::of::<keys::Accuracy>(), Debug)
        .errors(&[StatusCode::NOT_FOUND, StatusCode::CONFLICT]),
        Route::new(
            GET,
            &["/nets/{net_name}/positions"],
            Operation::GetPositions,
            "The last position of every located tag of a running configuration, with its velocity when tracked and its age",
            site::positions,
        )
        .query::<netcfg_model::SerialNumber>(
            "serial_number",
            "Only this tag: an empty list while it is not located.",
        )
        .responds(StatusCode::OK, Payload::of::<keys::Positions>(), Debug)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
        ]),
        Route::new(
            GET,
            &["/nets/{net_name}/coverage"],
            Operation::GetCoverage,
            "The 95% horizontal error the anchors' geometry predicts over a grid (the Cramér–Rao bound), and how many anchors are in range of each cell",
            site::coverage,
        )
        .query::<site::CoverageHeight>("z", "The tags' height, mm (default 1,000).")
        .query::<site::CoverageResolution>(
            "resolution_mm",
            "The grid's cell size, 50 to 10,000 mm (default 500).",
        )
        .query::<site::CoverageNoise>(
            "toa_noise_mm",
            "The timing noise of one measurement (σ), above 0 to 10,000 mm (default 30).",
        )
        .query::<site::CoverageRange>(
            "range_mm",
            "The hearing range, above 0 to 1,000,000 mm (default 40,000).",
        )
        .responds(StatusCode::OK, Payload::of::<keys::Coverage>(), Debug)
        .errors(&[StatusCode::BAD_REQUEST, StatusCode::NOT_FOUND]),
        Route::new(
            POST,
            &["/nets/{net_name}/survey"],
            Operation::RunSurvey,
            "Make the anchors and seeders range each other and judge their configured positions",
            site::run_survey,
        )
        .least_role(Operator)
        .responds(StatusCode::OK, Payload::of::<keys::Survey>(), Information)
        .errors(&[
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            GET,
            &["/nets/{net_name}/survey"],
            Operation::GetSurvey,
            "The last survey of the anchors",
            site::last_survey,
        )
        .responds(StatusCode::OK, Payload::of::<keys::Survey>(), Debug)
        .errors(&[StatusCode::NOT_FOUND]),
    ]
}

/// Schedules (decisions §16): 5.1 only.
fn schedules() -> Vec<Route> {
    let one = || Payload::of::<keys::Schedule>();
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/schedules"],
            Operation::CreateSchedule,
            "Add a schedule: a cron expression, in an IANA time zone, that starts, stops, restarts or reloads the network",
            schedules::create,
        )
        .json_body::<SchedulePostBody>()
        .responds(StatusCode::CREATED, one(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            GET,
            &["/nets/{net_name}/schedules/{schedule_name}"],
            Operation::GetSchedule,
            "One schedule, with its next run and its last",
            schedules::get,
        )
        .responds(StatusCode::OK, one(), Debug)
        .errors(&[StatusCode::NOT_FOUND]),
        Route::new(
            GET,
            &["/nets/{net_name}/schedules"],
            Operation::ListSchedules,
            "The schedules of a configuration, each with its next run and its last",
            schedules::list,
        )
        .responds(StatusCode::OK, Payload::of::<keys::Schedules>(), Debug),
        Route::new(
            PATCH,
            &["/nets/{net_name}/schedules/{schedule_name}"],
            Operation::UpdateSchedule,
            "Change a schedule (a new cron expression, time zone or enabling counts its runs from now)",
            schedules::update,
        )
        .json_body::<SchedulePatchBody>()
        .responds(StatusCode::OK, one(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            DELETE,
            &["/nets/{net_name}/schedules/{schedule_name}"],
            Operation::DeleteSchedule,
            "Delete a schedule",
            schedules::delete,
        )
        .responds(StatusCode::NO_CONTENT, message(), Information)
        .errors(&[StatusCode::NOT_FOUND, StatusCode::INTERNAL_SERVER_ERROR]),
    ]
}

fn rf_settings() -> Vec<Route> {
    let one = || Payload::of::<keys::RfSetting>();
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/rf_settings"],
            Operation::CreateRfSetting,
            "Add a named RF setting",
            rf::create,
        )
        .json_body::<RfSettingsPostBody>()
        .responds(StatusCode::OK, one(), Information)
        .errors(&[StatusCode::BAD_REQUEST, StatusCode::CONFLICT]),
        Route::new(
            PATCH,
            &["/nets/{net_name}/rf_settings/{name}"],
            Operation::UpdateRfSetting,
            "Change an RF setting (not while the configuration runs)",
            rf::update,
        )
        .json_body::<RfSettingsPatchBody>()
        .responds(StatusCode::OK, one(), Information)
        .errors(&[
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            GET,
            &["/nets/{net_name}/rf_settings/{name}"],
            Operation::GetRfSetting,
            "One RF setting",
            rf::get,
        )
        .responds(StatusCode::OK, one(), Debug)
        .errors(&[StatusCode::NOT_FOUND]),
        Route::new(
            GET,
            &["/nets/{net_name}/rf_settings"],
            Operation::ListRfSettings,
            "The RF settings of a configuration",
            rf::list,
        )
        .responds(StatusCode::OK, Payload::of::<keys::RfSettings>(), Debug),
        Route::new(
            DELETE,
            &["/nets/{net_name}/rf_settings/{name}"],
            Operation::DeleteRfSetting,
            "Delete an RF setting (not `default`, not one in use)",
            rf::delete,
        )
        .responds(StatusCode::NO_CONTENT, message(), Information)
        .errors(&[StatusCode::NOT_FOUND, StatusCode::CONFLICT]),
    ]
}

fn roles() -> Vec<Route> {
    let one = || Payload::of::<keys::Role>();
    vec![
        Route::new(
            POST,
            &["/nets/{net_name}/roles"],
            Operation::CreateRole,
            "Add a custom tag role",
            roles::create,
        )
        .json_body::<RolePostBody>()
        .responds(StatusCode::CREATED, one(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            GET,
            &["/nets/{net_name}/roles/{role_id}"],
            Operation::GetRole,
            "One role",
            roles::get,
        )
        .responds(StatusCode::OK, one(), Debug)
        .errors(&[StatusCode::NOT_FOUND]),
        Route::new(
            GET,
            &["/nets/{net_name}/roles"],
            Operation::ListRoles,
            "The roles of a configuration",
            roles::list,
        )
        .responds(StatusCode::OK, Payload::of::<keys::Roles>(), Debug),
        Route::new(
            PATCH,
            &["/nets/{net_name}/roles/{role_id}"],
            Operation::UpdateRole,
            "Change a role",
            roles::update,
        )
        .json_body::<RolePatchBody>()
        .responds(StatusCode::OK, one(), Information)
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
        Route::new(
            DELETE,
            &["/nets/{net_name}/roles/{role_id}"],
            Operation::DeleteRole,
            "Delete a custom role that no interface uses",
            roles::delete,
        )
        .responds(StatusCode::NO_CONTENT, message(), Information)
        .errors(&[StatusCode::NOT_FOUND, StatusCode::CONFLICT]),
    ]
}

fn settings() -> Vec<Route> {
    let one = || Payload::of::<keys::SettingOrSettings>();
    let many = || Payload::of::<keys::Settings>();
    vec![
        Route::new(
            POST,
            &[
                "/nets/{net_name}/settings",
                "/nets/{net_name}/settings/{setting_class}/{setting_id}",
            ],
            Operation::CreateSetting,
            "Add settings (a key that exists is a conflict)",
            settings::create,
        )
        .json_body::<SettingsBody>()
        .responds(StatusCode::OK, one(), Information)
        .errors(&[StatusCode::CONFLICT, StatusCode::INTERNAL_SERVER_ERROR]),
        Route::new(
            GET,
            &[
                "/nets/{net_name}/settings/{key}",
                "/nets/{net_name}/settings/{setting_class}/{setting_id}/{key}",
            ],
            Operation::GetSetting,
            "One setting",
            settings::get,
        )
        .responds(StatusCode::OK, Payload::of::<keys::Setting>(), Debug)
        .responds(StatusCode::NOT_FOUND, message(), Debug)
        .responds(StatusCode::CONFLICT, message(), Debug),
        Route::new(
            GET,
            &[
                "/nets/{net_name}/settings",
                "/nets/{net_name}/settings/{setting_class}/{setting_id}",
            ],
            Operation::ListSettings,
            "The settings of a configuration",
            settings::list,
        )
        .responds(StatusCode::OK, many(), Debug)
        .errors(&[StatusCode::CONFLICT]),
        Route::new(
            PUT,
            &[
                "/nets/{net_name}/settings",
                "/nets/{net_name}/settings/{setting_class}/{setting_id}",
            ],
            Operation::ReplaceSettings,
            "Replace the settings of the scope with the body's (known keys left out return to their defaults)",
            settings::put,
        )
        .json_body::<SettingsBody>()
        .responds(StatusCode::OK, many(), Information)
        .errors(&[StatusCode::CONFLICT, StatusCode::INTERNAL_SERVER_ERROR]),
        Route::new(
            PATCH,
            &[
                "/nets/{net_name}/settings",
                "/nets/{net_name}/settings/{setting_class}/{setting_id}",
            ],
            Operation::UpdateSettings,
            "Change settings that exist (404 for a key that does not)",
            settings::patch,
        )
        .json_body::<SettingsBody>()
        .responds(StatusCode::OK, many(), Information)
        .errors(&[StatusCode::NOT_FOUND, StatusCode::CONFLICT, StatusCode::INTERNAL_SERVER_ERROR]),
        Route::new(
            DELETE,
            &[
                "/nets/{net_name}/settings/{key}",
                "/nets/{net_name}/settings/{setting_class}/{setting_id}/{key}",
            ],
            Operation::DeleteSetting,
            "Delete a setting (a catalogue key returns to its default)",
            settings::delete,
        )
        .responds(StatusCode::OK, message(), Information)
        .errors(&[StatusCode::NOT_FOUND, StatusCode::CONFLICT]),
    ]
}

fn default_settings() -> Vec<Route> {
    vec![
        Route::new(
            GET,
            &["/default-settings/{key}", "/default_settings/{key}"],
            Operation::GetDefaultSetting,
            "One known setting with its default, type and description",
            settings::get_default,
        )
        .responds(StatusCode::OK, Payload::of::<keys::DefaultSetting>(), Debug)
        .errors(&[StatusCode::NOT_FOUND]),
        Route::new(
            GET,
            &["/default-settings", "/default_settings"],
            Operation::ListDefaultSettings,
            "The known settings with their defaults, types and descriptions",
            settings::list_defaults,
        )
        .responds(
            StatusCode::OK,
            Payload::of::<keys::DefaultSettings>(),
            Debug,
        ),
    ]
}
