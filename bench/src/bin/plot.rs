//! `plot`: PNG charts of bench/run's results.csv. Text is drawn with a font compiled into the binary, so it
//! needs no fontconfig or system fonts on the GPU machine.
//!
//! usage: plot RESULTS.csv OUTDIR
//!
//! Writes, from the rows whose columns say so:
//! - throughput_vs_read_length.png: group `len` rows, input Mb per wall second against mean read length;
//! - speedup_vs_size.png: group `size` rows, reference wall / rebuilt wall against input size;
//! - time_per_workload.png: every row, reference and rebuilt wall time side by side;
//! - time_by_stage.png: from stages.csv beside RESULTS.csv (if there), each build's wall time split into
//!   index, mapping (reading, seeding, chaining, output), alignment and end, as stacked bars.

use plotters::coord::combinators::IntoLogRange;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::collections::HashMap;
use std::error::Error;
use std::path::Path;

const FONT: &str = "sans-serif";
const REF: RGBColor = RGBColor(0x4c, 0x72, 0xb0);
const NEW: RGBColor = RGBColor(0xdd, 0x84, 0x52);

struct Row {
    workload: String,
    group: String,
    input_bases: f64,
    mean_len: f64,
    ref_wall: f64,
    new_wall: f64,
}

fn load(path: &str) -> Result<Vec<Row>, Box<dyn Error>> {
    let text = std::fs::read_to_string(path)?;
    let mut lines = text.lines();
    let head: HashMap<&str, usize> = lines.next().ok_or("empty CSV")?.split(',').enumerate().map(|(i, h)| (h, i)).collect();
    let col = |name: &str| head.get(name).copied().ok_or_else(|| format!("no column {name}"));
    let (w, g, b, l, rw, nw) = (col("workload")?, col("group")?, col("input_bases")?, col("mean_len")?, col("ref_wall_s")?, col("new_wall_s")?);
    let mut rows = Vec::new();
    for line in lines.filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let num = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(f64::NAN);
        rows.push(Row {
            workload: f[w].to_string(),
            group: f[g].to_string(),
            input_bases: num(b),
            mean_len: num(l),
            ref_wall: num(rw),
            new_wall: num(nw),
        });
    }
    Ok(rows)
}

/// Lower and upper bounds of positive finite values, widened so a single point still gets an axis.
fn span(v: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let (lo, hi) = v.filter(|x| x.is_finite() && *x > 0.0).fold((f64::MAX, 0f64), |(a, b), x| (a.min(x), b.max(x)));
    if log {
        (lo / 1.5, hi * 1.5)
    } else {
        (0.0, hi * 1.15)
    }
}

/// 1500 -> "1.5k": log-axis labels that fit.
fn human(x: f64) -> String {
    let (v, unit) = match x {
        x if x >= 1e9 => (x / 1e9, "G"),
        x if x >= 1e6 => (x / 1e6, "M"),
        x if x >= 1e3 => (x / 1e3, "k"),
        x => (x, ""),
    };
    format!("{}{unit}", format!("{v:.1}").trim_end_matches(".0"))
}

/// 1-2-5 ticks within [lo, hi]: plotters' own log ticks are powers of ten only, often one or none.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut v = Vec::new();
    let mut p = 10f64.powi(lo.log10().floor() as i32);
    while p <= hi {
        v.extend([p, 2.0 * p, 5.0 * p].into_iter().filter(|x| (lo..=hi).contains(x)));
        p *= 10.0;
    }
    v
}

/// A line chart's series: name, color, points.
type Series<'a> = (&'a str, RGBColor, Vec<(f64, f64)>);

/// Line chart, log x; `unity` draws a reference line at y = 1.
fn lines(path: &Path, title: &str, xdesc: &str, ydesc: &str, series: &[Series], unity: bool) -> Result<(), Box<dyn Error>> {
    let root = BitMapBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let (x0, x1) = span(series.iter().flat_map(|s| s.2.iter().map(|p| p.0)), true);
    let (_, y1) = span(series.iter().flat_map(|s| s.2.iter().map(|p| p.1)).chain(unity.then_some(1.0)), false);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, (FONT, 24))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d((x0..x1).log_scale().with_key_points(ticks(x0, x1)), 0f64..y1)?;
    chart
        .configure_mesh()
        .x_label_formatter(&|x| human(*x))
        .x_desc(xdesc)
        .y_desc(ydesc)
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .draw()?;
    if unity {
        chart.draw_series(LineSeries::new([(x0, 1.0), (x1, 1.0)], BLACK.mix(0.4)))?;
    }
    for (name, color, pts) in series {
        let mut pts = pts.clone();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let c = *color;
        chart.draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?.label(*name).legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], c.stroke_width(2)));
        chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 4, c.filled())))?;
    }
    chart.configure_series_labels().label_font((FONT, 15)).background_style(WHITE.mix(0.8)).border_style(BLACK).position(SeriesLabelPosition::UpperLeft).draw()?;
    root.present()?;
    Ok(())
}

/// Horizontal bars, reference above rebuilt, one pair per workload.
fn bars(path: &Path, rows: &[Row]) -> Result<(), Box<dyn Error>> {
    let n = rows.len();
    let root = BitMapBackend::new(path, (1000, 120 + 44 * n as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let (_, x1) = span(rows.iter().flat_map(|r| [r.ref_wall, r.new_wall]), false);
    let x1 = x1 * 1.2; // room for the legend
    let mut chart = ChartBuilder::on(&root)
        .caption("wall time per workload", (FONT, 24))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(260)
        .build_cartesian_2d(0f64..x1, 0f64..n as f64)?;
    chart.configure_mesh().disable_y_mesh().y_labels(0).x_desc("wall seconds").label_style((FONT, 15)).axis_desc_style((FONT, 17)).draw()?;
    for (k, (name, color)) in [("reference", REF), ("rebuilt", NEW)].into_iter().enumerate() {
        let bar = |i: usize, r: &Row| {
            let y = (n - 1 - i) as f64 + 0.5 - 0.4 * k as f64;
            Rectangle::new([(0.0, y), (if k == 0 { r.ref_wall } else { r.new_wall }, y + 0.38)], color.filled())
        };
        chart
            .draw_series(rows.iter().enumerate().filter(|(_, r)| r.ref_wall.is_finite() && r.new_wall.is_finite()).map(|(i, r)| bar(i, r)))?
            .label(name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 16, y + 6)], color.filled()));
    }
    let value = TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, r) in rows.iter().enumerate() {
        for (k, t) in [r.ref_wall, r.new_wall].into_iter().enumerate().filter(|(_, t)| t.is_finite()) {
            let (x, y) = chart.backend_coord(&(t, (n - 1 - i) as f64 + 0.69 - 0.4 * k as f64));
            root.draw_text(&format!("{t:.1} s"), &value, (x + 4, y))?;
        }
    }
    let style = TextStyle::from((FONT, 15).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    for (i, r) in rows.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(0.0, (n - 1 - i) as f64 + 0.5));
        root.draw_text(&r.workload, &style, (x - 8, y))?;
    }
    chart.configure_series_labels().label_font((FONT, 15)).background_style(WHITE.mix(0.8)).border_style(BLACK).position(SeriesLabelPosition::LowerRight).draw()?;
    root.present()?;
    Ok(())
}

/// Stacked horizontal bars, one per build, one segment per stage (columns of stages.csv after `build`).
fn stages(path: &Path, csv: &Path) -> Result<(), Box<dyn Error>> {
    let text = std::fs::read_to_string(csv)?;
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().ok_or("empty stages CSV")?.split(',').skip(1).collect();
    let builds: Vec<(String, Vec<f64>)> = lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            let mut f = l.split(',');
            let name = f.next().unwrap_or("").to_string();
            (name, f.map(|v| v.parse::<f64>().unwrap_or(0.0).max(0.0)).collect())
        })
        .collect();
    let n = builds.len();
    let colors = [RGBColor(0x8c, 0x8c, 0x8c), REF, NEW, RGBColor(0x55, 0xa8, 0x68)];
    let total = builds.iter().map(|b| b.1.iter().sum::<f64>()).fold(0.0, f64::max);
    let root = BitMapBackend::new(path, (1000, 200 + 70 * n as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption("minimap2 map-ont -c wall time by stage", (FONT, 24))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(120)
        .build_cartesian_2d(0f64..total * 1.3, 0f64..n as f64)?;
    chart.configure_mesh().disable_y_mesh().y_labels(0).x_desc("wall seconds").label_style((FONT, 15)).axis_desc_style((FONT, 17)).draw()?;
    for (s, stage) in head.iter().enumerate() {
        let color = colors[s % colors.len()];
        let seg = |i: usize, b: &(String, Vec<f64>)| {
            let x0: f64 = b.1[..s.min(b.1.len())].iter().sum();
            let y = (n - 1 - i) as f64 + 0.2;
            Rectangle::new([(x0, y), (x0 + b.1.get(s).copied().unwrap_or(0.0), y + 0.6)], color.filled())
        };
        let label = stage.trim_end_matches("_s").to_string();
        chart
            .draw_series(builds.iter().enumerate().map(|(i, b)| seg(i, b)))?
            .label(label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 16, y + 6)], color.filled()));
    }
    let left = TextStyle::from((FONT, 15).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    let right = TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (name, t)) in builds.iter().enumerate() {
        let sum: f64 = t.iter().sum();
        let (x, y) = chart.backend_coord(&(0.0, (n - 1 - i) as f64 + 0.5));
        root.draw_text(name, &left, (x - 8, y))?;
        let (x, y) = chart.backend_coord(&(sum, (n - 1 - i) as f64 + 0.5));
        root.draw_text(&format!("{sum:.1} s"), &right, (x + 4, y))?;
    }
    chart.configure_series_labels().label_font((FONT, 15)).background_style(WHITE.mix(0.8)).border_style(BLACK).position(SeriesLabelPosition::UpperRight).draw()?;
    root.present()?;
    Ok(())
}

fn run(csv: &str, out: &Path) -> Result<(), Box<dyn Error>> {
    plotters::style::register_font(FONT, FontStyle::Normal, epaint_default_fonts::UBUNTU_LIGHT).map_err(|_| "bad built-in font")?;
    let rows = load(csv)?;
    let len: Vec<&Row> = rows.iter().filter(|r| r.group == "len").collect();
    if !len.is_empty() {
        let mbps = |w: fn(&Row) -> f64| len.iter().map(|r| (r.mean_len, r.input_bases / 1e6 / w(r))).collect::<Vec<_>>();
        lines(
            &out.join("throughput_vs_read_length.png"),
            "minimap2 map-ont -c throughput vs read length",
            "mean read length (bases)",
            "input Mb per wall second",
            &[("reference", REF, mbps(|r| r.ref_wall)), ("rebuilt", NEW, mbps(|r| r.new_wall))],
            false,
        )?;
    }
    let size: Vec<(f64, f64)> = rows.iter().filter(|r| r.group == "size").map(|r| (r.input_bases, r.ref_wall / r.new_wall)).collect();
    if !size.is_empty() {
        lines(&out.join("speedup_vs_size.png"), "minimap2 map-ont -c speedup vs workload size", "input bases", "speedup (reference wall / rebuilt wall)", &[("rebuilt vs reference", NEW, size)], true)?;
    }
    if !rows.is_empty() {
        bars(&out.join("time_per_workload.png"), &rows)?;
    }
    let stages_csv = Path::new(csv).with_file_name("stages.csv");
    if stages_csv.exists() {
        stages(&out.join("time_by_stage.png"), &stages_csv)?;
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 2 {
        eprintln!("usage: plot RESULTS.csv OUTDIR");
        std::process::exit(2);
    }
    if let Err(e) = run(&args[0], Path::new(&args[1])) {
        eprintln!("plot: {e}");
        std::process::exit(1);
    }
}
