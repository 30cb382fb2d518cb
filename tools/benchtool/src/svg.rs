//! What both charts share, the MB/s bars of [`crate::chart`] and the lines against
//! distinct keys of [`crate::keys::chart`]: a self-contained SVG from plotters' SVG
//! backend (no font files, no system libraries; text is left to the viewer's
//! sans-serif), a white page with a strip for the title on top, and the text styles
//! of their labels and notes.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::error::{Error, Result};

/// The one font family of the charts, resolved by the viewer.
pub const FONT: &str = "sans-serif";

/// A part of the page, in pixels from its top left corner.
pub type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// What drawing on an [`Area`] returns: plotters' errors, boxed.
pub type Drawn = std::result::Result<(), Box<dyn std::error::Error>>;

/// Writes the SVG of `size` pixels (width, height) to `out`: a white page, whose top
/// `title_px` pixels `draw` gets as the title's strip and the rest as the plot's.
///
/// # Errors
/// [`Error::Draw`] when drawing fails or the file cannot be written.
pub fn write(
    out: &Path,
    size: (u32, u32),
    title_px: u32,
    draw: impl FnOnce(&Area, &Area) -> Drawn,
) -> Result {
    let root = SVGBackend::new(out, size).into_drawing_area();
    root.fill(&WHITE).map_err(Error::draw(out))?;
    let (title, rest) = root.split_vertically(title_px);
    draw(&title, &rest).map_err(Error::draw(out))?;
    root.present().map_err(Error::draw(out))
}

/// Text of `px` pixels placed by its left end and its vertical middle: a value beside
/// its bar, a label beside its line in a legend.
pub fn left_middle(px: i32) -> TextStyle<'static> {
    TextStyle::from((FONT, px).into_font()).pos(Pos::new(HPos::Left, VPos::Center))
}

/// Grey text of `px` pixels: a note under the title or under the plot (the machine,
/// the toolchain), which the eye reads after the data.
pub fn note(px: i32) -> TextStyle<'static> {
    (FONT, px).into_font().color(&BLACK.mix(0.7))
}
