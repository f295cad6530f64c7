//! The simulator's radio parameters, given in the instance string
//! (`sim?toa_noise_mm=30&nlos=0.05`, decisions §12). The model only reads
//! and checks them; the simulator alone acts on them, and nothing that
//! solves or reports positions ever sees them.

use std::fmt;

use crate::SerialNumber;

/// One displaced device: its true position is its configured one plus
/// this offset (mm).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SurveyError {
    /// The device displaced.
    pub serial_number: SerialNumber,
    /// East, north and up, mm.
    pub offset_mm: [i32; 3],
}

/// A tag without configured coordinates that stands still at a true
/// point (`still=SERIAL:X:Y:Z`, decisions §18).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StillTag {
    /// The tag.
    pub serial_number: SerialNumber,
    /// Where it truly stands: east, north and up, mm.
    pub position_mm: [i32; 3],
}

/// What `sim?...` sets, each `None` when the instance does not name it.
///
/// When any error source is named, the others the instance does not name are
/// off ([`SimParameters::names_any_error`]); plain `sim` keeps the
/// simulator's defaults.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SimParameters {
    /// σ of the Gaussian timing noise, mm of distance.
    pub toa_noise_mm: Option<f64>,
    /// Probability that one measurement is non-line-of-sight.
    pub nlos: Option<f64>,
    /// Mean of an NLOS measurement's extra (exponential) delay, mm.
    pub nlos_bias_mm: Option<f64>,
    /// The hearing range, mm.
    pub range_mm: Option<f64>,
    /// Probability that an anchor in range misses a beacon.
    pub miss: Option<f64>,
    /// Devices whose true position differs from the configured one.
    pub survey_error: Vec<SurveyError>,
    /// Tags without coordinates that stand still (they walk otherwise).
    pub still: Vec<StillTag>,
    /// The seed of the simulator's random numbers (a run repeats with it).
    pub seed: Option<u64>,
    /// The query as given, for display (the parameters in their order).
    text: String,
}

/// The names `sim?...` takes.
pub const SIM_PARAMETER_NAMES: [&str; 8] = [
    "toa_noise_mm",
    "nlos",
    "nlos_bias_mm",
    "range_mm",
    "miss",
    "survey_error",
    "still",
    "seed",
];

/// The largest survey error offset on any axis, mm.
const MAX_SURVEY_ERROR_MM: i32 = 100_000;
/// The farthest a still tag may stand from the origin on any axis, mm.
const MAX_STILL_MM: i32 = 10_000_000;

impl SimParameters {
    /// True when the instance names an error source: the ones it does not
    /// name are then off.
    pub fn names_any_error(&self) -> bool {
        self.toa_noise_mm.is_some()
            || self.nlos.is_some()
            || self.nlos_bias_mm.is_some()
            || self.range_mm.is_some()
            || self.miss.is_some()
    }

    /// True when the query was empty.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Reads a query (the text after `?`), `name=value` pairs joined by
    /// `&`.
    ///
    /// # Errors
    /// Every problem, each as a sentence: an unknown or repeated name, a
    /// value that does not parse or is out of range.
    pub fn parse(query: &str) -> Result<Self, Vec<String>> {
        let mut parameters = Self {
            text: query.to_owned(),
            ..Self::default()
        };
        let mut problems = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for pair in query.split('&') {
            let Some((name, value)) = pair.split_once('=') else {
                problems.push(format!("`{pair}` is not name=value"));
                continue;
            };
            if !SIM_PARAMETER_NAMES.contains(&name) {
                problems.push(format!(
                    "`{name}` is not a simulator parameter: use {}",
                    SIM_PARAMETER_NAMES.join(", ")
                ));
                continue;
            }
            if seen.contains(&name) {
                problems.push(format!("`{name}` is given twice"));
                continue;
            }
            seen.push(name);
            if let Err(problem) = parameters.set(name, value) {
                problems.push(format!("`{name}`: {problem}"));
            }
        }
        if problems.is_empty() {
            Ok(parameters)
        } else {
            Err(problems)
        }
    }

    fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        let number = |low: f64, high: f64, unit: &str| -> Result<f64, String> {
            let parsed: f64 = value
                .parse()
                .map_err(|_| format!("`{value}` is not a number"))?;
            if parsed.is_finite() && (low..=high).contains(&parsed) {
                Ok(parsed)
            } else {
                Err(format!("{value} is out of range ({low} to {high}{unit})"))
            }
        };
        match name {
            "toa_noise_mm" => self.toa_noise_mm = Some(number(0.0, 10_000.0, " mm")?),
            "nlos" => self.nlos = Some(number(0.0, 1.0, "")?),
            "nlos_bias_mm" => self.nlos_bias_mm = Some(number(0.0, 100_000.0, " mm")?),
            "range_mm" => self.range_mm = Some(number(100.0, 1_000_000.0, " mm")?),
            "miss" => self.miss = Some(number(0.0, 0.99, "")?),
            "seed" => {
                self.seed = Some(
                    value
                        .parse()
                        .map_err(|_| format!("`{value}` is not a whole number"))?,
                );
            }
            "survey_error" => {
                self.survey_error = parse_points(value, "DX:DY:DZ", MAX_SURVEY_ERROR_MM)?
                    .into_iter()
                    .map(|(serial_number, offset_mm)| SurveyError {
                        serial_number,
                        offset_mm,
                    })
                    .collect();
            }
            "still" => {
                self.still = parse_points(value, "X:Y:Z", MAX_STILL_MM)?
                    .into_iter()
                    .map(|(serial_number, position_mm)| StillTag {
                        serial_number,
                        position_mm,
                    })
                    .collect();
            }
            _ => unreachable!("names are checked before"),
        }
        Ok(())
    }
}

/// `SERIAL:A:B:C` items joined by `;`, each of A, B, C a whole number of
/// mm at most `limit` either way (`form` names them in the error).
fn parse_points(
    value: &str,
    form: &str,
    limit: i32,
) -> Result<Vec<(SerialNumber, [i32; 3])>, String> {
    value
        .split(';')
        .map(|one| {
            let mut parts = one.split(':');
            let serial: Vec<&str> = parts.by_ref().take(3).collect();
            let serial = serial.join(":");
            let serial_number: SerialNumber = serial
                .parse()
                .map_err(|_| format!("`{one}` is not SERIAL:{form} (serial XX:XX:XXXX)"))?;
            let values: Vec<&str> = parts.collect();
            let [a, b, c] = values[..] else {
                return Err(format!("`{one}` is not SERIAL:{form} (three values in mm)"));
            };
            let mut point = [0; 3];
            for (slot, text) in point.iter_mut().zip([a, b, c]) {
                let parsed: i32 = text
                    .parse()
                    .map_err(|_| format!("`{text}` in `{one}` is not a whole number of mm"))?;
                if parsed.abs() > limit {
                    return Err(format!(
                        "{parsed} in `{one}` is out of range (at most {limit} mm)"
                    ));
                }
                *slot = parsed;
            }
            Ok((serial_number, point))
        })
        .collect()
}

impl fmt::Display for SimParameters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Eq for SimParameters {}

impl std::hash::Hash for SimParameters {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_parameter() {
        let parameters = SimParameters::parse(
            "toa_noise_mm=30&nlos=0.05&nlos_bias_mm=500&range_mm=40000&miss=0.01&survey_error=01:04:0002:1500:0:-20;01:05:0001:0:100:0&seed=7",
        )
        .unwrap();
        assert_eq!(parameters.toa_noise_mm, Some(30.0));
        assert_eq!(parameters.nlos, Some(0.05));
        assert_eq!(parameters.range_mm, Some(40_000.0));
        assert_eq!(parameters.survey_error.len(), 2);
        assert_eq!(parameters.survey_error[0].offset_mm, [1_500, 0, -20]);
        assert_eq!(parameters.seed, Some(7));
        assert!(parameters.names_any_error());
        let still = SimParameters::parse("still=01:04:0003:5000:4000:1200;01:04:0004:-1:0:0")
            .unwrap()
            .still;
        assert_eq!(still.len(), 2);
        assert_eq!(still[0].position_mm, [5_000, 4_000, 1_200]);
        let problems = SimParameters::parse("still=01:04:0003:5000:4000").unwrap_err();
        assert!(problems[0].contains("SERIAL:X:Y:Z"), "{problems:?}");
        assert!(!SimParameters::parse("seed=1").unwrap().names_any_error());
    }

    #[test]
    fn lists_every_problem() {
        let problems =
            SimParameters::parse("colour=red&nlos=2&toa_noise_mm=x&survey_error=01:04:0002:1")
                .unwrap_err();
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(problems[0].contains("colour"));
        assert!(problems[1].contains("out of range"));
        let problems = SimParameters::parse("nlos=0.1&nlos=0.2&miss").unwrap_err();
        assert_eq!(problems.len(), 2, "{problems:?}");
    }
}
