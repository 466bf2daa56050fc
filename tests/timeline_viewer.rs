//! Replay timelines opened by a third-party consumer of the trace-event format: speedscope 1.25.0
//! (vendored under `tests/vendor/speedscope/`, MIT), run in headless Chromium.
//!
//! The page loads the timeline the way speedscope's own command line does (a script calling
//! `speedscope.loadFileFromBase64`); a probe script counts what speedscope's importer reports
//! through `console.warn` (a mismatched `E`, a slice left open, a frame ended on an empty stack) and,
//! once the profile is shown, asks speedscope to save it (Ctrl+S) and reads the saved file back from
//! the `Blob` it hands to `URL.createObjectURL`: its open-frame events are the slices speedscope
//! imported. The test fails on any warning, and unless the slice count is the one the file's own
//! check predicts (its `B`/`E` slices, less the zero-length ones speedscope drops and the ones it
//! merges with an identical neighbour).
//!
//! Without Chromium the test is skipped with a message, unless `NETREPLAY_REQUIRE_CHROMIUM=1` (as
//! `.ci/run` sets). Nothing is fetched: the viewer is in the repository.

mod common;

use common::browser::{chromium_or_skip, run_with_timeout};
use common::timeline::{Checked, validate};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn scratch(name: &str) -> PathBuf {
    common::scratch("timeline_viewer", name)
}

fn timeline(topology: &str, workload: &str, file: &Path) {
    let file = file.to_str().expect("a UTF-8 scratch path");
    let out = common::netreplay(&[
        "run",
        "--topology",
        topology,
        "--workload",
        workload,
        "--timeline",
        file,
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{workload}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Standard base64 (RFC 4648), as `loadFileFromBase64` decodes it.
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                s.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// Counts the importer's warnings, saves the imported profile once it is shown, and writes the
/// result into the page title.
const PROBE: &str = r#"(function () {
  var warnings = 0, first = '';
  var warn = console.warn;
  console.warn = function (m) {
    warnings++;
    if (!first) first = String(m);
    warn.apply(console, arguments);
  };
  window.addEventListener('error', function (e) { warnings++; if (!first) first = String(e.message); });
  // The export's text is taken when its Blob is made (speedscope builds it from one string), so
  // the title is written before the page goes idle: reading the Blob back is asynchronous, and
  // headless Chromium may dump the DOM first on a loaded machine.
  var NativeBlob = window.Blob, texts = new WeakMap();
  window.Blob = function (parts, options) {
    var blob = new NativeBlob(parts, options);
    var strings = Array.isArray(parts) && parts.every(function (p) { return typeof p === 'string'; });
    if (strings) texts.set(blob, parts.join(''));
    return blob;
  };
  window.Blob.prototype = NativeBlob.prototype;
  URL.createObjectURL = function (blob) {
    var report = function (text) {
      var g = JSON.parse(text), slices = 0, names = {};
      g.profiles.forEach(function (p) {
        (p.events || []).forEach(function (e) {
          if (e.type !== 'O') return;
          slices++;
          var n = g.shared.frames[e.frame].name.split(' {')[0];
          names[n] = (names[n] || 0) + 1;
        });
      });
      document.title = 'IMPORTED ' + JSON.stringify({profiles: g.profiles.length, slices: slices,
        warnings: warnings, first: first, names: names});
    };
    if (texts.has(blob)) report(texts.get(blob)); else blob.text().then(report);
    return 'blob:none';
  };
  var tries = 0, timer = setInterval(function () {
    if (++tries > 600) { clearInterval(timer); document.title = 'TIMEOUT ' + first; return; }
    if (/ - speedscope$/.test(document.title)) {
      clearInterval(timer);
      window.dispatchEvent(new KeyboardEvent('keydown', {key: 's', ctrlKey: true}));
    }
  }, 50);
})();
"#;

/// What speedscope imported from `file`: profiles (one per track), slices, warnings (with the first
/// one), and slices by name (arguments left out).
fn speedscope(browser: &Path, file: &Path) -> Value {
    let viewer = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vendor/speedscope/index.html");
    let name = file.file_name().unwrap().to_string_lossy().to_string();
    let loader = file.with_extension("load.js");
    let data = std::fs::read(file).unwrap();
    std::fs::write(
        &loader,
        format!(
            "{PROBE}\nspeedscope.loadFileFromBase64({}, \"{}\");\n",
            serde_json::to_string(&name).unwrap(),
            base64(&data)
        ),
    )
    .unwrap();
    let profile = scratch(&format!("profile-{name}"));
    let mut cmd = Command::new(browser);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--virtual-time-budget=60000",
        "--dump-dom",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .arg(format!(
        "file://{}#localProfilePath={}",
        viewer.display(),
        loader.display()
    ));
    let out = run_with_timeout(cmd, Duration::from_secs(240));
    let dom = String::from_utf8_lossy(&out.stdout);
    let title = dom
        .split("<title>")
        .nth(1)
        .and_then(|t| t.split("</title>").next())
        .unwrap_or_else(|| panic!("{name}: no title in the DOM: {dom:.500}"));
    let json = title
        .strip_prefix("IMPORTED ")
        .unwrap_or_else(|| panic!("{name}: speedscope did not import it: {title}"));
    let unescaped = json
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    serde_json::from_str(&unescaped).unwrap_or_else(|e| panic!("{e}: {unescaped}"))
}

/// speedscope imports `c`'s file without a warning, with one profile per track (ranks shown plus
/// the critical path) and the slices the file's own check predicts.
fn check_import(got: &Value, c: &Checked, what: &str) {
    assert_eq!(got["warnings"], 0, "{what}: {}", got["first"]);
    let ranks = c.other["ranks_shown"].as_u64().unwrap();
    assert_eq!(got["profiles"], ranks + 1, "{what}");
    assert_eq!(got["slices"], c.merged_slices as u64, "{what}");
    eprintln!(
        "{what}: speedscope imported {} slices ({} in the file, {} arrows) without warnings",
        got["slices"], c.slices, c.flows
    );
}

#[test]
fn npb_cg_and_bu_timelines_import_into_speedscope_without_warnings() {
    let Some(browser) =
        chromium_or_skip("npb_cg_and_bu_timelines_import_into_speedscope_without_warnings")
    else {
        return;
    };
    let root = env!("CARGO_MANIFEST_DIR");
    let cg = scratch("cg.S.16.json");
    timeline(
        "fat-tree:k=4,n=3",
        &format!("trace:file={root}/traces/simgrid/npb3.3/cg.S.16/cg.S.16.txt,cache=off"),
        &cg,
    );
    let c = validate(&cg);
    let got = speedscope(&browser, &cg);
    check_import(&got, &c, "NPB CG S.16");
    // CG S.16 calls bcast, barrier and reduce once on each of its 16 ranks.
    assert_eq!(c.collectives, 3 * 16);
    assert_eq!(c.flows, 10_000);

    let bu = scratch("bu64.json");
    timeline("fat-tree:k=4,n=3", "bu:size=1000", &bu);
    let c = validate(&bu);
    let got = speedscope(&browser, &bu);
    check_import(&got, &c, "bu 64 ranks");
    assert_eq!(c.flows, 64 * 6);
}
