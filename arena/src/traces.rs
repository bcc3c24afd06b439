//! `traces.svg` of `arena tune`: each parameter's position in its range
//! (0% at `min`, 100% at `max`, in the tuner's coordinate, so logarithmic
//! for log-scale parameters) against the games played, one line per
//! parameter and a legend with the latest values, drawn from the history
//! rows with the `plotters` crate. The tuning run rewrites it after every
//! update, so any browser shows the run as it goes.

use plotters::prelude::*;
use spsa::{HistoryRow, Param};

/// Long runs are thinned to about this many points per trace: the plot
/// cannot show more, and the file stays small.
const MAX_POINTS: usize = 1500;

/// The SVG text of the traces of `params` over `rows` (as written to
/// `history.csv`). Rows shorter than the parameter list leave gaps.
///
/// # Errors
/// What the plotting crate reports (a text), should drawing fail.
pub fn traces_svg(params: &[Param], rows: &[HistoryRow]) -> Result<String, String> {
    let mut svg = String::new();
    draw(&mut svg, params, rows).map_err(|e| format!("cannot draw the traces: {e}"))?;
    Ok(svg)
}

fn draw(svg: &mut String, params: &[Param], rows: &[HistoryRow]) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::with_string(svg, (960, 540)).into_drawing_area();
    root.fill(&WHITE)?;
    let games = rows.last().map_or(0, |r| r.games);
    let max_games = rows.iter().map(|r| r.games).max().unwrap_or(0).max(1);
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("SPSA parameter traces ({games} games)"), ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(0..max_games, 0.0..100.0)?;
    chart
        .configure_mesh()
        .x_desc("games")
        .y_desc("position in range (min 0%, max 100%)")
        .y_label_formatter(&|y| format!("{y:.0}%"))
        .draw()?;
    let step = rows.len().div_ceil(MAX_POINTS).max(1);
    let picked: Vec<&HistoryRow> = rows
        .iter()
        .step_by(step)
        .chain(rows.last().filter(|_| !(rows.len() - 1).is_multiple_of(step)))
        .collect();
    for (i, param) in params.iter().enumerate() {
        let colour = Palette99::pick(i).to_rgba();
        let points = picked.iter().filter_map(|row| {
            let value = *row.values.get(i)?;
            value.is_finite().then(|| (row.games, 100.0 * param.normalize(value)))
        });
        let label = match rows.last().and_then(|r| r.values.get(i)) {
            Some(&v) => format!("{} = {}", param.name, param.format_value(v)),
            None => param.name.clone(),
        };
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(3)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use spsa::Kind;

    #[test]
    fn every_parameter_gets_a_line_and_a_legend_entry() {
        let params = vec![
            Param::new("alpha", Kind::Int, 50.0, 0.0, 100.0, 5.0, 0.002).unwrap(),
            Param::new("beta", Kind::Float, 1.0, 0.0, 2.0, 0.1, 0.002).unwrap(),
        ];
        let rows: Vec<HistoryRow> = (0..5000u64)
            .map(|k| HistoryRow {
                games: 4 * k,
                values: vec![50.0 + (k % 7) as f64, 1.0],
            })
            .collect();
        let svg = traces_svg(&params, &rows).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        assert!(svg.contains("alpha = ") && svg.contains("beta = "), "{svg}");
        assert!(svg.contains("19996 games"));
        assert!(svg.matches("<polyline").count() >= params.len());
        assert!(svg.len() < 400_000, "{} bytes", svg.len());
        // No rows yet, and rows missing a value, still draw.
        assert!(traces_svg(&params, &[]).unwrap().contains("alpha"));
        let short = [HistoryRow {
            games: 0,
            values: vec![1.0],
        }];
        assert!(traces_svg(&params, &short).is_ok());
    }
}
