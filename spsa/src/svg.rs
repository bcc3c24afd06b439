//! A plot of the parameter traces over a run as a standalone SVG: games on
//! the x axis, each parameter's position in its range (0% at `min`, 100% at
//! `max`, logarithmic for log-scale parameters) on the y axis, one polyline
//! per parameter and a legend with the latest values. It is plain text
//! built here, with no plotting crate, so a driver can rewrite it after
//! every update and any browser shows it.

use std::fmt::Write as _;

use crate::history::HistoryRow;
use crate::param::{Kind, Param};

const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 540.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 730.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 470.0;
/// Long runs are thinned to this many points per trace; the plot cannot
/// show more and the file stays small.
const MAX_POINTS: usize = 1500;
/// Colour-blind-friendly colours (Okabe-Ito and Tableau); traces beyond
/// them reuse them dashed.
const COLOURS: [&str; 10] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#8C564B", "#7F7F7F", "#BCBD22",
];

/// The SVG text of the traces of `params` over `rows` (as written to the
/// history). Rows shorter than the parameter list leave gaps, never panic.
#[must_use]
pub fn traces_svg(params: &[Param], rows: &[HistoryRow]) -> String {
    let mut svg = String::new();
    let max_games = rows.iter().map(|r| r.games).max().unwrap_or(0).max(1);
    let step = nice_step(max_games as f64 / 5.0);
    let x_of = |games: u64| LEFT + (RIGHT - LEFT) * games as f64 / max_games as f64;
    let y_of = |share: f64| BOTTOM - (BOTTOM - TOP) * share;

    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        svg,
        r#"<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="white"/>"#
    );
    let games = rows.last().map_or(0, |r| r.games);
    let _ = writeln!(
        svg,
        r#"<text x="{LEFT}" y="28" font-size="16">SPSA parameter traces ({games} games)</text>"#
    );

    // Horizontal grid and y labels.
    for quarter in 0..=4 {
        let share = f64::from(quarter) / 4.0;
        let y = y_of(share);
        let _ = writeln!(
            svg,
            r##"<line x1="{LEFT}" y1="{y}" x2="{RIGHT}" y2="{y}" stroke="#e0e0e0"/>"##
        );
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}" text-anchor="end">{}%</text>"#,
            LEFT - 6.0,
            y + 4.0,
            quarter * 25
        );
    }
    // Vertical ticks and x labels.
    let mut tick = 0.0;
    while tick <= max_games as f64 + 1e-9 {
        let x = LEFT + (RIGHT - LEFT) * tick / max_games as f64;
        let _ = writeln!(
            svg,
            r##"<line x1="{x}" y1="{BOTTOM}" x2="{x}" y2="{}" stroke="#000"/>"##,
            BOTTOM + 5.0
        );
        let _ = writeln!(
            svg,
            r#"<text x="{x}" y="{}" text-anchor="middle">{}</text>"#,
            BOTTOM + 20.0,
            games_label(tick)
        );
        tick += step;
    }
    // Axes and their titles.
    let _ = writeln!(
        svg,
        r##"<line x1="{LEFT}" y1="{BOTTOM}" x2="{RIGHT}" y2="{BOTTOM}" stroke="#000"/>"##
    );
    let _ = writeln!(
        svg,
        r##"<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{BOTTOM}" stroke="#000"/>"##
    );
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}" text-anchor="middle">games</text>"#,
        (LEFT + RIGHT) / 2.0,
        BOTTOM + 42.0
    );
    let _ = writeln!(
        svg,
        r#"<text x="18" y="{0}" text-anchor="middle" transform="rotate(-90 18 {0})">position in range (min 0%, max 100%)</text>"#,
        (TOP + BOTTOM) / 2.0
    );

    // One trace and one legend entry per parameter.
    let picked = thin(rows.len());
    for (i, param) in params.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let dash = if i >= COLOURS.len() {
            r#" stroke-dasharray="6 3""#
        } else {
            ""
        };
        let mut points = String::new();
        for &r in &picked {
            let row = &rows[r];
            if let Some(&value) = row.values.get(i)
                && value.is_finite()
            {
                if !points.is_empty() {
                    points.push(' ');
                }
                let _ = write!(points, "{:.1},{:.1}", x_of(row.games), y_of(param.normalize(value)));
            }
        }
        let name = escape(&param.name);
        let _ = writeln!(
            svg,
            r#"<polyline data-name="{name}" fill="none" stroke="{colour}" stroke-width="1.5"{dash} points="{points}"/>"#
        );
        let y = TOP + 8.0 + 20.0 * i as f64;
        let x = RIGHT + 20.0;
        let _ = writeln!(
            svg,
            r#"<line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="{colour}" stroke-width="3"{dash}/>"#,
            x + 24.0
        );
        let latest = rows
            .last()
            .and_then(|r| r.values.get(i))
            .map(|&v| legend_value(param, v));
        let label = match latest {
            Some(v) => format!("{name} = {}", escape(&v)),
            None => name,
        };
        let _ = writeln!(svg, r#"<text x="{}" y="{}">{label}</text>"#, x + 30.0, y + 4.0);
    }
    svg.push_str("</svg>\n");
    svg
}

/// A value for the legend: whole numbers as they are, others to four
/// significant digits (the exact values are in the history).
fn legend_value(param: &Param, value: f64) -> String {
    let value = param.settle(value);
    if param.kind == Kind::Int || !value.is_finite() || value == 0.0 {
        return param.format_value(value);
    }
    let decimals = (3.0 - value.abs().log10().floor()).clamp(0.0, 12.0) as usize;
    format!("{value:.decimals$}")
}

/// Which rows to draw: all, or `MAX_POINTS` spread evenly, first and last
/// always included.
fn thin(len: usize) -> Vec<usize> {
    if len <= MAX_POINTS {
        return (0..len).collect();
    }
    (0..MAX_POINTS).map(|i| i * (len - 1) / (MAX_POINTS - 1)).collect()
}

/// A tick spacing of 1, 2 or 5 times a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let magnitude = 10f64.powf(raw.log10().floor());
    let mantissa = raw / magnitude;
    let nice = if mantissa <= 1.0 {
        1.0
    } else if mantissa <= 2.0 {
        2.0
    } else if mantissa <= 5.0 {
        5.0
    } else {
        10.0
    };
    (nice * magnitude).max(1.0)
}

/// `20000` as `20k`, `1500000` as `1.5M`, small counts as they are.
fn games_label(games: f64) -> String {
    if games >= 1e6 {
        format!("{}M", games / 1e6)
    } else if games >= 1e4 {
        format!("{}k", games / 1e3)
    } else {
        format!("{games}")
    }
}

/// Text safe inside an XML attribute or element.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(ch),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_and_labels_read_well() {
        assert_eq!(nice_step(4000.0), 5000.0);
        assert_eq!(nice_step(20_000.0), 20_000.0);
        assert_eq!(nice_step(0.0), 1.0);
        assert_eq!(games_label(20_000.0), "20k");
        assert_eq!(games_label(2500.0), "2500");
        assert_eq!(escape("a<b&\"c\""), "a&lt;b&amp;&quot;c&quot;");
        let float = Param::new("f", Kind::Float, 1.0, 0.0, 5000.0, 0.1, 0.002).expect("valid");
        assert_eq!(legend_value(&float, 1.350_226_418), "1.350");
        assert_eq!(legend_value(&float, 0.701_759_7), "0.7018");
        assert_eq!(legend_value(&float, 1234.567), "1235");
        assert_eq!(legend_value(&float, 0.0), "0");
        assert_eq!(thin(3), vec![0, 1, 2]);
        let picked = thin(10_000);
        assert_eq!((picked.len(), picked[0], picked[MAX_POINTS - 1]), (MAX_POINTS, 0, 9999));
    }
}
