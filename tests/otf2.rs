use netreplay::trace::otf2;
use std::path::{Path, PathBuf};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("traces/otf2")
        .join(name)
}

#[test]
fn dump() {
    for s in [
        "sst-elements-test_emberotf2",
        "sst-macro-otf2_test_traces",
        "tracer-stencil4d-32",
        "tracer-stencil4d-64",
    ] {
        let c = otf2::read_calls(&sample(s), 1e9).unwrap_or_else(|e| panic!("{s}: {e}"));
        println!("{s}: ranks {} {:?} {:?}", c.ranks, c.stats(), c.notes);
        println!("{:?}", &c.calls[0][..c.calls[0].len().min(12)]);
    }
}
