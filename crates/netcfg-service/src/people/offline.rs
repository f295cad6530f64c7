//! Users changed without a server (`netcfg-http users ...`): straight on
//! the data directory's people file, which a running server reads again
//! within a second (its data version changes). Each change is audited
//! with the origin `local`.

use std::path::Path;

use netcfg_model::{
    UserName,
    people::{AccessRole, AuditEvent, AuditRecord, Password, User},
    time::clock::wall_clock_ms_signed,
};
use netcfg_store::{People, UserChange};

use super::secrets;
use crate::ServiceError;

/// The people file of the data directory `data_dir`, opened (and created
/// when missing) without opening anything else of it.
pub fn open(data_dir: &Path) -> Result<People, ServiceError> {
    Ok(People::open(data_dir)?)
}

fn audit(file: &People, event: AuditEvent, detail: String) -> Result<(), ServiceError> {
    let entry = AuditRecord {
        time_ms: wall_clock_ms_signed(),
        event,
        user: Some("local".to_owned()),
        address: None,
        detail,
        status: None,
    };
    Ok(file.append_audit(&[entry], super::PeopleSettings::default().audit_keep)?)
}

fn hashed(password: &Password) -> Result<String, ServiceError> {
    secrets::hash_password(password.expose()).map_err(ServiceError::Worker)
}

/// Adds a user.
pub fn add_user(
    file: &People,
    name: UserName,
    role: AccessRole,
    password: &Password,
) -> Result<User, ServiceError> {
    let user = User {
        name,
        display_name: String::new(),
        role,
        nets: None,
        disabled: false,
        created_ms: wall_clock_ms_signed(),
        last_sign_in_ms: None,
    };
    let stored = file.create_user(&user, Some(&hashed(password)?))?;
    audit(
        file,
        AuditEvent::UserCreated,
        format!("{} ({})", stored.user.name, stored.user.role),
    )?;
    Ok(stored.user)
}

/// Sets a user's password: its sessions end.
pub fn set_password(
    file: &People,
    name: &UserName,
    password: &Password,
) -> Result<(), ServiceError> {
    let change = UserChange {
        password_hash: Some(hashed(password)?),
        ..UserChange::default()
    };
    file.change_user(name, &change)?;
    audit(file, AuditEvent::UserChanged, format!("{name}: password"))
}

/// Deletes a user (never the last enabled admin).
pub fn delete_user(file: &People, name: &UserName) -> Result<(), ServiceError> {
    file.delete_user(name)?;
    audit(file, AuditEvent::UserDeleted, name.to_string())
}

/// Every user.
pub fn list_users(file: &People) -> Result<Vec<User>, ServiceError> {
    Ok(file
        .users()?
        .into_iter()
        .map(|stored| stored.user)
        .collect())
}
