//! The 5.0 route table: the 5.1 rows with the seed's "Differences in 5.0"
//! applied, one change per item of that list. Handlers are shared: a 5.0
//! row that differs only in its statuses names the same handler.

use actix_web::http::{Method, StatusCode};
use netcfg_model::{Level::*, body::*};

use crate::{
    handlers::*,
    operation::Operation,
    path::NamePath,
    payload::keys,
    table::{Change, Declared, Payload, Route},
};

/// A status the 5.0 row answers instead of the one the handler gives.
fn remap(operation: Operation, from: StatusCode, to: StatusCode) -> Change {
    Change::Remap {
        operation,
        from,
        to: Declared {
            status: to,
            payload: Payload::Message,
            level: Information,
            partial_level: None,
        },
    }
}

fn undeclare(operation: Operation, status: StatusCode) -> Change {
    Change::Undeclare { operation, status }
}

/// A 5.0 row that lists no 409: a conflict (a name taken, a built-in item,
/// a change a running network cannot take) answers 400, an invalid request,
/// as `copy` onto a taken name does (`ApiError::conflict_as_invalid`).
fn conflict_as_bad_request(operation: Operation) -> Change {
    Change::Remap {
        operation,
        from: StatusCode::CONFLICT,
        to: Declared {
            status: StatusCode::BAD_REQUEST,
            payload: Payload::Message,
            level: Error,
            partial_level: None,
        },
    }
}

/// The 5.0 paths of one interface's roles, in both spellings.
const INTERFACE_ROLES: [&str; 2] = [
    "/nets/{net_name}/devices/{device_key}-{interface_identifier}/roles",
    "/nets/{net_name}/devices/{device_key}/interfaces/{interface_identifier}/roles",
];
const INTERFACE_ROLE: [&str; 2] = [
    "/nets/{net_name}/devices/{device_key}-{interface_identifier}/roles/{role_id}",
    "/nets/{net_name}/devices/{device_key}/interfaces/{interface_identifier}/roles/{role_id}",
];

/// The seed's differences, in its order (1, "no classification level", is
/// the envelope's, not a row's).
pub(crate) fn changes() -> Vec<Change> {
    let mut changes = Vec::new();
    // 2. Absent in 5.0.
    for operation in [
        Operation::ListCachedDevices,
        Operation::DeleteCachedDevice,
        Operation::ClearCachedDevices,
        Operation::ListDefaultDataStreams,
        Operation::MultiDeviceAction,
        Operation::CreateDevicePairs,
        Operation::ListDevicePairsOfDevice,
        Operation::ListDevicePairs,
        Operation::DeleteDevicePairs,
        Operation::ListLogFiles,
        Operation::GetLogFile,
        Operation::GetNetworkInfo,
        Operation::GetNotification,
        Operation::CountNotifications,
        Operation::UpdateNotification,
        // 3. Notifications: only GET .../notification remains.
        Operation::ListNotifications,
        Operation::UpdateNotifications,
        // Live events are 5.1's (decisions §8).
        Operation::StreamEvents,
        Operation::StreamConfigurationEvents,
        // So are the history and restore (decisions §10).
        Operation::ListHistory,
        Operation::RestoreHistory,
        // And alert rules (decisions §16).
        Operation::CreateAlertRule,
        Operation::GetAlertRule,
        Operation::ListAlertRules,
        Operation::UpdateAlertRule,
        Operation::DeleteAlertRule,
        Operation::ListAlerts,
        // And schedules (decisions §16).
        Operation::CreateSchedule,
        Operation::GetSchedule,
        Operation::ListSchedules,
        Operation::UpdateSchedule,
        Operation::DeleteSchedule,
        Operation::GetAccuracy,
        // And the last positions (decisions §18).
        Operation::GetPositions,
        Operation::GetCoverage,
        Operation::RunSurvey,
        Operation::GetSurvey,
        // And zones (decisions §13).
        Operation::CreateZone,
        Operation::GetZone,
        Operation::ListZones,
        Operation::UpdateZone,
        Operation::DeleteZone,
        Operation::GetZoneOccupancy,
        // And outputs (decisions §14).
        Operation::CreateOutput,
        Operation::GetOutput,
        Operation::ListOutputs,
        Operation::UpdateOutput,
        Operation::DeleteOutput,
        Operation::GetOutputStatus,
        Operation::StartRecording,
        Operation::ListRecordings,
        Operation::GetRecording,
        Operation::DeleteRecording,
        Operation::DownloadRecording,
        Operation::UploadRecording,
        Operation::GetReplay,
        Operation::ControlReplay,
        // And people (decisions §17).
        Operation::SignIn,
        Operation::GetSession,
        Operation::SignOut,
        Operation::GetSignOn,
        Operation::BeginSignOn,
        Operation::FinishSignOn,
        Operation::ListUsers,
        Operation::CreateUser,
        Operation::GetUser,
        Operation::UpdateUser,
        Operation::DeleteUser,
        Operation::ListApiKeys,
        Operation::CreateApiKey,
        Operation::DeleteApiKey,
        Operation::GetAudit,
    ] {
        changes.push(Change::Remove(operation));
    }
    changes.push(Change::Add(
        Route::new(
            Method::GET,
            &["/nets/{net_name}/notification"],
            Operation::ListNotifications5_0,
            "Every notification of a configuration",
            notifications::list_5_0,
        )
        .responds(
            StatusCode::OK,
            Payload::of::<keys::NotificationList>(),
            Debug,
        ),
    ));
    // 4. Data streams: DELETE answers "Item Deleted" and removes any stream
    //    but Config, Anchor and User (no reset); the handler reads the version.
    // 5. Devices.
    changes.push(remap(
        Operation::DeleteDevice,
        StatusCode::OK,
        StatusCode::NO_CONTENT,
    ));
    changes.push(remap(
        Operation::DeleteDevices,
        StatusCode::OK,
        StatusCode::NO_CONTENT,
    ));
    changes.push(undeclare(Operation::UpdateDevice, StatusCode::NOT_FOUND));
    changes.push(Change::Replace(
        Route::new(
            Method::PATCH,
            &["/nets/{net_name}/devices"],
            Operation::UpdateDevices,
            "Replace the settings of several devices; the result of each by serial number",
            devices::update_many,
        )
        .json_body::<DevicesPatchBody>()
        .responds(
            StatusCode::OK,
            Payload::of::<keys::DeviceStatuses>(),
            Information,
        )
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
    ));
    changes.push(conflict_as_bad_request(Operation::UpdateDevices));
    // 6. Interfaces.
    changes.push(remap(
        Operation::DeleteInterface,
        StatusCode::OK,
        StatusCode::NO_CONTENT,
    ));
    // 7. Maximum tags: a 500 carries the payload key (null: nothing was calculated).
    for operation in [
        Operation::CalculateMaximumTags,
        Operation::CalculateMaximumTagsForRole,
    ] {
        changes.push(Change::Remap {
            operation,
            from: StatusCode::INTERNAL_SERVER_ERROR,
            to: Declared {
                status: StatusCode::INTERNAL_SERVER_ERROR,
                payload: Payload::of::<keys::MaximumTagsOrNull>(),
                level: Error,
                partial_level: None,
            },
        });
    }
    // 8. Position limits by name; PATCH without 409; DELETE 204.
    let by_name = "/nets/{net_name}/position_limits/{name}";
    changes.push(Change::Replace(
        Route::new(
            Method::GET,
            &[by_name],
            Operation::GetPositionLimit,
            "One bounding box, by name",
            limits::get::<NamePath>,
        )
        .responds(StatusCode::OK, Payload::of::<keys::PositionLimit>(), Debug)
        .errors(&[StatusCode::NOT_FOUND]),
    ));
    changes.push(Change::Replace(
        Route::new(
            Method::PATCH,
            &[by_name],
            Operation::UpdatePositionLimit,
            "Change a bounding box, by name",
            limits::update::<NamePath>,
        )
        .json_body::<PositionLimitsPatchBody>()
        .responds(
            StatusCode::OK,
            Payload::of::<keys::PositionLimit>(),
            Information,
        )
        .errors(&[StatusCode::NOT_FOUND, StatusCode::INTERNAL_SERVER_ERROR]),
    ));
    changes.push(conflict_as_bad_request(Operation::UpdatePositionLimit));
    changes.push(Change::Replace(
        Route::new(
            Method::DELETE,
            &[by_name],
            Operation::DeletePositionLimit,
            "Delete a bounding box, by name",
            limits::delete::<NamePath>,
        )
        .responds(StatusCode::OK, Payload::Message, Information)
        .errors(&[StatusCode::NOT_FOUND]),
    ));
    changes.push(remap(
        Operation::DeletePositionLimit,
        StatusCode::OK,
        StatusCode::NO_CONTENT,
    ));
    // 9. RF settings.
    changes.push(conflict_as_bad_request(Operation::UpdateRfSetting));
    changes.push(conflict_as_bad_request(Operation::DeleteRfSetting));
    // 10. Roles: the list also has 404 (declared for every configuration path); PATCH without 409.
    changes.push(conflict_as_bad_request(Operation::UpdateRole));
    // 11. Settings.
    changes.push(remap(
        Operation::DeleteSetting,
        StatusCode::OK,
        StatusCode::NO_CONTENT,
    ));
    changes.push(conflict_as_bad_request(Operation::ReplaceSettings));
    changes.push(conflict_as_bad_request(Operation::UpdateSettings));
    // 12. The engine command; the configuration actions without 5.1's
    // restart and reload.
    changes.push(Change::Replace(
        Route::new(
            Method::POST,
            &["/nets/{net_name}"],
            Operation::ConfigurationAction,
            "Copy, delete, start or stop a configuration",
            nets::action::<ActionBodyV5_0>,
        )
        .json_body::<ActionBodyV5_0>()
        // A copy onto a taken name is a 400 (the seed lists no 409 there).
        .conflicts_as_bad_request()
        .responds(
            StatusCode::OK,
            Payload::of::<keys::ConfigurationActionStatus>(),
            Information,
        )
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
        ]),
    ));
    changes.push(Change::Add(
        Route::new(
            Method::POST,
            &["/nets/{net_name}/action"],
            Operation::EngineCommand,
            "Reload, restart or resynchronise a running configuration",
            nets::engine_command,
        )
        .json_body::<EngineCommandBody>()
        .responds(
            StatusCode::OK,
            Payload::of::<keys::EngineStatus>(),
            Information,
        )
        .errors(&[StatusCode::BAD_REQUEST, StatusCode::NOT_FOUND]),
    ));
    changes.push(conflict_as_bad_request(Operation::EngineCommand));
    // 13. Interface roles.
    changes.push(Change::Add(
        Route::new(
            Method::GET,
            &INTERFACE_ROLES,
            Operation::ListInterfaceRoles,
            "The role of an interface (as a list)",
            interfaces::roles,
        )
        .responds(StatusCode::OK, Payload::of::<keys::Roles>(), Debug)
        .errors(&[StatusCode::NOT_FOUND]),
    ));
    changes.push(Change::Add(
        Route::new(
            Method::GET,
            &INTERFACE_ROLE,
            Operation::GetInterfaceRole,
            "The role of an interface, if it is this one (as a list)",
            interfaces::role,
        )
        .responds(StatusCode::OK, Payload::of::<keys::Roles>(), Debug)
        .errors(&[StatusCode::NOT_FOUND]),
    ));
    changes.push(Change::Add(
        Route::new(
            Method::DELETE,
            &INTERFACE_ROLE,
            Operation::DeleteInterfaceRole,
            "Take a role off an interface (it becomes UNCONFIGURED)",
            interfaces::delete_role,
        )
        .responds(StatusCode::NO_CONTENT, Payload::Message, Information)
        .errors(&[StatusCode::NOT_FOUND]),
    ));
    // 14. Paired interfaces.
    changes.push(Change::Add(
        Route::new(
            Method::PUT,
            &["/nets/{net_name}/devices/{device_key}/{interface_identifier}/{_type}_interfaces"],
            Operation::AddPairedInterface,
            "Pair an interface with another (twr or blacklist)",
            pairs::add_paired_interface,
        )
        .json_body::<PairedInterfaceBody>()
        .responds(
            StatusCode::CREATED,
            Payload::of::<keys::PairedInterface>(),
            Information,
        )
        .errors(&[
            StatusCode::BAD_REQUEST,
            StatusCode::NOT_FOUND,
            StatusCode::CONFLICT,
            StatusCode::INTERNAL_SERVER_ERROR,
        ]),
    ));
    changes.push(Change::Add(
        Route::new(Method::DELETE, &["/nets/{net_name}/devices/{device_key}/{interface_identifier}/{_type}_interfaces/{interface}"], Operation::DeletePairedInterface, "Unpair two interfaces", pairs::delete_paired_interface)
            .responds(StatusCode::NO_CONTENT, Payload::Message, Information)
            .errors(&[StatusCode::NOT_FOUND, StatusCode::CONFLICT]),
    ));
    // 15. Logs: only log_messages (its removals are under 2).
    changes
}
