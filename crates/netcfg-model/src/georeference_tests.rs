//! The georeference against points computed elsewhere: every WGS84
//! position here is GeographicLib's (Python `geographiclib` 2.x, WGS84
//! geodesics from the origin by azimuth and distance), which at a site's
//! distances is the tangent plane to well under a millimetre.

use super::*;

/// A degree of latitude is about 111 km: 1e-9° is about 0.1 mm.
const NANODEGREE: f64 = 1e-9;

fn assert_near(found: [f64; 2], expected: [f64; 2], tolerance: f64, what: &str) {
    let off = (found[0] - expected[0])
        .abs()
        .max((found[1] - expected[1]).abs());
    assert!(
        off <= tolerance,
        "{what}: {found:?}, expected {expected:?} (off by {off:e})"
    );
}

#[test]
fn the_tangent_plane_agrees_with_geodesics_east_and_north() {
    // (origin lat, lon), then (east, north) m and GeographicLib's point.
    type Case = ((f64, f64), [f64; 2], [f64; 2]);
    let cases: [Case; 10] = [
        (
            (47.3744, 8.5411),
            [100.0, 0.0],
            [8.542_424_098_6, 47.374_399_992_4],
        ),
        (
            (47.3744, 8.5411),
            [0.0, 100.0],
            [8.541_100_000_0, 47.375_299_457_3],
        ),
        (
            (47.3744, 8.5411),
            [100.0, 100.0],
            [8.542_424_121_1, 47.375_299_449_7],
        ),
        (
            (47.3744, 8.5411),
            [50.0, -30.0],
            [8.541_762_045_9, 47.374_130_160_9],
        ),
        (
            (-33.8688, 151.2093),
            [100.0, 0.0],
            [151.210_380_770_6, -33.868_799_995_3],
        ),
        (
            (-33.8688, 151.2093),
            [0.0, 100.0],
            [151.209_300_000_0, -33.867_898_449_4],
        ),
        (
            (69.65, 18.96),
            [100.0, 0.0],
            [18.962_575_579_9, 69.649_999_981_1],
        ),
        (
            (69.65, 18.96),
            [0.0, 100.0],
            [18.960_000_000_0, 69.650_896_398_1],
        ),
        // Across the antimeridian: east of 179.9995° is −179.9996°.
        ((0.0, 179.9995), [100.0, 0.0], [-179.999_601_684_7, 0.0]),
        (
            (0.0, 179.9995),
            [0.0, 100.0],
            [179.999_500_000_0, 0.000_904_369_5],
        ),
    ];
    for ((lat, lon), east_north, expected) in cases {
        let plane = TangentPlane::at(lat.to_radians(), lon.to_radians());
        assert_near(
            plane.lon_lat(east_north),
            expected,
            NANODEGREE,
            &format!("{east_north:?} from ({lat}, {lon})"),
        );
        let back = plane.east_north(expected);
        assert!(
            (back[0] - east_north[0]).abs() < 1e-3 && (back[1] - east_north[1]).abs() < 1e-3,
            "{back:?} back from {expected:?}"
        );
    }
}

/// A site whose plan's origin is 10 m east and 20 m north of (47.3744°,
/// 8.5411°), its x axis turned 30° counter-clockwise from east, in metres.
fn turned_site() -> Vec<ControlPoint> {
    [
        ([0.0, 0.0], [8.541_232_410_3, 47.374_579_891_4]),
        ([40.0, 0.0], [8.541_691_095_1, 47.374_759_781_4]),
        ([0.0, 25.0], [8.541_066_897_3, 47.374_774_629_7]),
        ([40.0, 25.0], [8.541_525_583_2, 47.374_954_520_4]),
    ]
    .into_iter()
    .map(|(local_m, lon_lat)| ControlPoint { local_m, lon_lat })
    .collect()
}

#[test]
fn a_turned_site_is_fitted_and_maps_both_ways() {
    let fitted = Georeference::fit(&turned_site()).unwrap();
    assert!((fitted.scale() - 1.0).abs() < 1e-6, "{}", fitted.scale());
    // 30° from the origin's east; the fit's plane is at the points' mean,
    // whose east differs by the meridians' convergence (well under 0.01°).
    assert!(
        (fitted.rotation_deg() - 30.0).abs() < 0.01,
        "{}",
        fitted.rotation_deg()
    );
    assert!(fitted.residual_m() < 1e-3, "{}", fitted.residual_m());
    // Points that are no control point: inside, and a kilometre away.
    for (local, expected, tolerance) in [
        (
            [20.0, 10.0],
            [8.541_395_547_5, 47.374_747_732_1],
            NANODEGREE * 10.0,
        ),
        (
            [35.0, 5.0],
            [8.541_600_657_0, 47.374_776_243_1],
            NANODEGREE * 10.0,
        ),
        (
            [-500.0, 800.0],
            [8.530_201_642_6, 47.378_562_352_0],
            NANODEGREE * 100.0,
        ),
    ] {
        assert_near(
            fitted.to_wgs84(local),
            expected,
            tolerance,
            &format!("{local:?}"),
        );
        let back = fitted.to_local(expected);
        assert!(
            (back[0] - local[0]).abs() < 0.01 && (back[1] - local[1]).abs() < 0.01,
            "{back:?} back from {local:?}"
        );
    }
}

#[test]
fn local_to_wgs84_and_back_is_within_a_millimetre() {
    let fitted = Georeference::fit(&turned_site()).unwrap();
    for x in (-200..=200).step_by(40) {
        for y in (-200..=200).step_by(40) {
            let local = [f64::from(x) + 0.123, f64::from(y) - 0.456];
            let back = fitted.to_local(fitted.to_wgs84(local));
            assert!(
                (back[0] - local[0]).abs() < 1e-3 && (back[1] - local[1]).abs() < 1e-3,
                "{local:?} came back as {back:?}"
            );
        }
    }
}

#[test]
fn points_that_give_no_georeference_say_why() {
    let site = turned_site();
    assert_eq!(
        Georeference::fit(&site[..2]),
        Err(GeoreferenceError::TooFew { count: 2 })
    );

    let mut on_a_line = site.clone();
    on_a_line[2] = ControlPoint {
        local_m: [20.0, 0.0],
        lon_lat: [8.541_46, 47.374_67],
    };
    on_a_line.truncate(3);
    assert_eq!(
        Georeference::fit(&on_a_line),
        Err(GeoreferenceError::Collinear)
    );

    let mut twice = site.clone();
    twice[3].local_m = twice[1].local_m;
    assert_eq!(
        Georeference::fit(&twice),
        Err(GeoreferenceError::Duplicate {
            index: 3,
            earlier: 1
        })
    );

    let mut off_the_earth = site.clone();
    off_the_earth[1].lon_lat[1] = 91.0;
    assert_eq!(
        Georeference::fit(&off_the_earth),
        Err(GeoreferenceError::OutOfRange { index: 1 })
    );

    // A plan in millimetres given as metres.
    let millimetres: Vec<ControlPoint> = site
        .iter()
        .map(|point| ControlPoint {
            local_m: point.local_m.map(|metres| metres * 1000.0),
            ..*point
        })
        .collect();
    assert!(matches!(
        Georeference::fit(&millimetres),
        Err(GeoreferenceError::Scale { scale }) if scale < 0.01
    ));

    // The same plan drawn mirrored (y down): GeographicLib's points of
    // (x, −y) given for (x, y).
    let mirrored: Vec<ControlPoint> = [
        ([0.0, 0.0], [8.541_232_410_3, 47.374_579_891_4]),
        ([40.0, 0.0], [8.541_691_095_1, 47.374_759_781_4]),
        ([0.0, 25.0], [8.541_397_922_1, 47.374_385_152_9]),
        ([40.0, 25.0], [8.541_856_605_8, 47.374_565_042_2]),
    ]
    .into_iter()
    .map(|(local_m, lon_lat)| ControlPoint { local_m, lon_lat })
    .collect();
    assert_eq!(
        Georeference::fit(&mirrored),
        Err(GeoreferenceError::Mirrored)
    );

    // One point mistyped by 50 m.
    let mut mistyped = site.clone();
    mistyped[2].local_m = [0.0, 75.0];
    assert!(matches!(
        Georeference::fit(&mistyped),
        Err(GeoreferenceError::Residual { rms_m, worst: 2 }) if rms_m > 10.0
    ));
}
