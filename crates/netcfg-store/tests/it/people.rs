//! The people's file (decisions §17): users, keys and the audit trail in a
//! real SQLite file of the data directory, read back by a second opening
//! as another process would.

use netcfg_model::{
    ConfigName, UserName,
    people::{AccessRole, ApiKey, AuditEvent, AuditRecord, User},
};
use netcfg_store::{ConflictKind, Missing, People, StoreError, StoredKey, UserChange};

fn user(name: &str, role: AccessRole) -> User {
    User {
        name: name.parse().unwrap(),
        display_name: format!("{name} (display)"),
        role,
        nets: None,
        disabled: false,
        created_ms: 1_000,
        last_sign_in_ms: None,
    }
}

fn name(text: &str) -> UserName {
    text.parse().unwrap()
}

fn conflict(result: Result<impl std::fmt::Debug, StoreError>) -> ConflictKind {
    match result {
        Err(StoreError::Conflict { kind, .. }) => kind,
        other => panic!("expected a conflict, got {other:?}"),
    }
}

#[test]
fn users_are_kept_whole_and_read_back_by_another_opening() {
    let dir = tempfile::tempdir().unwrap();
    let file = People::open(dir.path()).unwrap();
    assert!(!file.anyone().unwrap());
    let mut ada = user("ada", AccessRole::Admin);
    ada.nets = Some(vec!["site".parse::<ConfigName>().unwrap()]);
    file.create_user(&ada, Some("$argon2id$hash")).unwrap();
    assert_eq!(
        conflict(file.create_user(&user("ada", AccessRole::Viewer), None)),
        ConflictKind::Taken
    );
    let other = People::open(dir.path()).unwrap();
    let read = other.user(&name("ada")).unwrap();
    assert_eq!(read.user, ada);
    assert_eq!(read.password_hash.as_deref(), Some("$argon2id$hash"));
    assert!(matches!(
        other.user(&name("bob")),
        Err(StoreError::NotFound {
            kind: Missing::User,
            ..
        })
    ));
    // The first opening sees the second's change by the file's signature;
    // reading changes nothing.
    let before = file.signature();
    file.users().unwrap();
    assert_eq!(file.signature(), before);
    other
        .create_user(&user("bob", AccessRole::Viewer), None)
        .unwrap();
    assert_ne!(file.signature(), before);
    assert_eq!(file.users().unwrap().len(), 2);
}

#[test]
fn the_last_enabled_admin_is_never_lost() {
    let dir = tempfile::tempdir().unwrap();
    let file = People::open(dir.path()).unwrap();
    file.create_user(&user("ada", AccessRole::Admin), None)
        .unwrap();
    let demote = UserChange {
        role: Some(AccessRole::Editor),
        ..UserChange::default()
    };
    let disable = UserChange {
        disabled: Some(true),
        ..UserChange::default()
    };
    assert_eq!(
        conflict(file.change_user(&name("ada"), &demote)),
        ConflictKind::LastAdmin
    );
    assert_eq!(
        conflict(file.change_user(&name("ada"), &disable)),
        ConflictKind::LastAdmin
    );
    assert_eq!(
        conflict(file.delete_user(&name("ada"))),
        ConflictKind::LastAdmin
    );
    // With a second admin, the first may go; then the second may not.
    file.create_user(&user("grace", AccessRole::Admin), None)
        .unwrap();
    let demoted = file.change_user(&name("ada"), &demote).unwrap();
    assert_eq!(demoted.user.role, AccessRole::Editor);
    assert_eq!(demoted.generation, 1, "a demotion ends the sessions");
    assert_eq!(
        conflict(file.delete_user(&name("grace"))),
        ConflictKind::LastAdmin
    );
    // A display name alone ends no session.
    let renamed = file
        .change_user(
            &name("ada"),
            &UserChange {
                display_name: Some("Ada".to_owned()),
                ..UserChange::default()
            },
        )
        .unwrap();
    assert_eq!(renamed.generation, 1);
    assert_eq!(renamed.user.display_name, "Ada");
}

#[test]
fn keys_are_found_by_digest_and_die_with_their_user() {
    let dir = tempfile::tempdir().unwrap();
    let file = People::open(dir.path()).unwrap();
    file.create_user(&user("ada", AccessRole::Admin), None)
        .unwrap();
    file.create_user(&user("bob", AccessRole::Operator), None)
        .unwrap();
    let key = |user: &str, key: &str, digest: u8| StoredKey {
        user: name(user),
        key: ApiKey {
            name: key.parse().unwrap(),
            role: AccessRole::Operator,
            prefix: "ncfg_abc".to_owned(),
            created_ms: 5,
            last_used_ms: None,
            expires_ms: Some(9_000),
        },
        digest: [digest; 32],
    };
    file.create_key(&key("bob", "ci", 1)).unwrap();
    file.create_key(&key("ada", "ci", 2)).unwrap();
    assert_eq!(
        conflict(file.create_key(&key("bob", "ci", 3))),
        ConflictKind::Taken
    );
    assert!(matches!(
        file.create_key(&key("carol", "ci", 4)),
        Err(StoreError::NotFound {
            kind: Missing::User,
            ..
        })
    ));
    file.note_key_uses(&[([1; 32], 7_000), ([1; 32], 6_000)])
        .unwrap();
    let keys = file.keys().unwrap();
    assert_eq!(keys.len(), 2);
    let bobs = keys
        .iter()
        .find(|stored| stored.user == name("bob"))
        .unwrap();
    assert_eq!(bobs.key.last_used_ms, Some(7_000));
    assert_eq!(bobs.digest, [1; 32]);
    file.delete_user(&name("bob")).unwrap();
    assert_eq!(file.keys().unwrap().len(), 1, "bob's key went with bob");
    assert!(matches!(
        file.delete_key(&name("ada"), &"nope".parse().unwrap()),
        Err(StoreError::NotFound {
            kind: Missing::ApiKey,
            ..
        })
    ));
    file.delete_key(&name("ada"), &"ci".parse().unwrap())
        .unwrap();
    assert!(file.keys().unwrap().is_empty());
}

#[test]
fn the_audit_trail_pages_newest_first_and_counts_what_it_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let file = People::open(dir.path()).unwrap();
    let entry = |index: i64| AuditRecord {
        time_ms: index,
        event: AuditEvent::Refused,
        user: None,
        address: Some("192.0.2.1".to_owned()),
        detail: format!("GET /nets/{index}"),
        status: Some(401),
    };
    // 300 entries, one at a time, kept at 100.
    for index in 1..=300 {
        file.append_audit(&[entry(index)], 100).unwrap();
    }
    let page = file.audit(None, 1_000).unwrap();
    assert_eq!(page.entries[0].id, 300);
    assert_eq!(page.entries.len(), 100);
    assert_eq!(page.dropped, 200);
    let older = file.audit(Some(250), 10).unwrap();
    assert_eq!(older.entries.len(), 10);
    assert_eq!(older.entries[0].id, 249);
    assert_eq!(older.entries[0].record.detail, "GET /nets/249");
    assert_eq!(older.entries[0].record.status, Some(401));
    // A batch larger than the pruning step prunes at once.
    let batch: Vec<_> = (301..=500).map(entry).collect();
    file.append_audit(&batch, 100).unwrap();
    let page = file.audit(None, 1_000).unwrap();
    assert_eq!(page.entries.len(), 100);
    assert_eq!(page.dropped, 400);
}

/// `audit_keep` lowered far below what the file holds: each append drops at
/// most 1,024 more than it adds (short transactions), so the bound is reached
/// over a few appends, not in one long delete.
#[test]
fn a_lowered_audit_bound_is_reached_in_short_steps() {
    let dir = tempfile::tempdir().unwrap();
    let file = People::open(dir.path()).unwrap();
    let entry = |index: i64| AuditRecord {
        time_ms: index,
        event: AuditEvent::SignIn,
        user: Some("ada".to_owned()),
        address: None,
        detail: String::new(),
        status: None,
    };
    let batch: Vec<_> = (1..=3_000).map(entry).collect();
    file.append_audit(&batch, 100_000).unwrap();
    let mut kept = Vec::new();
    for index in 3_001..=3_004 {
        file.append_audit(&[entry(index)], 10).unwrap();
        kept.push(file.audit(None, 10_000).unwrap().entries.len());
    }
    assert_eq!(kept, [3_001 - 1_025, 3_002 - 2_050, 10, 10]);
    let page = file.audit(None, 10_000).unwrap();
    assert_eq!(page.entries.last().map(|entry| entry.id), Some(2_995));
    assert_eq!(page.dropped, 2_994);
}
