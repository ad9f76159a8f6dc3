//! `ratio.svg`: a horizontal bar per dispatch row, tcgemm's throughput over cuBLAS's, with a line
//! at 100%.

use std::fmt::Write as _;

use tcgemm_testkit::Path;

use crate::measure::Row;
use crate::report::ratio;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn color(p: Path) -> &'static str {
    match p {
        Path::Fp32 => "#4e79a7",
        Path::Tf32 => "#f28e2b",
        Path::F16 => "#59a14f",
        Path::F16F32 => "#76b7b2",
        Path::Bf16 => "#e15759",
        Path::Tf32x3 => "#b07aa1",
    }
}

/// The chart's geometry (pixels) and scale (`max`: the ratio at the right end of the bars).
struct Chart {
    label_w: f64,
    bar_w: f64,
    row_h: f64,
    top: f64,
    bottom: f64,
    height: f64,
    max: f64,
}

impl Chart {
    fn new(rows: &[&Row]) -> Chart {
        let (label_w, bar_w, row_h, top, bottom) = (250.0, 560.0, 16.0, 56.0, 40.0);
        let max = rows
            .iter()
            .filter_map(|r| ratio(r))
            .fold(1.25f64, f64::max)
            .min(4.0);
        Chart {
            label_w,
            bar_w,
            row_h,
            top,
            bottom,
            height: top + row_h * rows.len() as f64 + bottom,
            max: (max * 4.0).ceil() / 4.0,
        }
    }

    /// The x coordinate of ratio `v`.
    fn x(&self, v: f64) -> f64 {
        self.label_w + self.bar_w * v.min(self.max) / self.max
    }

    fn title_and_legend(&self, s: &mut String, device: &str) {
        let (width, height, label_w) =
            (self.label_w + self.bar_w + 70.0, self.height, self.label_w);
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">"#
        );
        let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
        let _ = writeln!(
            s,
            r#"<text x="{label_w}" y="20" font-size="14" font-weight="bold">tcgemm / cuBLAS throughput ({})</text>"#,
            escape(device)
        );
        let mut lx = label_w;
        for p in Path::ALL {
            let _ = writeln!(
                s,
                r#"<rect x="{lx}" y="30" width="10" height="10" fill="{}"/><text x="{}" y="39">{}</text>"#,
                color(p),
                lx + 14.0,
                escape(p.name())
            );
            lx += 80.0;
        }
    }

    /// Vertical grid lines every 25%.
    fn grid(&self, s: &mut String) {
        let mut t = 0.0;
        while t <= self.max + 1e-9 {
            let gx = self.x(t);
            let _ = writeln!(
                s,
                r##"<line x1="{gx}" y1="{}" x2="{gx}" y2="{}" stroke="#ddd"/><text x="{gx}" y="{}" text-anchor="middle">{:.0}%</text>"##,
                self.top - 4.0,
                self.height - self.bottom + 4.0,
                self.height - self.bottom + 18.0,
                t * 100.0
            );
            t += 0.25;
        }
    }

    /// Row `i`: its label and bar (or `n/a`).
    fn bar(&self, s: &mut String, i: usize, r: &Row) {
        let (label_w, row_h) = (self.label_w, self.row_h);
        let y = self.top + row_h * i as f64;
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end">{} {}</text>"#,
            label_w - 6.0,
            y + row_h * 0.75,
            escape(&r.shape.label()),
            escape(r.path.name())
        );
        let _ = match ratio(r) {
            Some(v) => writeln!(
                s,
                r#"<rect x="{label_w}" y="{}" width="{:.1}" height="{}" fill="{}"/><text x="{}" y="{}">{:.0}%{}</text>"#,
                y + 2.0,
                self.x(v) - label_w,
                row_h - 4.0,
                color(r.path),
                self.x(v) + 4.0,
                y + row_h * 0.75,
                v * 100.0,
                if v > self.max { " ▸" } else { "" }
            ),
            None => writeln!(
                s,
                r##"<text x="{}" y="{}" fill="#888">n/a</text>"##,
                label_w + 4.0,
                y + row_h * 0.75
            ),
        };
    }

    /// The dashed line at 100% and the axis caption.
    fn parity_and_caption(&self, s: &mut String) {
        let _ = writeln!(
            s,
            r##"<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#c00" stroke-width="1.5" stroke-dasharray="4 3"/>"##,
            self.x(1.0),
            self.top - 8.0,
            self.height - self.bottom + 4.0
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">tcgemm TFLOPS / cuBLAS TFLOPS (dispatch; 100% = parity)</text>"#,
            self.label_w + self.bar_w / 2.0,
            self.height - 6.0
        );
    }
}

/// The chart of the dispatch rows (forced kernels left out) on `device`.
pub fn ratio_svg(rows: &[Row], device: &str) -> String {
    let rows: Vec<&Row> = rows.iter().filter(|r| !r.forced).collect();
    let chart = Chart::new(&rows);
    let mut s = String::new();
    chart.title_and_legend(&mut s, device);
    chart.grid(&mut s);
    for (i, r) in rows.iter().enumerate() {
        chart.bar(&mut s, i, r);
    }
    chart.parity_and_caption(&mut s);
    s.push_str("</svg>\n");
    s
}
