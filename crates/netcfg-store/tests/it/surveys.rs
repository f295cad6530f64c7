//! The last survey of each configuration's anchors, kept beside the
//! saved-state files: read back whole, moved by a rename, removed by a
//! deletion, not copied.

use netcfg_model::{Instance, SerialNumber, SurveyReport};

use crate::support::{name, temp_store};

fn report(time_ms: u64) -> SurveyReport {
    serde_json::from_value(serde_json::json!({
        "time_ms": time_ms,
        "pairs": [{"a": "01:04:0001", "b": "01:04:0002", "measured_mm": 5000.25, "configured_mm": 5000.0}],
        "anchors": [
            {"serial_number": SerialNumber::from_u32(0x0104_0001).to_string(), "residual_mm": 12.5, "verdict": "good", "suggested": null},
            {"serial_number": "01:04:0002", "residual_mm": 1500.0, "verdict": "bad", "suggested": {"x": 1, "y": 2, "z": 3}}
        ]
    }))
    .unwrap()
}

#[test]
fn a_kept_survey_is_read_back_whole_and_follows_its_configuration() {
    let temp = temp_store();
    let store = &temp.store;
    let (site, hall, copy) = (name("site"), name("hall"), name("copy"));
    store.create(&site, Instance::ServerDefault).unwrap();
    assert_eq!(store.survey(&site).unwrap(), None);

    store.save_survey(&site, &report(1)).unwrap();
    store.save_survey(&site, &report(2)).unwrap();
    assert_eq!(store.survey(&site).unwrap(), Some(report(2)));

    store.copy(&site, &copy).unwrap();
    assert_eq!(store.survey(&copy).unwrap(), None, "a copy never ran");

    store.update(&site, Some(&hall), None).unwrap();
    assert_eq!(store.survey(&hall).unwrap(), Some(report(2)));
    assert_eq!(store.survey(&site).unwrap(), None);

    store.delete(&hall).unwrap();
    store.create(&hall, Instance::ServerDefault).unwrap();
    assert_eq!(store.survey(&hall).unwrap(), None);
}
