//! `latency.svg`: p50 and p99 latency of the devices route and of the
//! baseline, by connection count, drawn by hand (log scales on both axes:
//! connection counts double, latencies span decades).

use std::fmt::Write as _;

use super::report::ReadPoint;

const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 440.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 190.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;

/// One line of the chart.
struct Series<'a> {
    label: &'a str,
    color: &'a str,
    dashed: bool,
    points: Vec<(f64, f64)>,
}

/// The chart of `reads`, as an SVG document.
pub(crate) fn latency_chart(reads: &[ReadPoint]) -> String {
    let series = [
        Series {
            label: "devices p50",
            color: "#1f5fbf",
            dashed: false,
            points: points(reads, |p| (p.devices.connections, p.devices.p50_ms)),
        },
        Series {
            label: "devices p99",
            color: "#1f5fbf",
            dashed: true,
            points: points(reads, |p| (p.devices.connections, p.devices.p99_ms)),
        },
        Series {
            label: "baseline p50",
            color: "#888888",
            dashed: false,
            points: points(reads, |p| (p.baseline.connections, p.baseline.p50_ms)),
        },
        Series {
            label: "baseline p99",
            color: "#888888",
            dashed: true,
            points: points(reads, |p| (p.baseline.connections, p.baseline.p99_ms)),
        },
    ];
    let all = series.iter().flat_map(|s| s.points.iter());
    let (mut x_max, mut y_min, mut y_max) = (2.0_f64, f64::MAX, 0.0_f64);
    for &(x, y) in all {
        x_max = x_max.max(x);
        y_min = y_min.min(y.max(0.001));
        y_max = y_max.max(y);
    }
    if y_max <= 0.0 {
        (y_min, y_max) = (0.01, 1.0);
    }
    // Whole decades, so the grid lines fall on 0.01, 0.1, 1, 10 ms...
    let (decade_low, decade_high) = (
        y_min.log10().floor(),
        y_max.log10().ceil().max(y_min.log10().floor() + 1.0),
    );
    let (plot_w, plot_h) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
    let x_of = |connections: f64| LEFT + plot_w * connections.log2() / x_max.log2();
    let y_of = |ms: f64| {
        let fraction = (ms.max(0.001).log10() - decade_low) / (decade_high - decade_low);
        TOP + plot_h * (1.0 - fraction)
    };

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        svg,
        r##"<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">Read latency by connection count (GET /nets/bench/devices vs baseline)</text>"#,
        WIDTH / 2.0
    );
    // Horizontal grid: one line per decade, labelled.
    let mut decade = decade_low;
    while decade <= decade_high {
        let ms = 10_f64.powf(decade);
        let y = y_of(ms);
        let _ = writeln!(
            svg,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#dddddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT + plot_w,
            LEFT - 6.0,
            y + 4.0,
            format_ms(ms)
        );
        decade += 1.0;
    }
    // Vertical grid: one line per measured connection count.
    for point in reads {
        let connections = f64::from(point.devices.connections);
        let x = x_of(connections);
        let _ = writeln!(
            svg,
            r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}" stroke="#dddddd"/><text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            TOP + plot_h,
            TOP + plot_h + 16.0,
            point.devices.connections
        );
    }
    let _ = writeln!(
        svg,
        r##"<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#444444"/>"##
    );
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">connections (log scale)</text>"#,
        LEFT + plot_w / 2.0,
        HEIGHT - 18.0
    );
    let _ = writeln!(
        svg,
        r#"<text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle">latency, ms (log scale)</text>"#,
        TOP + plot_h / 2.0
    );
    for (index, line) in series.iter().enumerate() {
        let path: Vec<String> = line
            .points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", x_of(x), y_of(y)))
            .collect();
        let dash = if line.dashed {
            r#" stroke-dasharray="6 4""#
        } else {
            ""
        };
        let _ = writeln!(
            svg,
            r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="2"{dash}/>"#,
            path.join(" "),
            line.color
        );
        for &(x, y) in &line.points {
            let _ = writeln!(
                svg,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3.5" fill="{}"><title>{}: {} connections, {} ms</title></circle>"#,
                x_of(x),
                y_of(y),
                line.color,
                line.label,
                x,
                format_ms(y)
            );
        }
        let legend_y = TOP + 10.0 + 22.0 * index as f64;
        let legend_x = LEFT + plot_w + 16.0;
        let _ = writeln!(
            svg,
            r#"<line x1="{legend_x:.1}" y1="{legend_y:.1}" x2="{:.1}" y2="{legend_y:.1}" stroke="{}" stroke-width="2"{dash}/><text x="{:.1}" y="{:.1}">{}</text>"#,
            legend_x + 30.0,
            line.color,
            legend_x + 38.0,
            legend_y + 4.0,
            line.label
        );
    }
    svg.push_str("</svg>\n");
    svg
}

fn points(reads: &[ReadPoint], pick: impl Fn(&ReadPoint) -> (u32, f64)) -> Vec<(f64, f64)> {
    reads
        .iter()
        .map(|point| {
            let (connections, ms) = pick(point);
            (f64::from(connections), ms)
        })
        .collect()
}

fn format_ms(ms: f64) -> String {
    if ms >= 1.0 {
        format!("{ms:.0}")
    } else {
        let text = format!("{ms:.3}");
        text.trim_end_matches('0').to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::wrk::Load;

    fn load(connections: u32, p50_ms: f64, p99_ms: f64) -> Load {
        Load {
            connections,
            requests: 100,
            seconds: 1.0,
            errors: 0,
            p50_ms,
            p90_ms: p99_ms,
            p99_ms,
            max_ms: p99_ms,
        }
    }

    #[test]
    fn draws_four_lines_with_a_point_per_connection_count() {
        let reads: Vec<ReadPoint> = [1, 8, 32, 64]
            .into_iter()
            .map(|c| ReadPoint {
                devices: load(c, 0.5 * f64::from(c), 2.0 * f64::from(c)),
                baseline: load(c, 0.05 * f64::from(c), 0.2 * f64::from(c)),
            })
            .collect();
        let svg = latency_chart(&reads);
        assert!(svg.starts_with("<svg"));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<polyline").count(), 4);
        assert_eq!(svg.matches("<circle").count(), 16);
        assert!(svg.contains("devices p99: 64 connections, 128 ms"));
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
    }
}
