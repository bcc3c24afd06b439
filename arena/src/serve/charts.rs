//! The run page's charts, drawn on the server as SVG with the `plotters`
//! crate (as `traces.svg` of `arena tune` is): the LLR against games with
//! the SPRT's bounds, and the Elo with its 95% interval against games.

use plotters::prelude::*;

use super::runs::Point;

/// Long runs are thinned to about this many points: the chart cannot show
/// more.
const MAX_POINTS: usize = 1000;

const SIZE: (u32, u32) = (720, 360);

fn thin(points: &[Point]) -> Vec<Point> {
    let step = points.len().div_ceil(MAX_POINTS).max(1);
    let mut picked: Vec<Point> = points.iter().step_by(step).copied().collect();
    if let Some(last) = points.last()
        && picked.last() != Some(last)
    {
        picked.push(*last);
    }
    picked
}

/// The LLR of each complete pair against the games played, with the
/// bounds as dashed lines; an empty chart saying so when the run tests no
/// SPRT.
///
/// # Errors
/// What the plotting crate reports, as a text.
pub fn llr_svg(points: &[Point], bounds: Option<(f64, f64)>) -> Result<String, String> {
    let mut svg = String::new();
    draw_llr(&mut svg, points, bounds).map_err(|e| format!("cannot draw the LLR chart: {e}"))?;
    Ok(svg)
}

fn draw_llr(svg: &mut String, points: &[Point], bounds: Option<(f64, f64)>) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let Some((lower, upper)) = bounds else {
        root.draw(&Text::new("no SPRT in this run", (20, 30), ("sans-serif", 18)))?;
        root.present()?;
        return Ok(());
    };
    let points = thin(points);
    let max_games = points.last().map_or(1, |p| p.games).max(1);
    let (low, high) = points
        .iter()
        .filter_map(|p| p.llr)
        .fold((lower, upper), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let pad = (high - low) * 0.05;
    let mut chart = ChartBuilder::on(&root)
        .caption("LLR", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(0..max_games, (low - pad)..(high + pad))?;
    chart.configure_mesh().x_desc("games").y_desc("LLR").draw()?;
    for bound in [lower, upper] {
        chart.draw_series(DashedLineSeries::new(
            [(0, bound), (max_games, bound)],
            6,
            4,
            RGBColor(120, 120, 120).stroke_width(1),
        ))?;
    }
    chart.draw_series(LineSeries::new(
        points.iter().filter_map(|p| Some((p.games, p.llr?))),
        BLUE.stroke_width(2),
    ))?;
    root.present()?;
    Ok(())
}

/// The first engine's Elo after each complete pair against the games
/// played, with its 95% interval as two thin lines.
///
/// # Errors
/// What the plotting crate reports, as a text.
pub fn elo_svg(points: &[Point]) -> Result<String, String> {
    let mut svg = String::new();
    draw_elo(&mut svg, points).map_err(|e| format!("cannot draw the Elo chart: {e}"))?;
    Ok(svg)
}

fn draw_elo(svg: &mut String, points: &[Point]) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::with_string(svg, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let points: Vec<Point> = thin(points)
        .into_iter()
        .filter(|p| p.elo.is_finite() && p.elo_ci95.is_finite())
        .collect();
    let max_games = points.last().map_or(1, |p| p.games).max(1);
    // Early intervals are huge: keep the scale to what can be read.
    let clamp = |v: f64| v.clamp(-800.0, 800.0);
    let (low, high) = points.iter().fold((-10.0f64, 10.0f64), |(lo, hi), p| {
        (lo.min(clamp(p.elo - p.elo_ci95)), hi.max(clamp(p.elo + p.elo_ci95)))
    });
    let mut chart = ChartBuilder::on(&root)
        .caption("Elo (95% interval)", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(0..max_games, low..high)?;
    chart.configure_mesh().x_desc("games").y_desc("Elo").draw()?;
    chart.draw_series(LineSeries::new([(0, 0.0), (max_games, 0.0)], BLACK.stroke_width(1)))?;
    for sign in [-1.0, 1.0] {
        chart.draw_series(LineSeries::new(
            points.iter().map(|p| (p.games, clamp(p.elo + sign * p.elo_ci95))),
            RGBColor(230, 140, 60).stroke_width(1),
        ))?;
    }
    chart.draw_series(LineSeries::new(
        points.iter().map(|p| (p.games, clamp(p.elo))),
        RGBColor(200, 40, 40).stroke_width(2),
    ))?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(n: u64) -> Vec<Point> {
        (1..=n)
            .map(|k| Point {
                games: 2 * k,
                elo: 10.0 + (k % 5) as f64,
                elo_ci95: 400.0 / (k as f64).sqrt(),
                llr: Some(0.01 * k as f64),
            })
            .collect()
    }

    #[test]
    fn charts_draw_lines_for_long_and_empty_runs() {
        let long = points(5000);
        let llr = llr_svg(&long, Some((-2.94, 2.94))).unwrap();
        assert!(llr.starts_with("<svg") && llr.contains("LLR"), "{}", &llr[..80]);
        // The curve and the two bounds.
        assert!(llr.matches("<polyline").count() >= 1, "{llr}");
        assert!(llr.len() < 300_000, "{} bytes", llr.len());
        let elo = elo_svg(&long).unwrap();
        assert!(elo.matches("<polyline").count() >= 4, "{elo}");
        assert!(llr_svg(&[], Some((-2.94, 2.94))).is_ok());
        assert!(elo_svg(&[]).is_ok());
        assert!(llr_svg(&long, None).unwrap().contains("no SPRT"));
    }
}
