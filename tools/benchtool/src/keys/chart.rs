//! `keys.svg`: a line per engine, MB/s against distinct keys (the series of
//! [`super::series`]), on log scales both: keys from 10 to 10^7 span six decades, and
//! MB/s on a log scale, as in [`crate::chart`], makes equal ratios equal heights, so a
//! line's slope reads as how much each tenfold of keys costs that engine. The legend
//! stands in a column on the right where no line can cross it; a step's points are
//! dots (hollow, on a dashed line of the step's own color, for a step that runs on
//! every core run on one thread), a yardstick's crosses, a peer's triangles, so that lines of near colors
//! still part. Self-contained SVG, as [`crate::chart`] ([`crate::svg`]).

use std::path::Path;

use harness::run::measure::thousands;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use super::{Run, Series, machines, records};
use crate::error::Result;
use crate::figures::one_thread_of;
use crate::svg::{self, Area, Drawn, FONT, left_middle, note};

/// The lines' colors, one per series in order: Tableau's ten, the pale ones (yellow,
/// pink, grey) darkened so that a 2 px line still shows, and six more, so that the
/// sixteen engines of a run with `--peers` (step 1, steps 5 to 13 with a load step's
/// table query, the csv crate and simd-csv, three peers) each have their own.
const COLORS: [RGBColor; 16] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0xc9, 0xa8, 0x1c),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xd9, 0x5f, 0x8e),
    RGBColor(0x55, 0x55, 0x55),
    RGBColor(0x1b, 0x3a, 0x6b),
    RGBColor(0x7b, 0x4f, 0x9d),
    RGBColor(0x2e, 0x7d, 0x32),
    RGBColor(0xa6, 0x3a, 0x00),
    RGBColor(0x00, 0x83, 0x8f),
    RGBColor(0x8a, 0x8a, 0x00),
];
/// Pixels: the chart (readable at 700 wide: text of 14 px stays above 12), the title
/// and subtitle, the legend's column, a line of the legend.
const WIDTH: u32 = 760;
const HEIGHT: u32 = 500;
const TITLE_PX: u32 = 60;
const LEGEND_PX: u32 = 210;
const LEGEND_LINE_PX: i32 = 22;

/// Writes the chart of `series`, drawn from `runs`, to `out`.
///
/// # Errors
/// [`crate::Error::Draw`] when the file cannot be written.
pub fn write_svg(runs: &[Run], series: &[Series], out: &Path) -> Result {
    svg::write(out, (WIDTH, HEIGHT), TITLE_PX, |title, rest| {
        draw(title, rest, runs, series)
    })
}

fn draw(title_area: &Area, rest: &Area, runs: &[Run], series: &[Series]) -> Drawn {
    let title = format!(
        "The query's MB/s against distinct keys ({} rows a file)",
        records(runs).join(" or ")
    );
    title_area.draw(&Text::new(title, (16, 10), (FONT, 20)))?;
    let subtitle = machines(runs).join("; ");
    title_area.draw(&Text::new(subtitle, (16, 38), note(14)))?;
    let (plot, legend) = rest.split_horizontally(WIDTH - LEGEND_PX);

    let keys = runs.iter().map(|r| r.keys as f64);
    let x = keys.clone().fold(10.0, f64::min)..keys.fold(1e7, f64::max);
    let values = || series.iter().flat_map(|x| x.points.iter().map(|p| p.1));
    let max = values().fold(1.0, f64::max);
    let min = values().fold(max, f64::min).max(0.1);
    // Ticks of our own: plotters' log axis crowds its labels where a range ends just
    // past a power of ten. Labels at 1, 2 and 5 times each power of ten (MB/s) and at
    // each power (keys); a light line at every integer multiple, the log paper look.
    let y = min / 1.5..max * 1.5;
    let (x_ticks, x_grid) = (ticks(&x, &[1.0]), ticks(&x, &ONE_TO_NINE));
    let (y_ticks, y_grid) = (ticks(&y, &[1.0, 2.0, 5.0]), ticks(&y, &ONE_TO_NINE));
    let x = x
        .log_scale()
        .with_key_points(x_ticks)
        .with_light_points(x_grid);
    let y = y
        .log_scale()
        .with_key_points(y_ticks)
        .with_light_points(y_grid);
    let mut chart = ChartBuilder::on(&plot)
        .margin(10)
        .margin_right(20)
        .x_label_area_size(50)
        .y_label_area_size(76)
        .build_cartesian_2d(x, y)?;
    chart
        .configure_mesh()
        .light_line_style(BLACK.mix(0.05))
        .bold_line_style(BLACK.mix(0.18))
        .x_desc("distinct keys in category (log scale)")
        .y_desc("MB/s, log scale (MB = 10^6 bytes)")
        .x_label_formatter(&|v| compact(*v))
        .y_label_formatter(&|v| thousands(v.round() as u64))
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 14))
        .draw()?;
    let styles = styles(series);
    for (x, &(color, one)) in series.iter().zip(&styles) {
        let points: Vec<(f64, f64)> = x.points.iter().map(|&(k, v)| (k as f64, v)).collect();
        if one {
            let line = DashedPathElement::new(points.clone(), 6, 4, color.stroke_width(2));
            chart.draw_series(std::iter::once(line))?;
        } else {
            let line = PathElement::new(points.clone(), color.stroke_width(2));
            chart.draw_series(std::iter::once(line))?;
        }
        for at in points {
            marker(chart.plotting_area(), at, &x.role, color, one)?;
        }
    }

    // The legend, in series order: a stretch of the line with its marker, the label.
    for (i, (x, &(color, one))) in series.iter().zip(&styles).enumerate() {
        let y = 24 + LEGEND_LINE_PX * i as i32;
        if one {
            legend.draw(&DashedPathElement::new(
                [(6, y), (38, y)],
                6,
                4,
                color.stroke_width(2),
            ))?;
        } else {
            legend.draw(&PathElement::new([(6, y), (38, y)], color.stroke_width(2)))?;
        }
        marker(&legend, (22, y), &x.role, color, one)?;
        legend.draw(&Text::new(x.label.clone(), (46, y), left_middle(14)))?;
    }
    Ok(())
}

/// Each series' color, and whether it is a step that runs on every core, run on one
/// thread (`step9_1thread`, [`crate::figures::row_id`]): that one takes its own
/// step's color, so the two lines read as one step, and is dashed; every other
/// series takes the next of [`COLORS`].
fn styles(series: &[Series]) -> Vec<(RGBColor, bool)> {
    let mut next = COLORS.iter().cycle();
    let own: Vec<Option<RGBColor>> = series
        .iter()
        .map(|x| match one_thread_of(&x.id) {
            Some(_) => None,
            None => next.next().copied(),
        })
        .collect();
    series
        .iter()
        .zip(&own)
        .map(|(x, color)| match color {
            Some(color) => (*color, false),
            None => {
                let parent = one_thread_of(&x.id);
                let at = series.iter().position(|p| Some(p.id.as_str()) == parent);
                let color = at.and_then(|at| own[at]);
                (
                    color.unwrap_or_else(|| *next.next().expect("a cycle")),
                    true,
                )
            }
        })
        .collect()
}

/// A point's marker, by role, so that lines of near colors still part: a dot for a
/// step (hollow for one on one thread, `one`), a cross for a yardstick, a triangle
/// for a peer.
fn marker<CT: CoordTranslate>(
    area: &DrawingArea<SVGBackend, CT>,
    at: CT::From,
    role: &str,
    color: RGBColor,
    one: bool,
) -> Drawn
where
    CT::From: Copy,
{
    match role {
        "peer" => area.draw(&TriangleMarker::new(at, 6, color.filled()))?,
        "baseline" => area.draw(&Cross::new(at, 5, color.stroke_width(2)))?,
        _ if one => area.draw(&Circle::new(at, 4, WHITE.filled()))?,
        _ => area.draw(&Circle::new(at, 4, color.filled()))?,
    }
    if one && role == "step" {
        area.draw(&Circle::new(at, 4, color.stroke_width(2)))?;
    }
    Ok(())
}

const ONE_TO_NINE: [f64; 9] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0];

/// Each power of ten times each of `multiples` that falls within `range`, ascending.
fn ticks(range: &std::ops::Range<f64>, multiples: &[f64]) -> Vec<f64> {
    let (low, high) = (
        range.start.log10().floor() as i32,
        range.end.log10().ceil() as i32,
    );
    (low..=high)
        .flat_map(|e| multiples.iter().map(move |m| m * 10f64.powi(e)))
        .filter(|v| range.contains(v) || *v == range.end)
        .collect()
}

/// A keys tick, short enough for a log axis: `10`, `100`, `1k`, `100k`, `1M`, `10M`.
fn compact(v: f64) -> String {
    let v = v.round() as u64;
    match v {
        v if v >= 1_000_000 && v % 1_000_000 == 0 => format!("{}M", thousands(v / 1_000_000)),
        v if v >= 1_000 && v % 1_000 == 0 => format!("{}k", thousands(v / 1_000)),
        v => thousands(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_ticks_are_short_and_mbps_ticks_one_two_five() {
        let labels: Vec<_> = [10.0, 1e3, 1e5, 1e6, 1e7, 250.0].map(compact).to_vec();
        assert_eq!(labels, ["10", "1k", "100k", "1M", "10M", "250"]);
        assert_eq!(
            ticks(&(150.0..2500.0), &[1.0, 2.0, 5.0]),
            [200.0, 500.0, 1000.0, 2000.0]
        );
        assert_eq!(ticks(&(10.0..1e7), &[1.0]).len(), 7);
    }

    #[test]
    fn a_step_on_one_thread_is_its_steps_color_dashed() {
        let x = |id: &str| Series {
            id: id.to_string(),
            label: id.to_string(),
            role: "step".to_string(),
            points: vec![(10, 100.0)],
        };
        let series = [x("step7"), x("step9_1thread"), x("step9"), x("polars")];
        let drawn = styles(&series);
        assert_eq!(drawn[0], (COLORS[0], false));
        assert_eq!(drawn[1], (COLORS[1], true));
        assert_eq!(drawn[2], (COLORS[1], false));
        assert_eq!(drawn[3], (COLORS[2], false));
        // Without its step's own line, it takes a color of its own.
        let alone = styles(&[x("step9_1thread"), x("polars")]);
        assert_eq!(alone, [(COLORS[1], true), (COLORS[0], false)]);
    }
}
