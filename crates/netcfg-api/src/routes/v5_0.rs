//! The 5.0 route table: the 5.1 rows with the seed's "Differences in 5.0"
//! applied, one change per item of that list. Handlers are shared: a 5.0
//! row that differs only in its statuses names the same handler.

use actix_web::http::Method;
use netcfg_model::{Level::*, Notification, Role, body::*};

use crate::{
    handlers::*,
    table::{Change, Declared, Payload, Route},
    wire::{DeviceStatuses, EngineCommandStatus, PairedInterface},
};

/// A status the 5.0 row answers instead of the one the handler gives.
fn remap(operation_id: &'static str, from: u16, to: u16) -> Change {
    Change::Remap {
        operation_id,
        from,
        to: Declared {
            status: to,
            payload: Payload::Message,
            level: Information,
        },
    }
}

fn undeclare(operation_id: &'static str, status: u16) -> Change {
    Change::Undeclare {
        operation_id,
        status,
    }
}

/// A 5.0 row that lists no 409: a conflict (a name taken, a built-in item,
/// a change a running network cannot take) answers 400, an invalid request,
/// as `copy` onto a taken name does.
fn conflict_as_bad_request(operation_id: &'static str) -> Change {
    Change::Remap {
        operation_id,
        from: 409,
        to: Declared {
            status: 400,
            payload: Payload::Message,
            level: Error,
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
    for operation_id in [
        "list_cached_devices",
        "delete_cached_device",
        "clear_cached_devices",
        "list_default_data_streams",
        "multi_device_action",
        "create_device_pairs",
        "list_device_pairs_of_device",
        "list_device_pairs",
        "delete_device_pairs",
        "list_log_files",
        "get_log_file",
        "get_network_info",
        "get_notification",
        "count_notifications",
        "update_notification",
        // 3. Notifications: only GET .../notification remains.
        "list_notifications",
        "update_notifications",
    ] {
        changes.push(Change::Remove(operation_id));
    }
    changes.push(Change::Add(
        Route::new(
            Method::GET,
            &["/nets/{net_name}/notification"],
            "list_notifications_5_0",
            "Every notification of a configuration",
            notifications::list,
        )
        .responds(
            200,
            Payload::json::<Vec<Notification>>("notification"),
            Debug,
        ),
    ));
    // 4. Data streams: DELETE answers "Item Deleted" and removes any stream
    //    but Config, Anchor and User (no reset); the handler reads the version.
    // 5. Devices.
    changes.push(remap("delete_device", 200, 204));
    changes.push(remap("delete_devices", 200, 204));
    changes.push(undeclare("update_device", 404));
    changes.push(Change::Replace(
        Route::new(
            Method::PATCH,
            &["/nets/{net_name}/devices"],
            "update_devices",
            "Replace the settings of several devices; the result of each by serial number",
            devices::update_many,
        )
        .json_body::<DevicesPatchBody>()
        .responds(
            200,
            Payload::json::<DeviceStatuses>("device_statuses"),
            Information,
        )
        .errors(&[400, 404, 500]),
    ));
    changes.push(conflict_as_bad_request("update_devices"));
    // 6. Interfaces.
    changes.push(remap("delete_interface", 200, 204));
    // 7. Maximum tags: a 500 carries the payload key (null: nothing was calculated).
    for operation_id in ["calculate_maximum_tags", "calculate_maximum_tags_for_role"] {
        changes.push(Change::Remap {
            operation_id,
            from: 500,
            to: Declared {
                status: 500,
                payload: Payload::json::<Option<netcfg_model::max_tags::MaxTagsResult>>(
                    "maximum_tags_calculation",
                ),
                level: Error,
            },
        });
    }
    // 8. Position limits by name; PATCH without 409; DELETE 204.
    let by_name = "/nets/{net_name}/position_limits/{name}";
    changes.push(Change::Replace(
        Route::new(
            Method::GET,
            &[by_name],
            "get_position_limit",
            "One bounding box, by name",
            limits::get,
        )
        .responds(
            200,
            Payload::json::<netcfg_model::PositionLimit>("position_limit"),
            Debug,
        )
        .errors(&[404]),
    ));
    changes.push(Change::Replace(
        Route::new(
            Method::PATCH,
            &[by_name],
            "update_position_limit",
            "Change a bounding box, by name",
            limits::update,
        )
        .json_body::<PositionLimitsPatchBody>()
        .responds(
            200,
            Payload::json::<netcfg_model::PositionLimit>("position_limit"),
            Information,
        )
        .errors(&[404, 500]),
    ));
    changes.push(conflict_as_bad_request("update_position_limit"));
    changes.push(Change::Replace(
        Route::new(
            Method::DELETE,
            &[by_name],
            "delete_position_limit",
            "Delete a bounding box, by name",
            limits::delete,
        )
        .responds(200, Payload::Message, Information)
        .errors(&[404]),
    ));
    changes.push(remap("delete_position_limit", 200, 204));
    // 9. RF settings.
    changes.push(conflict_as_bad_request("update_rf_setting"));
    changes.push(conflict_as_bad_request("delete_rf_setting"));
    // 10. Roles: the list also has 404 (declared for every configuration path); PATCH without 409.
    changes.push(conflict_as_bad_request("update_role"));
    // 11. Settings.
    changes.push(remap("delete_setting", 200, 204));
    changes.push(conflict_as_bad_request("replace_settings"));
    changes.push(conflict_as_bad_request("update_settings"));
    // 12. The engine command.
    changes.push(Change::Add(
        Route::new(
            Method::POST,
            &["/nets/{net_name}/action"],
            "engine_command",
            "Reload, restart or resynchronise a running configuration",
            nets::engine_command,
        )
        .json_body::<EngineCommandBody>()
        .responds(
            200,
            Payload::json::<EngineCommandStatus>("status"),
            Information,
        )
        .errors(&[400, 404]),
    ));
    changes.push(conflict_as_bad_request("engine_command"));
    // 13. Interface roles.
    changes.push(Change::Add(
        Route::new(
            Method::GET,
            &INTERFACE_ROLES,
            "list_interface_roles",
            "The role of an interface (as a list)",
            interfaces::roles,
        )
        .responds(200, Payload::json::<Vec<Role>>("roles"), Debug)
        .errors(&[404]),
    ));
    changes.push(Change::Add(
        Route::new(
            Method::GET,
            &INTERFACE_ROLE,
            "get_interface_role",
            "The role of an interface, if it is this one (as a list)",
            interfaces::role,
        )
        .responds(200, Payload::json::<Vec<Role>>("roles"), Debug)
        .errors(&[404]),
    ));
    changes.push(Change::Add(
        Route::new(
            Method::DELETE,
            &INTERFACE_ROLE,
            "delete_interface_role",
            "Take a role off an interface (it becomes UNCONFIGURED)",
            interfaces::delete_role,
        )
        .responds(204, Payload::Message, Information)
        .errors(&[404]),
    ));
    // 14. Paired interfaces.
    changes.push(Change::Add(
        Route::new(
            Method::PUT,
            &["/nets/{net_name}/devices/{device_key}/{interface_identifier}/{_type}_interfaces"],
            "add_paired_interface",
            "Pair an interface with another (twr or blacklist)",
            pairs::add_paired_interface,
        )
        .json_body::<PairedInterfaceBody>()
        .responds(
            201,
            Payload::json::<PairedInterface>("paired_interface"),
            Information,
        )
        .errors(&[400, 404, 409, 500]),
    ));
    changes.push(Change::Add(
        Route::new(Method::DELETE, &["/nets/{net_name}/devices/{device_key}/{interface_identifier}/{_type}_interfaces/{interface}"], "delete_paired_interface", "Unpair two interfaces", pairs::delete_paired_interface)
            .responds(204, Payload::Message, Information)
            .errors(&[404, 409]),
    ));
    // 15. Logs: only log_messages (its removals are under 2).
    changes
}
