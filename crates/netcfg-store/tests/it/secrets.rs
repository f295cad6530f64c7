//! Outputs' credentials (decisions §14) live beside a configuration's file,
//! never in it: a download, a copy or an upload carries none, a rename
//! takes them along and a delete removes them.

use netcfg_model::{Instance, OutputSecrets, body::OutputPostBody};

use crate::support::{name, temp_store};

const PASSWORD: &str = "correct-horse-battery-staple";

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

#[test]
fn credentials_stay_outside_the_file_and_follow_the_configuration() {
    let temp = temp_store();
    let store = &temp.store;
    let site = name("site");
    store.create(&site, Instance::ServerDefault).unwrap();
    let body: OutputPostBody = serde_json::from_value(serde_json::json!({
        "name": "broker", "url": "mqtt://127.0.0.1:1883", "events": ["zone"],
        "username": "site-user", "password": PASSWORD,
    }))
    .unwrap();
    let (output, secrets) = store.net(&site).unwrap().create_output(body).unwrap();
    assert!(output.password_set && output.username_set);
    store
        .set_output_secrets(&site, None, &output.name, secrets.clone())
        .unwrap();

    let file = store.download(&site).unwrap();
    assert!(
        !contains(&file, PASSWORD),
        "the password is in the saved-state file"
    );
    let history = store.net(&site).unwrap().history(None, 1000).unwrap();
    assert!(!format!("{history:?}").contains(PASSWORD));
    assert_eq!(store.output_secrets(&site).unwrap()["broker"], secrets);

    let copy = name("site-copy");
    store.copy(&site, &copy).unwrap();
    assert!(store.output_secrets(&copy).unwrap().is_empty());
    let copied = store
        .net(&copy)
        .unwrap()
        .output("broker".parse().unwrap())
        .unwrap();
    assert_eq!(
        OutputSecrets::default().missing_for(&copied),
        ["username", "password"]
    );

    let renamed = name("site-b");
    store.update(&site, Some(&renamed), None).unwrap();
    assert_eq!(store.output_secrets(&renamed).unwrap()["broker"], secrets);
    assert!(store.output_secrets(&site).unwrap().is_empty());

    store.delete(&renamed).unwrap();
    store.create(&renamed, Instance::ServerDefault).unwrap();
    assert!(
        store.output_secrets(&renamed).unwrap().is_empty(),
        "a new configuration of a deleted one's name inherits its credentials"
    );
}
