//! check_content and the navigation check on a 400,000-character page
//! (and the served-text rewrite), medians of 30 runs.
//!
//! cargo bench -p artifacts --bench checks
#![allow(clippy::unwrap_used, clippy::expect_used)] // Tests and benches may panic: that is the test failing.

use std::time::Instant;

use artifacts::{check_content, frame, navigation, Kind, MAX_CHARS};

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

/// A realistic big page: markup, styles, a table, and scripts.
fn page() -> String {
    let mut out = String::from("<!doctype html><html><head><meta charset=utf-8><style>body{font:14px sans-serif} td{padding:2px}</style></head><body><h1>Report</h1><table>");
    let mut i = 0u32;
    while out.len() < MAX_CHARS - 2_000 {
        out.push_str(&format!(
            "<tr><td>Row {i}</td><td class=n>{}</td><td><button onclick=\"toggle({i})\">Details</button></td></tr>\n",
            i * 37 % 1000
        ));
        if i.is_multiple_of(200) {
            out.push_str("<script>function toggle(n){const el=document.getElementById('d'+n); if(el){el.hidden=!el.hidden;} const r=el&&el.getBoundingClientRect(); console.log(r&&r.top);}</script>\n");
        }
        i += 1;
    }
    out.push_str("</table></body></html>");
    out.truncate(MAX_CHARS);
    out
}

fn time(label: &str, mut f: impl FnMut()) {
    for _ in 0..3 {
        f();
    }
    let mut runs = Vec::new();
    for _ in 0..30 {
        let t = Instant::now();
        f();
        runs.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!("{label}: median {:.2} ms", median(runs));
}

fn main() {
    if std::env::args().any(|a| a == "--list" || a == "--test") {
        return;
    }
    let page = page();
    assert!(page.chars().count() <= MAX_CHARS);
    assert!(navigation(&page).is_empty(), "the bench page is quiet");
    println!("page: {} characters", page.chars().count());
    time("check_content(html, 400,000 characters)", || {
        assert!(check_content(Kind::Html, &page).is_ok())
    });
    time("navigation check (400,000 characters)", || {
        std::hint::black_box(navigation(&page));
    });
    time("served text rewrite (400,000 characters)", || {
        std::hint::black_box(frame::served_text(Kind::Html, &page, true));
    });
    let csv: String = std::iter::once("a,b,c\n".to_owned())
        .chain((0..40_000).map(|i| format!("{i},x{i},\"q, {i}\"\n")))
        .collect::<String>()
        .chars()
        .take(MAX_CHARS - 100)
        .collect::<String>();
    let csv = &csv[..csv.rfind('\n').unwrap_or(csv.len()) + 1];
    time("check_content(table, ~400,000 characters)", || {
        assert!(check_content(Kind::Table, csv).is_ok())
    });
}
