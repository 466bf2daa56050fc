//! The HTML reports render in a real browser. Headless Chromium loads each page (a run's
//! `--html` under the flit and the flow model, a campaign's `report.html`, a sweep's
//! `load-latency.html`) with a check script appended to a copy (the reports themselves carry no
//! script): on load it measures every inline `<svg>` and
//! writes the result into the page title, which `--dump-dom` prints. The test fails if a figure has
//! zero size or the browser logs a console error or an uncaught exception, and takes a screenshot.
//!
//! Without `chromium`, `chromium-browser` or `google-chrome` on PATH the test is skipped with a
//! message, unless `NETREPLAY_REQUIRE_CHROMIUM=1` (as `.ci/run` sets), which makes it fail.

mod common;

use common::browser::{chromium_or_skip, run_with_timeout};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("html_report");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn netreplay(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_netreplay"))
        .args(args)
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const CHECK: &str = r#"<script>
window.addEventListener('load', function () {
  var svgs = document.querySelectorAll('svg'), bad = [];
  for (var i = 0; i < svgs.length; i++) {
    var r = svgs[i].getBoundingClientRect();
    if (!(r.width > 0 && r.height > 0)) bad.push(i);
  }
  document.title = 'SVGCHECK ' + svgs.length + ' ' + (bad.length ? 'BAD ' + bad.join(',') : 'OK');
});
</script>
"#;

/// Loads `page` in headless Chromium: every figure must have a size, the console must stay clean.
/// Returns the number of figures; writes a screenshot to `shot`.
fn check_page(browser: &Path, page: &Path, shot: &Path) -> usize {
    let html = std::fs::read_to_string(page).unwrap();
    assert!(
        !html.contains("<script"),
        "{}: reports need no script",
        page.display()
    );
    assert!(
        !html.contains("http://") || html.matches("http://").all(|_| html.contains("xmlns")),
        "{}: no external resources",
        page.display()
    );
    let checked = page.with_extension("check.html");
    std::fs::write(
        &checked,
        html.replace("</body>", &format!("{CHECK}</body>")),
    )
    .unwrap();
    let url = format!("file://{}", checked.display());
    let profile = scratch(&format!(
        "profile-{}",
        page.file_stem().unwrap().to_string_lossy()
    ));
    let base = |extra: &[&str]| {
        let mut c = Command::new(browser);
        c.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1366,900",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(&url);
        c
    };
    let out = run_with_timeout(
        base(&["--virtual-time-budget=5000", "--dump-dom"]),
        Duration::from_secs(120),
    );
    let dom = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for line in stderr.lines() {
        assert!(
            !(line.contains("Uncaught") || line.contains("CONSOLE")),
            "{}: console message: {line}",
            page.display()
        );
    }
    let title = dom
        .split("<title>")
        .nth(1)
        .and_then(|t| t.split("</title>").next())
        .unwrap_or_else(|| panic!("{}: no title in the DOM: {dom:.500}", page.display()));
    assert!(
        title.starts_with("SVGCHECK ") && title.ends_with(" OK"),
        "{}: figures not rendered: {title}",
        page.display()
    );
    let figures: usize = title.split(' ').nth(1).unwrap().parse().unwrap();
    let shot_arg = format!("--screenshot={}", shot.display());
    let _ = std::fs::remove_file(shot);
    run_with_timeout(base(&[&shot_arg]), Duration::from_secs(120));
    let png = std::fs::read(shot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{}",
        shot.display()
    );
    figures
}

#[test]
fn html_reports_render_in_headless_chromium() {
    let Some(browser) = chromium_or_skip("html_reports_render_in_headless_chromium") else {
        return;
    };
    let root = env!("CARGO_MANIFEST_DIR");
    // A run: summary, critical path, link-load heat map, packets received per cycle.
    let run_page = scratch("run.html");
    netreplay(&[
        "run",
        "--topology",
        "thin-tree:k=4,up=2,n=3",
        "--workload",
        "bu:size=1000",
        "--html",
        run_page.to_str().unwrap(),
        "--quiet",
    ]);
    // A flow-model run: its tables and critical path, no series over time (it has no packets).
    let flow_page = scratch("flow.html");
    netreplay(&[
        "run",
        "--topology",
        "fat-tree:k=4,n=2",
        "--workload",
        "bu:size=1000",
        "--model",
        "flow",
        "--html",
        flow_page.to_str().unwrap(),
        "--quiet",
    ]);
    // A campaign: its report.html beside report.md.
    let camp = scratch("campaign");
    let _ = std::fs::remove_dir_all(&camp);
    netreplay(&[
        "campaign",
        &format!("{root}/configs/quick-campaign.toml"),
        "--out",
        camp.to_str().unwrap(),
        "--jobs",
        "1",
    ]);
    // A load-latency sweep: load-latency.html beside its CSV, JSON and SVG.
    let sweep = scratch("sweep");
    netreplay(&[
        "load-latency",
        "--topology",
        "fat-tree:k=4,n=2",
        "--loads",
        "0.1,0.3",
        "--warmup",
        "200",
        "--measure",
        "1000",
        "--out",
        sweep.to_str().unwrap(),
        "--quiet",
    ]);
    let campaign_md = std::fs::read_to_string(camp.join("report.md")).unwrap();
    let campaign_html = std::fs::read_to_string(camp.join("report.html")).unwrap();
    assert_every_row_in_html(&campaign_md, &campaign_html);
    let run_html = std::fs::read_to_string(&run_page).unwrap();
    assert!(
        run_html.contains("link classes: colour scale 0-")
            && run_html.contains("busiest links: colour scale 0-"),
        "the heat map's legend states its scales"
    );
    let cases = [
        (run_page.clone(), 3),
        (flow_page, 1),
        (camp.join("report.html"), 2),
        (sweep.join("load-latency.html"), 1),
    ];
    for (page, want) in cases {
        let shot = page.with_extension("png");
        let figures = check_page(&browser, &page, &shot);
        assert_eq!(figures, want, "{}", page.display());
        eprintln!(
            "{}: {figures} figures rendered, screenshot {}",
            page.display(),
            shot.display()
        );
    }
}

/// Every table row of `report.md` (its first cell) is a row of `report.html`, and the HTML has no
/// number of four or more digits without its thousands separators.
fn assert_every_row_in_html(md: &str, html: &str) {
    let labels: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| |") && !l.starts_with("| pattern"))
        .map(|l| l[2..].split(" | ").next().unwrap())
        .collect();
    // quick-campaign.toml: 4 patterns at 2 sizes, then the 11 rows of seed 004's Tables 4-5.
    assert_eq!(labels.len(), 4 * 2 + 11, "{labels:?}");
    for label in &labels {
        let cell = format!(
            "<td class=\"l\">{}</td>",
            label
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
        );
        assert!(
            html.contains(&cell),
            "report.md row {label:?} missing from report.html"
        );
    }
    for cell in html.split("<td>").skip(1) {
        let cell = cell.split("</td>").next().unwrap();
        let long_run = cell
            .split(|c: char| !c.is_ascii_digit())
            .any(|run| run.len() > 3);
        assert!(!long_run, "a number without thousands separators: {cell}");
    }
}
