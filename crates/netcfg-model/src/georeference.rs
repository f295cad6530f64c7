//! Georeference (decisions §19): a site's local coordinates (metres, x and
//! y in its own plane) to WGS84 longitude and latitude (EPSG:4326) and
//! back, fitted from ground control points: pairs of a local point and
//! where it is on the earth, at least three.
//!
//! How: the control points' mean position on the ellipsoid is the origin
//! of a tangent plane (east, north); each control point's WGS84 position is
//! taken to that plane through earth-centred coordinates; a similarity
//! (scale, rotation, shift: a site's plan keeps its shape) maps local to
//! east and north, fitted by least squares. A site of a few kilometres
//! departs from the tangent plane by centimetres at most (about d³/R²). An
//! affine fit would match any three points exactly and so could check
//! nothing; the similarity's residual says when the points disagree (a
//! point mistyped, a plan drawn mirrored).

/// The WGS84 ellipsoid's semi-major axis (m).
const SEMI_MAJOR_M: f64 = 6_378_137.0;
/// Its flattening.
const FLATTENING: f64 = 1.0 / 298.257_223_563;

/// The fewest control points a fit takes.
pub const MIN_CONTROL_POINTS: usize = 3;
/// The scale a fit may find, local metres to metres on the earth: a plan in
/// millimetres or feet given as metres is refused.
pub const SCALE_RANGE: (f64, f64) = (0.5, 2.0);
/// The largest root-mean-square distance (m) between the control points and
/// where the fit puts them.
pub const MAX_RESIDUAL_M: f64 = 1.0;

/// A local point (m) and where it is: WGS84 longitude and latitude (°).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ControlPoint {
    /// x and y in the site's plane, metres.
    pub local_m: [f64; 2],
    /// Longitude and latitude, degrees (GeoJSON's order).
    pub lon_lat: [f64; 2],
}

/// Why control points give no georeference; `index` is the point's place
/// in the list given.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GeoreferenceError {
    /// Fewer than [`MIN_CONTROL_POINTS`].
    #[error("{count} control points: at least {MIN_CONTROL_POINTS} are needed")]
    TooFew {
        /// How many were given.
        count: usize,
    },
    /// A longitude outside −180 to 180, a latitude outside −90 to 90 (or
    /// within a degree of a pole), or a number that is not finite.
    #[error(
        "control point {index}: a longitude within ±180°, a latitude within ±89°, and finite local metres"
    )]
    OutOfRange {
        /// The point's index.
        index: usize,
    },
    /// The same local or WGS84 point as an earlier one.
    #[error("control point {index} is at the same place as control point {earlier}")]
    Duplicate {
        /// The point's index.
        index: usize,
        /// The earlier point's index.
        earlier: usize,
    },
    /// The local points lie on one line: the plane's rotation is unknown.
    #[error("the control points' local positions lie on one line")]
    Collinear,
    /// The fitted scale is outside [`SCALE_RANGE`].
    #[error("local metres would be {scale:.3} m on the earth: are the local points in metres?")]
    Scale {
        /// The fitted scale.
        scale: f64,
    },
    /// The points fit only mirrored: the plan's y axis runs the other way
    /// (a plan drawn with y down, as images are).
    #[error(
        "the control points fit only mirrored: the local y axis runs the other way (y down, as in an image?)"
    )]
    Mirrored,
    /// The points disagree: the fit misses them by more than
    /// [`MAX_RESIDUAL_M`] (root mean square).
    #[error(
        "the control points disagree by {rms_m:.2} m (root mean square; control point {worst} the most): a point mistyped, or a plan drawn mirrored"
    )]
    Residual {
        /// The root-mean-square distance (m).
        rms_m: f64,
        /// The point the fit misses most.
        worst: usize,
    },
}

/// A fitted georeference: local metres to WGS84 and back.
#[derive(Debug, Clone, PartialEq)]
pub struct Georeference {
    plane: TangentPlane,
    /// east = a·x − b·y + tx, north = b·x + a·y + ty.
    a: f64,
    b: f64,
    tx: f64,
    ty: f64,
    rms_m: f64,
}

impl Georeference {
    /// Fits a georeference to `points`, or says why they give none.
    pub fn fit(points: &[ControlPoint]) -> Result<Self, GeoreferenceError> {
        if points.len() < MIN_CONTROL_POINTS {
            return Err(GeoreferenceError::TooFew {
                count: points.len(),
            });
        }
        check_points(points)?;
        let plane = TangentPlane::at_mean_of(points);
        let east_north: Vec<[f64; 2]> = points
            .iter()
            .map(|point| plane.east_north(point.lon_lat))
            .collect();
        let local: Vec<[f64; 2]> = points.iter().map(|point| point.local_m).collect();
        if collinear(&local) {
            return Err(GeoreferenceError::Collinear);
        }
        let fit = Similarity::fit(&local, &east_north);
        let fits = |fit: &Similarity| {
            (SCALE_RANGE.0..=SCALE_RANGE.1).contains(&fit.scale()) && fit.rms_m <= MAX_RESIDUAL_M
        };
        if fits(&fit) {
            return Ok(Self {
                plane,
                a: fit.a,
                b: fit.b,
                tx: fit.tx,
                ty: fit.ty,
                rms_m: fit.rms_m,
            });
        }
        let flipped: Vec<[f64; 2]> = local.iter().map(|[x, y]| [*x, -y]).collect();
        if fits(&Similarity::fit(&flipped, &east_north)) {
            return Err(GeoreferenceError::Mirrored);
        }
        if !(SCALE_RANGE.0..=SCALE_RANGE.1).contains(&fit.scale()) {
            return Err(GeoreferenceError::Scale { scale: fit.scale() });
        }
        Err(GeoreferenceError::Residual {
            rms_m: fit.rms_m,
            worst: most_astray(&local, &east_north),
        })
    }

    /// Where the local point `local_m` is: longitude and latitude (°).
    pub fn to_wgs84(&self, local_m: [f64; 2]) -> [f64; 2] {
        self.plane.lon_lat(self.local_to_east_north(local_m))
    }

    /// The local point (m) at longitude and latitude `lon_lat` (°).
    pub fn to_local(&self, lon_lat: [f64; 2]) -> [f64; 2] {
        let [e, n] = self.plane.east_north(lon_lat);
        let (e, n) = (e - self.tx, n - self.ty);
        let norm = self.a * self.a + self.b * self.b;
        [
            (self.a * e + self.b * n) / norm,
            (-self.b * e + self.a * n) / norm,
        ]
    }

    /// Metres on the earth per local metre.
    pub fn scale(&self) -> f64 {
        self.a.hypot(self.b)
    }

    /// The local x axis's direction, degrees counter-clockwise from east.
    pub fn rotation_deg(&self) -> f64 {
        self.b.atan2(self.a).to_degrees()
    }

    /// How far the fit misses the control points (m, root mean square).
    pub fn residual_m(&self) -> f64 {
        self.rms_m
    }

    fn local_to_east_north(&self, [x, y]: [f64; 2]) -> [f64; 2] {
        [
            self.a * x - self.b * y + self.tx,
            self.b * x + self.a * y + self.ty,
        ]
    }
}

/// Every point in range, none where an earlier one is.
fn check_points(points: &[ControlPoint]) -> Result<(), GeoreferenceError> {
    for (index, point) in points.iter().enumerate() {
        let [lon, lat] = point.lon_lat;
        let finite = point
            .local_m
            .iter()
            .chain(&point.lon_lat)
            .all(|value| value.is_finite());
        if !finite || !(-180.0..=180.0).contains(&lon) || !(-89.0..=89.0).contains(&lat) {
            return Err(GeoreferenceError::OutOfRange { index });
        }
        let same = points[..index].iter().position(|earlier| {
            earlier.local_m == point.local_m || earlier.lon_lat == point.lon_lat
        });
        if let Some(earlier) = same {
            return Err(GeoreferenceError::Duplicate { index, earlier });
        }
    }
    Ok(())
}

/// True when the local points lie within a millionth of their extent of
/// one line (the line through their mean and the point farthest from it).
fn collinear(local: &[[f64; 2]]) -> bool {
    let [mx, my] = mean(local);
    let distance = |[x, y]: &[f64; 2]| (x - mx).hypot(y - my);
    let Some(far) = local
        .iter()
        .max_by(|left, right| distance(left).total_cmp(&distance(right)))
    else {
        return true;
    };
    let (dx, dy) = (far[0] - mx, far[1] - my);
    let length = dx.hypot(dy);
    if length == 0.0 {
        return true;
    }
    local
        .iter()
        .all(|[x, y]| ((x - mx) * dy - (y - my) * dx).abs() / length <= length * 1e-6)
}

/// The point farthest from where the others, fitted without it, put it:
/// least squares spreads one point's error over all of them, so the point
/// a fit of all misses most need not be the one mistyped.
fn most_astray(local: &[[f64; 2]], east_north: &[[f64; 2]]) -> usize {
    let astray = |index: usize| {
        let others = |points: &[[f64; 2]]| -> Vec<[f64; 2]> {
            points
                .iter()
                .enumerate()
                .filter(|(other, _)| *other != index)
                .map(|(_, point)| *point)
                .collect()
        };
        Similarity::fit(&others(local), &others(east_north)).miss(local[index], east_north[index])
    };
    (0..local.len())
        .max_by(|left, right| astray(*left).total_cmp(&astray(*right)))
        .unwrap_or(0)
}

fn mean(points: &[[f64; 2]]) -> [f64; 2] {
    let count = points.len().max(1) as f64;
    let (x, y) = points
        .iter()
        .fold((0.0, 0.0), |(x, y), point| (x + point[0], y + point[1]));
    [x / count, y / count]
}

/// The least-squares similarity from local points to east and north:
/// east = a·x − b·y + tx, north = b·x + a·y + ty.
struct Similarity {
    a: f64,
    b: f64,
    tx: f64,
    ty: f64,
    /// How far it misses the points (root mean square, m).
    rms_m: f64,
}

impl Similarity {
    fn fit(local: &[[f64; 2]], east_north: &[[f64; 2]]) -> Self {
        let ([mx, my], [me, mn]) = (mean(local), mean(east_north));
        let (mut spread, mut along, mut across) = (0.0, 0.0, 0.0);
        for (point, en) in local.iter().zip(east_north) {
            let (x, y) = (point[0] - mx, point[1] - my);
            let (e, n) = (en[0] - me, en[1] - mn);
            spread += x * x + y * y;
            along += x * e + y * n;
            across += x * n - y * e;
        }
        let (a, b) = (along / spread, across / spread);
        let mut fit = Self {
            a,
            b,
            tx: me - (a * mx - b * my),
            ty: mn - (b * mx + a * my),
            rms_m: 0.0,
        };
        let squares: f64 = local
            .iter()
            .zip(east_north)
            .map(|(point, en)| fit.miss(*point, *en).powi(2))
            .sum();
        fit.rms_m = (squares / local.len().max(1) as f64).sqrt();
        fit
    }

    /// How far (m) the fit puts `local` from `east_north`.
    fn miss(&self, [x, y]: [f64; 2], east_north: [f64; 2]) -> f64 {
        let e = self.a * x - self.b * y + self.tx;
        let n = self.b * x + self.a * y + self.ty;
        (e - east_north[0]).hypot(n - east_north[1])
    }

    fn scale(&self) -> f64 {
        self.a.hypot(self.b)
    }
}

/// A plane tangent to the ellipsoid at an origin: east and north metres.
#[derive(Debug, Clone, PartialEq)]
struct TangentPlane {
    /// The origin's latitude and longitude (radians) and earth-centred
    /// coordinates (m).
    lat: f64,
    lon: f64,
    origin: [f64; 3],
}

impl TangentPlane {
    /// At the mean position of `points` (longitudes averaged as
    /// directions, so a site across the antimeridian has its middle there).
    fn at_mean_of(points: &[ControlPoint]) -> Self {
        let count = points.len() as f64;
        let lat = points.iter().map(|point| point.lon_lat[1]).sum::<f64>() / count;
        let (sin, cos) = points.iter().fold((0.0, 0.0), |(sin, cos), point| {
            let lon = point.lon_lat[0].to_radians();
            (sin + lon.sin(), cos + lon.cos())
        });
        Self::at(lat.to_radians(), sin.atan2(cos))
    }

    fn at(lat: f64, lon: f64) -> Self {
        Self {
            lat,
            lon,
            origin: earth_centred(lat, lon),
        }
    }

    fn east_north(&self, [lon, lat]: [f64; 2]) -> [f64; 2] {
        let point = earth_centred(lat.to_radians(), lon.to_radians());
        let d = [
            point[0] - self.origin[0],
            point[1] - self.origin[1],
            point[2] - self.origin[2],
        ];
        let (sin_lat, cos_lat) = self.lat.sin_cos();
        let (sin_lon, cos_lon) = self.lon.sin_cos();
        [
            -sin_lon * d[0] + cos_lon * d[1],
            -sin_lat * cos_lon * d[0] - sin_lat * sin_lon * d[1] + cos_lat * d[2],
        ]
    }

    /// The point of the ellipsoid's surface under `[east, north]` of the
    /// plane (its height above the plane's point dropped).
    fn lon_lat(&self, [east, north]: [f64; 2]) -> [f64; 2] {
        let (sin_lat, cos_lat) = self.lat.sin_cos();
        let (sin_lon, cos_lon) = self.lon.sin_cos();
        let point = [
            self.origin[0] - sin_lon * east - sin_lat * cos_lon * north,
            self.origin[1] + cos_lon * east - sin_lat * sin_lon * north,
            self.origin[2] + cos_lat * north,
        ];
        let (lat, lon) = geodetic(point);
        [normalised_degrees(lon.to_degrees()), lat.to_degrees()]
    }
}

/// Earth-centred, earth-fixed coordinates (m) of a point on the ellipsoid.
fn earth_centred(lat: f64, lon: f64) -> [f64; 3] {
    let e2 = FLATTENING * (2.0 - FLATTENING);
    let (sin_lat, cos_lat) = lat.sin_cos();
    let radius = SEMI_MAJOR_M / (1.0 - e2 * sin_lat * sin_lat).sqrt();
    [
        radius * cos_lat * lon.cos(),
        radius * cos_lat * lon.sin(),
        radius * (1.0 - e2) * sin_lat,
    ]
}

/// Latitude and longitude (radians) of an earth-centred point, by
/// iteration (five rounds: well below a nanometre near the surface).
fn geodetic([x, y, z]: [f64; 3]) -> (f64, f64) {
    let e2 = FLATTENING * (2.0 - FLATTENING);
    let across = x.hypot(y);
    let mut lat = z.atan2(across * (1.0 - e2));
    for _ in 0..5 {
        let sin_lat = lat.sin();
        let radius = SEMI_MAJOR_M / (1.0 - e2 * sin_lat * sin_lat).sqrt();
        let height = across / lat.cos() - radius;
        lat = z.atan2(across * (1.0 - e2 * radius / (radius + height)));
    }
    (lat, y.atan2(x))
}

fn normalised_degrees(lon: f64) -> f64 {
    if lon > 180.0 {
        lon - 360.0
    } else if lon < -180.0 {
        lon + 360.0
    } else {
        lon
    }
}

#[cfg(test)]
#[path = "georeference_tests.rs"]
mod tests;
