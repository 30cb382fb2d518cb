//! The bar chart of MB/s per row that the book shows, as SVG ([`crate::svg`]).
//!
//! One horizontal bar per row, top to bottom in table order, so the step names are
//! written horizontally and stay readable however many steps there are, on a log
//! scale, so that equal ratios (what an idea buys) are equal lengths. Two panels on
//! the same scale: the rows that only parse (steps 1–4, the csv crate's pass, the
//! limits) above, the rows that answer the query (steps 5 and later, the
//! yardsticks' queries, the peers) below, so that step 5 being "slower" than step 4
//! reads as what it is: more work. Steps are blue, the yardsticks (the csv crate,
//! simd-csv) orange, the peers (Polars, DuckDB, pyarrow) purple, the limits grey;
//! each bar carries its value. A peer that failed its check has no bar.

use std::path::Path;

use harness::run::measure::thousands;
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::svg::{self, Area, Drawn, FONT, left_middle, note};

const STEP: RGBColor = RGBColor(0x3b, 0x6e, 0xa8);
const BASELINE: RGBColor = RGBColor(0xe0, 0x8a, 0x1e);
const PEER: RGBColor = RGBColor(0x7b, 0x4f, 0x9d);
const LIMIT: RGBColor = RGBColor(0x9a, 0x9a, 0x9a);
/// The kinds of rows: role, color, legend.
const KINDS: [(&str, RGBColor, &str); 4] = [
    ("step", STEP, "steps of the ladder"),
    ("baseline", BASELINE, "yardsticks: csv crate, simd-csv"),
    ("peer", PEER, "peers: Polars, DuckDB, pyarrow"),
    (
        "limit",
        LIMIT,
        "limit: an LF count with memchr, not a parse",
    ),
];

/// The panels, top to bottom: which rows (by their `kind`) and the panel's title.
const PANELS: [(&[&str], &str); 2] = [
    (
        &["parse", "limit"],
        "Parse only: records and fields, no answer",
    ),
    (
        &["query"],
        "The query: SELECT category, COUNT(*), SUM(value) GROUP BY category",
    ),
];
/// Pixels: a bar's row, a panel's caption and axis, the title, the footer.
const BAR_PX: u32 = 44;
const PANEL_PX: u32 = 96;
const TITLE_PX: u32 = 48;
const FOOTER_PX: u32 = 56;

/// One bar: its label, its MB/s, its role (`step`, `baseline`, `peer` or `limit`) and
/// its kind (`parse`, `query` or `limit`).
struct Bar {
    label: String,
    mb_per_s: f64,
    role: String,
    kind: String,
}

/// Writes the chart of `results` (the JSON of [`crate::report::results`]) to `out`.
///
/// # Errors
/// [`Error::NoRows`] when `results` has no rows, [`Error::Draw`] when the file cannot
/// be written.
pub fn write_svg(results: &Value, out: &Path) -> Result {
    let bars: Vec<Bar> = results["rows"]
        .as_array()
        .ok_or(Error::NoRows)?
        .iter()
        .filter_map(|row| {
            Some(Bar {
                label: row["label"].as_str().unwrap_or("?").to_string(),
                mb_per_s: row["mb_per_s"].as_f64()?,
                role: row["role"].as_str().unwrap_or("step").to_string(),
                kind: row["kind"].as_str().unwrap_or("parse").to_string(),
            })
        })
        .collect();
    if bars.is_empty() {
        return Err(Error::NoRows);
    }
    let panels = panels(&bars);
    let height = TITLE_PX
        + FOOTER_PX
        + panels
            .iter()
            .map(|(_, b)| PANEL_PX + BAR_PX * b.len() as u32)
            .sum::<u32>();
    svg::write(out, (1100, height), TITLE_PX, |title, rest| {
        draw(title, rest, results, &bars)
    })
}

/// The panels that have bars, each with its bars in table order.
fn panels(bars: &[Bar]) -> Vec<(&'static str, Vec<&Bar>)> {
    PANELS
        .iter()
        .map(|(kinds, title)| {
            let of_panel = bars.iter().filter(|b| kinds.contains(&b.kind.as_str()));
            (*title, of_panel.collect::<Vec<_>>())
        })
        .filter(|(_, bars)| !bars.is_empty())
        .collect()
}

fn draw(title_area: &Area, rest: &Area, results: &Value, bars: &[Bar]) -> Drawn {
    let (mut plot, footer) = rest.split_vertically(rest.dim_in_pixel().1 - FOOTER_PX);
    let file = &results["file"];
    let runs = results["runs_per_row"].as_u64().unwrap_or(0);
    let title = format!(
        "Throughput per row on {} ({:.1} MB, {}), best of {runs} run{}",
        file["path"].as_str().unwrap_or("?"),
        file["mb"].as_f64().unwrap_or(0.0),
        file["line_ending"].as_str().unwrap_or("?"),
        if runs == 1 { "" } else { "s" }
    );
    title_area.draw(&Text::new(title, (16, 14), (FONT, 22)))?;
    // A log scale shared by both panels: each idea multiplies the speed, and the steps
    // stay readable beside a limit 10 to 100 times faster. Bars start a little below a
    // power of ten.
    let max = bars.iter().map(|b| b.mb_per_s).fold(1.0, f64::max);
    let min = bars.iter().map(|b| b.mb_per_s).fold(max, f64::min).max(1.0);
    let floor = 10f64.powf((min / 1.3).log10().floor());
    for (title, panel_bars) in panels(bars) {
        let px = PANEL_PX + BAR_PX * panel_bars.len() as u32;
        let (area, below) = plot.split_vertically(px);
        draw_panel(&area, title, &panel_bars, floor..max * 2.2)?;
        plot = below;
    }
    draw_footer(&footer, results, bars)
}

/// One panel: its title, and a bar per row on the shared log scale `x`.
fn draw_panel(area: &Area, title: &str, bars: &[&Bar], x: std::ops::Range<f64>) -> Drawn {
    let n = bars.len();
    let floor = x.start;
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FONT, 18))
        .margin(8)
        .margin_right(40)
        .x_label_area_size(40)
        .y_label_area_size(210)
        // Room right of the longest bar for its value; `0..n - 1` holds n values
        // (plotters' integer ranges include their end): one segment per bar.
        .build_cartesian_2d(x.log_scale(), (0..n - 1).into_segmented())?;
    // Row k of the panel is segment n - 1 - k, so the first row is on top.
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
        .axis_desc_style((FONT, 15))
        .draw()?;
    let value_style = left_middle(15);
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
    Ok(())
}

/// Below the plot, where no bar can hide it: the legend (the kinds of rows present),
/// then the machine and the toolchain.
fn draw_footer(footer: &Area, results: &Value, bars: &[Bar]) -> Drawn {
    let mut x = 16;
    for (role, color, legend) in KINDS {
        if bars.iter().any(|b| b.role == role) {
            footer.draw(&Rectangle::new([(x, 6), (x + 14, 20)], color.filled()))?;
            footer.draw(&Text::new(legend, (x + 22, 5), (FONT, 15)))?;
            // The SVG backend cannot measure text: about 7 px a character at 15 px.
            x += 36 + 7 * legend.len() as i32;
        }
    }
    let machine = &results["machine"];
    let machine_note = format!(
        "{}, {} cores, {}; {}",
        machine["cpu"].as_str().unwrap_or("?"),
        machine["cores"].as_str().unwrap_or("?"),
        machine["memory"].as_str().unwrap_or("?"),
        results["toolchain"].as_str().unwrap_or("?")
    );
    footer.draw(&Text::new(machine_note, (16, 32), note(14)))?;
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
                {"label": "1 step1", "role": "step", "kind": "parse", "mb_per_s": 137.4},
                {"label": "baseline (csv crate)", "role": "baseline", "kind": "parse", "mb_per_s": 579.0},
                {"label": "baseline query (csv crate)", "role": "baseline", "kind": "query", "mb_per_s": 431.6},
                {"label": "polars 2.1.0", "role": "peer", "kind": "query", "mb_per_s": 847.0},
                {"label": "pyarrow 26.0.1", "role": "peer", "kind": "query", "mb_per_s": null},
                {"label": "limit, 1 core", "role": "limit", "kind": "limit", "mb_per_s": 6817.0},
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
            "polars 2.1.0",
            "847 MB/s",
            "Parse only",
            "The query: SELECT",
            "peers: Polars",
            "MB = 10^6 bytes",
            "best of 3 runs",
            "Test CPU",
        ] {
            assert!(svg.contains(text), "the chart lacks {text:?}");
        }
        assert!(
            !svg.contains("pyarrow 26.0.1"),
            "a peer that failed its check has no bar"
        );
    }

    #[test]
    fn no_rows_is_an_error() {
        let out = std::env::temp_dir().join("benchtool-never-written.svg");
        assert!(write_svg(&serde_json::json!({"rows": []}), &out).is_err());
    }
}
