//! The evaluation chart of a game, as SVG (plotters' SVG backend): p1's score after every
//! move, with a zero line, the decided lines, the marks and a legend. Heuristic scores are
//! hollow points held within ±[`DECIDED`] points; exact margins within ±[`DECIDED`] are
//! filled points at their value; a proven result beyond that, or whose margin is not known
//! exactly (a bound, a won or lost game not scored by points), is a filled point in the
//! "won" or "lost" band outside the ±[`DECIDED`] lines, so that a proven win is never drawn
//! as a score that looks like a heuristic lead.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::evaluate::{DECIDED, Mark, MoveAnalysis, Value};

/// The chart's size in pixels.
const WIDTH: u32 = 960;
const HEIGHT: u32 = 480;

const CURVE: RGBColor = RGBColor(31, 94, 160);
const GRID: RGBColor = RGBColor(236, 236, 236);
const DASH: RGBColor = RGBColor(150, 150, 150);
const WON: RGBColor = RGBColor(30, 150, 60);
const LOST: RGBColor = RGBColor(204, 30, 30);

/// The won and lost bands lie between ±([`DECIDED`] + `BAND_GAP`) and ±[`LIMIT`].
const BAND_GAP: f64 = 0.5;
/// The chart's y range: ±`LIMIT`.
const LIMIT: f64 = DECIDED + 3.0;
/// Where a proven result is drawn in its band.
const BAND_MIDDLE: f64 = (DECIDED + BAND_GAP + LIMIT) / 2.0;

/// Where a value (p1's) is drawn: a heuristic score held within ±[`DECIDED`], an exact
/// margin at its value if within, any other proven result in the won or lost band.
fn height(value: Value) -> f64 {
    let points = value.points();
    match value {
        Value::Cp(_) => points.clamp(-DECIDED, DECIDED),
        Value::Exact(_) if points.abs() <= DECIDED => points,
        _ if points > 0.0 => BAND_MIDDLE,
        _ => -BAND_MIDDLE,
    }
}

fn mark_colour(mark: Mark) -> RGBColor {
    match mark {
        Mark::Blunder => RGBColor(204, 30, 30),
        Mark::Mistake => RGBColor(235, 120, 20),
        Mark::Inaccuracy => RGBColor(200, 160, 0),
        Mark::Only => RGBColor(30, 150, 60),
        Mark::None => CURVE,
    }
}

/// What the chart shows of a game.
pub struct ChartSpec<'a> {
    pub title: &'a str,
    /// The y axis' description, e.g. `points for p1 (d1)`.
    pub y_label: &'a str,
    /// p1's value of the position the game started from.
    pub start: Value,
    pub moves: &'a [MoveAnalysis],
}

/// plotters could not draw the chart. Its errors are generic over the drawing backend and
/// only say themselves through `Debug`: that text is kept.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw the chart: {detail}")]
pub struct ChartError {
    detail: String,
}

fn draw_error<E: std::fmt::Debug>(e: E) -> ChartError {
    ChartError {
        detail: format!("{e:?}"),
    }
}

/// The SVG document: one circle a move (filled for proven values, hollow for heuristic
/// ones, coloured by mark; see `height` for where), the mark written next to it.
pub fn render(spec: &ChartSpec) -> Result<String, ChartError> {
    let limit = LIMIT;
    let n = spec.moves.len();
    let x_max = (n.max(1)) as f64;
    let mut curve = vec![(0.0, height(spec.start))];
    curve.extend(
        spec.moves
            .iter()
            .map(|m| (m.ply as f64, height(m.p1_value))),
    );
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        let (upper, lower) = root.split_vertically(HEIGHT - 30);
        let mut chart = ChartBuilder::on(&upper)
            .caption(spec.title, ("sans-serif", 20).into_font())
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(0.0..x_max, -limit..limit)
            .map_err(draw_error)?;
        chart
            .configure_mesh()
            .x_desc("move (ply)")
            .y_desc(spec.y_label)
            .light_line_style(TRANSPARENT)
            .bold_line_style(GRID)
            .axis_desc_style(("sans-serif", 15))
            .label_style(("sans-serif", 13))
            .x_labels(12)
            .y_labels(14)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| {
                if y.abs() < 1e-9 {
                    "0".to_string()
                } else if y.abs() > DECIDED + 1e-9 {
                    // The bands hold results, not scores.
                    String::new()
                } else {
                    format!("{y:+.0}")
                }
            })
            .draw()
            .map_err(draw_error)?;
        // The bands of proven results, labelled.
        for (low, high, colour, label) in [
            (DECIDED + BAND_GAP, LIMIT, WON, "won (proven)"),
            (-LIMIT, -DECIDED - BAND_GAP, LOST, "lost (proven)"),
        ] {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(0.0, low), (x_max, high)],
                    colour.mix(0.10).filled(),
                )))
                .map_err(draw_error)?;
            let style = ("sans-serif", 12)
                .into_font()
                .color(&colour)
                .pos(Pos::new(HPos::Left, VPos::Center));
            chart
                .draw_series(std::iter::once(Text::new(
                    label,
                    (x_max * 0.005, (low + high) / 2.0),
                    style,
                )))
                .map_err(draw_error)?;
        }
        // p1's advantage shaded towards the zero line.
        chart
            .draw_series(AreaSeries::new(
                curve.iter().copied(),
                0.0,
                CURVE.mix(0.08).filled(),
            ))
            .map_err(draw_error)?;
        chart
            .draw_series(LineSeries::new(
                [(0.0, 0.0), (x_max, 0.0)],
                BLACK.stroke_width(1),
            ))
            .map_err(draw_error)?;
        for level in [DECIDED, -DECIDED] {
            chart
                .draw_series(DashedLineSeries::new(
                    [(0.0, level), (x_max, level)],
                    6,
                    4,
                    DASH.stroke_width(1),
                ))
                .map_err(draw_error)?;
        }
        chart
            .draw_series(LineSeries::new(
                curve.iter().copied(),
                CURVE.stroke_width(2),
            ))
            .map_err(draw_error)?;
        chart
            .draw_series(spec.moves.iter().map(|m| {
                let colour = mark_colour(m.mark);
                let point = (m.ply as f64, height(m.p1_value));
                let style = if m.p1_value.is_proven() {
                    colour.filled()
                } else {
                    colour.stroke_width(2)
                };
                Circle::new(point, 3, style)
            }))
            .map_err(draw_error)?;
        chart
            .draw_series(spec.moves.iter().filter(|m| m.mark != Mark::None).map(|m| {
                let value = height(m.p1_value);
                let offset = if value >= 0.0 { -20 } else { 7 };
                let style = ("sans-serif", 14)
                    .into_font()
                    .style(FontStyle::Bold)
                    .color(&mark_colour(m.mark))
                    .pos(Pos::new(HPos::Center, VPos::Top));
                EmptyElement::at((m.ply as f64, value))
                    + Text::new(m.mark.as_str().to_string(), (0, offset), style)
            }))
            .map_err(draw_error)?;
        legend(&lower)?;
        root.present().map_err(draw_error)?;
    }
    Ok(svg)
}

/// The legend, in a strip under the chart: what the curve, the dashed lines, the points and
/// the colours mean.
fn legend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>) -> Result<(), ChartError> {
    let font = ("sans-serif", 15).into_font().color(&BLACK);
    // The SVG is laid out before a browser chooses the font: an average glyph width.
    let width = |label: &str| (label.chars().count() as f64 * 6.4) as i32;
    let text = |x: i32, label: &str| {
        Text::new(
            label.to_string(),
            (x, 15),
            font.clone().pos(Pos::new(HPos::Left, VPos::Center)),
        )
    };
    let mut x = 56;
    area.draw(&PathElement::new(
        [(x, 15), (x + 22, 15)],
        CURVE.stroke_width(2),
    ))
    .map_err(draw_error)?;
    let label = "p1's score after each move (○ heuristic, ● proven)";
    area.draw(&text(x + 28, label)).map_err(draw_error)?;
    x += 28 + width(label) + 14;
    for dash in 0..3 {
        let x0 = x + dash * 8;
        area.draw(&PathElement::new(
            [(x0, 15), (x0 + 5, 15)],
            DASH.stroke_width(1),
        ))
        .map_err(draw_error)?;
    }
    let label = format!("decided: ±{DECIDED:.0}");
    area.draw(&text(x + 28, &label)).map_err(draw_error)?;
    x += 28 + width(&label) + 14;
    for (mark, label) in [
        (Mark::Blunder, "?? blunder"),
        (Mark::Mistake, "? mistake"),
        (Mark::Inaccuracy, "?! inaccuracy"),
        (Mark::Only, "! only move"),
    ] {
        area.draw(&Rectangle::new(
            [(x, 10), (x + 10, 20)],
            mark_colour(mark).filled(),
        ))
        .map_err(draw_error)?;
        area.draw(&text(x + 15, label)).map_err(draw_error)?;
        x += 15 + width(label) + 14;
    }
    Ok(())
}
