//! The bar chart of MB/s per row that the book shows, as SVG (plotters' SVG backend:
//! no font files, no system libraries; text is left to the viewer's sans-serif).
//!
//! One horizontal bar per row, top to bottom in table order, so the step names are
//! written horizontally and stay readable however many steps there are, on a log
//! scale, so that equal ratios (what an idea buys) are equal lengths. Steps are
//! blue, the csv crate's baseline rows (its pass and its query) orange, the limits
//! grey; each bar carries its value.

use std::path::Path;

use harness::measure::thousands;
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use serde_json::Value;

const STEP: RGBColor = RGBColor(0x3b, 0x6e, 0xa8);
const BASELINE: RGBColor = RGBColor(0xe0, 0x8a, 0x1e);
const LIMIT: RGBColor = RGBColor(0x9a, 0x9a, 0x9a);
const FONT: &str = "sans-serif";
/// The kinds of rows: role, color, legend.
const KINDS: [(&str, RGBColor, &str); 3] = [
    ("step", STEP, "steps of the ladder"),
    ("baseline", BASELINE, "baseline: the csv crate"),
    (
        "limit",
        LIMIT,
        "limit: an LF count with memchr, not a parse",
    ),
];

/// One bar: its label, its MB/s and its role (`step`, `baseline` or `limit`).
struct Bar {
    label: String,
    mb_per_s: f64,
    role: String,
}

/// Writes the chart of `results` (the JSON of [`crate::report::results`]) to `out`.
///
/// # Errors
/// A message when `results` has no rows or the file cannot be written.
pub fn write_svg(results: &Value, out: &Path) -> Result<(), String> {
    let bars: Vec<Bar> = results["rows"]
        .as_array()
        .ok_or("results.json has no rows")?
        .iter()
        .map(|row| Bar {
            label: row["label"].as_str().unwrap_or("?").to_string(),
            mb_per_s: row["mb_per_s"].as_f64().unwrap_or(0.0),
            role: row["role"].as_str().unwrap_or("step").to_string(),
        })
        .collect();
    if bars.is_empty() {
        return Err("results.json has no rows".to_string());
    }
    let height = 180 + 44 * bars.len() as u32;
    let root = SVGBackend::new(out, (1000, height)).into_drawing_area();
    draw(&root, results, &bars).map_err(|e| format!("{}: {e}", out.display()))?;
    root.present()
        .map_err(|e| format!("{}: {e}", out.display()))
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    results: &Value,
    bars: &[Bar],
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let (plot, footer) = root.split_vertically(root.dim_in_pixel().1 - 56);
    let n = bars.len();
    // A log scale: each idea multiplies the speed, and the steps stay readable beside
    // a limit 10 to 100 times faster. Bars start a little below a power of ten.
    let max = bars.iter().map(|b| b.mb_per_s).fold(1.0, f64::max);
    let min = bars.iter().map(|b| b.mb_per_s).fold(max, f64::min).max(1.0);
    let floor = 10f64.powf((min / 1.3).log10().floor());
    let file = &results["file"];
    let runs = results["runs_per_row"].as_u64().unwrap_or(0);
    let title = format!(
        "Throughput per step on {} ({:.1} MB, {}), best of {runs} run{}",
        file["path"].as_str().unwrap_or("?"),
        file["mb"].as_f64().unwrap_or(0.0),
        file["line_ending"].as_str().unwrap_or("?"),
        if runs == 1 { "" } else { "s" }
    );
    let mut chart = ChartBuilder::on(&plot)
        .caption(title, (FONT, 22))
        .margin(16)
        .margin_right(40)
        .x_label_area_size(56)
        .y_label_area_size(190)
        // Room right of the longest bar for its value; `0..n - 1` holds n values
        // (plotters' integer ranges include their end): one segment per bar.
        .build_cartesian_2d((floor..max * 2.2).log_scale(), (0..n - 1).into_segmented())?;
    // Row k of the table is segment n - 1 - k, so the first row is on top.
    let segment = |k: usize| n - 1 - k;
    let labels: Vec<&str> = bars.iter().map(|b| b.label.as_str()).collect();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .light_line_style(BLACK.mix(0.06))
        .x_desc("MB/s, log scale: input bytes per second, MB = 10^6 bytes (higher is faster)")
        .x_labels(16)
        .x_label_formatter(&|v| thousands(v.round() as u64))
        .y_labels(n)
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) if *i < n => labels[n - 1 - i].to_string(),
            _ => String::new(),
        })
        .label_style((FONT, 16))
        .axis_desc_style((FONT, 17))
        .draw()?;
    let value_style =
        TextStyle::from((FONT, 15).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for (role, color, _) in KINDS {
        let of_role = || bars.iter().enumerate().filter(move |(_, b)| b.role == role);
        chart.draw_series(of_role().map(|(k, bar)| {
            let (from, to) = (
                SegmentValue::Exact(segment(k)),
                SegmentValue::Exact(segment(k) + 1),
            );
            let mut rect = Rectangle::new([(floor, from), (bar.mb_per_s, to)], color.filled());
            rect.set_margin(7, 7, 0, 0);
            rect
        }))?;
        chart.draw_series(of_role().map(|(k, bar)| {
            let at = (bar.mb_per_s * 1.03, SegmentValue::CenterOf(segment(k)));
            Text::new(
                format!("{} MB/s", thousands(bar.mb_per_s.round() as u64)),
                at,
                value_style.clone(),
            )
        }))?;
    }
    draw_footer(&footer, results, bars)
}

/// Below the plot, where no bar can hide it: the legend (the kinds of rows present),
/// then the machine and the toolchain.
fn draw_footer<DB: DrawingBackend>(
    footer: &DrawingArea<DB, plotters::coord::Shift>,
    results: &Value,
    bars: &[Bar],
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    let mut x = 16;
    for (role, color, legend) in KINDS {
        if bars.iter().any(|b| b.role == role) {
            footer.draw(&Rectangle::new([(x, 6), (x + 14, 20)], color.filled()))?;
            footer.draw(&Text::new(legend, (x + 22, 5), (FONT, 15)))?;
            // The SVG backend cannot measure text: about 8 px a character at 15 px.
            x += 48 + 8 * legend.len() as i32;
        }
    }
    let machine = &results["machine"];
    let note = format!(
        "{}, {} cores, {}; {}",
        machine["cpu"].as_str().unwrap_or("?"),
        machine["cores"].as_str().unwrap_or("?"),
        machine["memory"].as_str().unwrap_or("?"),
        results["toolchain"].as_str().unwrap_or("?")
    );
    footer.draw(&Text::new(
        note,
        (16, 32),
        (FONT, 14).into_font().color(&BLACK.mix(0.7)),
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chart_names_every_row_its_value_and_the_unit() {
        let results = serde_json::json!({
            "machine": {"cpu": "Test CPU", "cores": "2", "memory": "1.0 GiB"},
            "toolchain": "rustc 1.0",
            "file": {"path": "data/bench.csv", "mb": 49.3, "line_ending": "LF"},
            "runs_per_row": 3,
            "rows": [
                {"label": "1 step1", "role": "step", "mb_per_s": 137.4},
                {"label": "baseline (csv crate)", "role": "baseline", "mb_per_s": 579.0},
                {"label": "baseline query (csv crate)", "role": "baseline", "mb_per_s": 431.6},
                {"label": "limit, 1 core", "role": "limit", "mb_per_s": 6817.0},
            ],
        });
        let out = std::env::temp_dir().join(format!("benchtool-chart-{}.svg", std::process::id()));
        write_svg(&results, &out).unwrap();
        let svg = std::fs::read_to_string(&out).unwrap();
        std::fs::remove_file(&out).unwrap();
        for text in [
            "1 step1",
            "baseline (csv crate)",
            "baseline query (csv crate)",
            "limit, 1 core",
            "137 MB/s",
            "432 MB/s",
            "6,817 MB/s",
            "MB = 10^6 bytes",
            "best of 3 runs",
            "Test CPU",
        ] {
            assert!(svg.contains(text), "the chart lacks {text:?}");
        }
    }

    #[test]
    fn no_rows_is_an_error() {
        let out = std::env::temp_dir().join("benchtool-never-written.svg");
        assert!(write_svg(&serde_json::json!({"rows": []}), &out).is_err());
    }
}
