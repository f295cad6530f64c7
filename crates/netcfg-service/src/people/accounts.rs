//! Users and their keys, and who may change which (decisions §17): an
//! admin changes anyone; a user reads itself and changes its own display
//! name and password; a user's keys are its own and an admin's to manage.

use std::net::IpAddr;

use netcfg_model::{
    KeyName, Problems, UserName,
    body::{ApiKeyPostBody, UserPatchBody, UserPostBody},
    people::{AccessRole, ApiKey, AuditEvent, AuditPage, NewApiKey, Password, User, key_prefix},
    sync::read,
    time::clock::wall_clock_ms_signed,
};
use netcfg_store::{StoreError, StoredKey, UserChange};

use super::{Identity, secrets};
use crate::{Service, ServiceError};

/// Who asks, as the front door knows it, and from where.
#[derive(Debug, Clone, Copy)]
pub struct Caller<'a> {
    /// The identity; none when access control is off (no user and no
    /// token): anyone may then read and change, and the first user may be
    /// made from a loopback address.
    pub identity: Option<&'a Identity>,
    /// The client's address, for the audit trail.
    pub address: Option<IpAddr>,
}

impl Caller<'_> {
    fn is_admin(&self) -> bool {
        self.identity
            .is_none_or(|identity| identity.role == AccessRole::Admin)
    }

    fn is(&self, name: &UserName) -> bool {
        self.identity
            .is_some_and(|identity| identity.user() == Some(name))
    }

    /// Admin, or the user `name` itself.
    fn may_manage(&self, name: &UserName, what: &str) -> Result<(), ServiceError> {
        if self.is_admin() || self.is(name) {
            Ok(())
        } else {
            Err(ServiceError::Forbidden(format!(
                "{what} of user {name}: only that user or an admin"
            )))
        }
    }

    fn must_be_admin(&self, what: &str) -> Result<(), ServiceError> {
        if self.is_admin() {
            Ok(())
        } else {
            Err(ServiceError::Forbidden(format!(
                "{what} needs the role admin"
            )))
        }
    }

    fn origin(&self) -> Option<String> {
        self.identity.map(Identity::origin)
    }

    fn address(&self) -> Option<String> {
        self.address.map(|address| address.to_string())
    }
}

fn invalid(field: &str, message: impl Into<String>) -> ServiceError {
    let mut problems = Problems::new();
    problems.push(field, message);
    ServiceError::Store(StoreError::Invalid(problems))
}

impl Service {
    /// Every user (admin).
    pub async fn list_users(&self, caller: Caller<'_>) -> Result<Vec<User>, ServiceError> {
        caller.must_be_admin("the list of users")?;
        let mut users: Vec<User> = read(&self.people().copy)
            .users
            .values()
            .map(|stored| stored.user.clone())
            .collect();
        users.sort_by(|one, other| one.name.cmp(&other.name));
        Ok(users)
    }

    /// One user (itself, or an admin).
    pub async fn get_user(
        &self,
        caller: Caller<'_>,
        name: &UserName,
    ) -> Result<User, ServiceError> {
        caller.may_manage(name, "the record")?;
        let name = name.clone();
        Ok(self.on_people(move |file| file.user(&name)).await?.user)
    }

    /// Adds a user (admin; or, while nobody and no token exists, a request
    /// from the server's own machine).
    pub async fn create_user(
        &self,
        caller: Caller<'_>,
        body: UserPostBody,
    ) -> Result<User, ServiceError> {
        let from_here = caller.address.is_some_and(|address| address.is_loopback());
        if caller.identity.is_none() && !from_here {
            return Err(ServiceError::Forbidden(
                "the first user is made from the server's own machine (a loopback address) or with `netcfg-http users add`".to_owned(),
            ));
        }
        caller.must_be_admin("adding a user")?;
        self.check_nets(body.nets.as_deref(), "nets").await?;
        let hash = self.hash_password(&body.password).await?;
        let user = User {
            name: body.name,
            display_name: body.display_name.unwrap_or_default(),
            role: body.role,
            nets: body.nets,
            disabled: body.disabled.unwrap_or(false),
            created_ms: wall_clock_ms_signed(),
            last_sign_in_ms: None,
        };
        let stored = self
            .on_people(move |file| file.create_user(&user, Some(&hash)))
            .await?;
        self.audit(
            AuditEvent::UserCreated,
            caller.origin(),
            caller.address(),
            format!("{} ({})", stored.user.name, stored.user.role),
            None,
        );
        Ok(stored.user)
    }

    /// Changes a user: an admin anything; a user its own display name and
    /// password (with the present one).
    pub async fn change_user(
        &self,
        caller: Caller<'_>,
        name: &UserName,
        body: UserPatchBody,
    ) -> Result<User, ServiceError> {
        caller.may_manage(name, "the record")?;
        let admin_only = [
            ("role", body.role.is_some()),
            ("nets", body.nets.is_some()),
            ("disabled", body.disabled.is_some()),
        ];
        let asked: Vec<&str> = admin_only
            .iter()
            .filter(|(_, given)| *given)
            .map(|(field, _)| *field)
            .collect();
        if !caller.is_admin() && !asked.is_empty() {
            return Err(ServiceError::Forbidden(format!(
                "changing {} needs the role admin; a user changes only its own display_name and password",
                asked.join(", ")
            )));
        }
        if let Some(Some(nets)) = &body.nets {
            self.check_nets(Some(nets), "nets").await?;
        }
        let own = caller.is(name);
        let password_hash = match &body.password {
            None => None,
            Some(password) => {
                if own {
                    self.check_current_password(name, body.current_password.clone())
                        .await?;
                }
                Some(self.hash_password(password).await?)
            }
        };
        let change = UserChange {
            display_name: body.display_name.clone(),
            role: body.role,
            nets: body.nets.clone(),
            disabled: body.disabled,
            password_hash,
        };
        let changed = changed_fields(&body);
        let target = name.clone();
        let stored = self
            .on_people(move |file| file.change_user(&target, &change))
            .await?;
        if own && let Some(identity) = caller.identity {
            self.keep_session(identity.session.as_ref(), stored.generation);
        }
        self.end_stale_sessions();
        self.audit(
            AuditEvent::UserChanged,
            caller.origin(),
            caller.address(),
            format!("{name}: {changed}"),
            None,
        );
        Ok(stored.user)
    }

    /// Deletes a user and its keys (admin); its sessions end.
    pub async fn delete_user(
        &self,
        caller: Caller<'_>,
        name: &UserName,
    ) -> Result<(), ServiceError> {
        caller.must_be_admin("deleting a user")?;
        let target = name.clone();
        self.on_people(move |file| file.delete_user(&target))
            .await?;
        self.end_stale_sessions();
        self.audit(
            AuditEvent::UserDeleted,
            caller.origin(),
            caller.address(),
            name.to_string(),
            None,
        );
        Ok(())
    }

    /// A user's keys (its own, or an admin's).
    pub async fn list_keys(
        &self,
        caller: Caller<'_>,
        user: &UserName,
    ) -> Result<Vec<ApiKey>, ServiceError> {
        caller.may_manage(user, "the keys")?;
        let service = self.clone();
        let owner = user.clone();
        tokio::task::spawn_blocking(move || {
            service.flush_people()?;
            service.people_file().user(&owner)?;
            Ok::<_, StoreError>(
                service
                    .people_file()
                    .keys()?
                    .into_iter()
                    .filter(|stored| stored.user == owner)
                    .map(|stored| stored.key)
                    .collect(),
            )
        })
        .await
        .map_err(|error| ServiceError::Worker(error.to_string()))?
        .map_err(ServiceError::from)
    }

    /// Makes a key: its secret is in the answer, and nowhere ever again.
    pub async fn create_key(
        &self,
        caller: Caller<'_>,
        user: &UserName,
        body: ApiKeyPostBody,
    ) -> Result<NewApiKey, ServiceError> {
        caller.may_manage(user, "a key")?;
        let owner = read(&self.people().copy).users.get(user).cloned();
        let owner = match owner {
            Some(owner) => owner,
            None => {
                let name = user.clone();
                self.on_people(move |file| file.user(&name)).await?
            }
        };
        if body.role > owner.user.role {
            return Err(invalid(
                "role",
                format!(
                    "a key's role is at most its user's ({}); {} is more",
                    owner.user.role, body.role
                ),
            ));
        }
        let now = wall_clock_ms_signed();
        if body.expires_ms.is_some_and(|expires| expires <= now) {
            return Err(invalid(
                "expires_ms",
                "the key would expire before it is made: give a time in the future (ms since 1970)",
            ));
        }
        let secret = secrets::new_key();
        let key = ApiKey {
            name: body.name,
            role: body.role,
            prefix: key_prefix(&secret),
            created_ms: now,
            last_used_ms: None,
            expires_ms: body.expires_ms,
        };
        let stored = StoredKey {
            user: user.clone(),
            key: key.clone(),
            digest: secrets::digest(&secret),
        };
        self.on_people(move |file| file.create_key(&stored)).await?;
        self.audit(
            AuditEvent::KeyCreated,
            caller.origin(),
            caller.address(),
            format!("{user}/{} ({})", key.name, key.role),
            None,
        );
        Ok(NewApiKey {
            record: key,
            key: secret,
        })
    }

    /// Revokes a key: the next request with it is 401.
    pub async fn delete_key(
        &self,
        caller: Caller<'_>,
        user: &UserName,
        key: &KeyName,
    ) -> Result<(), ServiceError> {
        caller.may_manage(user, "a key")?;
        let (owner, name) = (user.clone(), key.clone());
        self.on_people(move |file| file.delete_key(&owner, &name))
            .await?;
        self.audit(
            AuditEvent::KeyRevoked,
            caller.origin(),
            caller.address(),
            format!("{user}/{key}"),
            None,
        );
        Ok(())
    }

    /// A page of the audit trail, newest first (admin).
    pub async fn audit_trail(
        &self,
        caller: Caller<'_>,
        before_id: Option<i64>,
        limit: u32,
    ) -> Result<AuditPage, ServiceError> {
        caller.must_be_admin("the audit trail")?;
        let service = self.clone();
        tokio::task::spawn_blocking(move || {
            service.flush_people()?;
            service.people_file().audit(before_id, limit)
        })
        .await
        .map_err(|error| ServiceError::Worker(error.to_string()))?
        .map_err(ServiceError::from)
    }

    /// A password's hash, made on the hashing pool.
    async fn hash_password(&self, password: &Password) -> Result<String, ServiceError> {
        let password = password.expose().to_owned();
        self.hashing(move || secrets::hash_password(&password))
            .await?
            .map_err(ServiceError::Worker)
    }

    /// Each configuration named exists; else 400 on `field[i]`.
    async fn check_nets(
        &self,
        nets: Option<&[netcfg_model::ConfigName]>,
        field: &str,
    ) -> Result<(), ServiceError> {
        let Some(nets) = nets else { return Ok(()) };
        let names = self.blocking(|store| store.names()).await?;
        let mut problems = Problems::new();
        for (index, net) in nets.iter().enumerate() {
            if !names.contains(net) {
                problems.push(
                    format!("{field}[{index}]"),
                    format!("configuration {net} does not exist"),
                );
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ServiceError::Store(StoreError::Invalid(problems)))
        }
    }

    /// A user changing its own password gives the present one.
    async fn check_current_password(
        &self,
        name: &UserName,
        current: Option<String>,
    ) -> Result<(), ServiceError> {
        let Some(current) = current else {
            return Err(invalid(
                "current_password",
                "changing one's own password takes current_password",
            ));
        };
        let hash = read(&self.people().copy)
            .users
            .get(name)
            .and_then(|user| user.password_hash.clone());
        let matches = self
            .hashing(move || secrets::verify_password(&current, hash.as_deref()))
            .await?;
        if matches {
            Ok(())
        } else {
            Err(invalid("current_password", "the present password is wrong"))
        }
    }
}

/// The fields a change gives, for the audit trail (never their values:
/// a password is not written anywhere).
fn changed_fields(body: &UserPatchBody) -> String {
    [
        ("display_name", body.display_name.is_some()),
        ("role", body.role.is_some()),
        ("nets", body.nets.is_some()),
        ("disabled", body.disabled.is_some()),
        ("password", body.password.is_some()),
    ]
    .iter()
    .filter(|(_, given)| *given)
    .map(|(field, _)| *field)
    .collect::<Vec<_>>()
    .join(", ")
}
