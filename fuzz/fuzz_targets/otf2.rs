//! The OTF2 reader on an arbitrary event file: the sst-elements sample archive (4 ranks) with rank 0's
//! `traces/0.evt` replaced by the input. A program or a positioned error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netreplay::mpi::collectives::Algorithms;
use netreplay::trace::otf2;
use std::path::{Path, PathBuf};

fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).expect("scratch folder");
    for e in std::fs::read_dir(src).expect("sample folder") {
        let e = e.expect("sample entry");
        let to = dst.join(e.file_name());
        if e.file_type().expect("file type").is_dir() {
            copy_dir(&e.path(), &to);
        } else {
            std::fs::copy(e.path(), &to).expect("sample file");
        }
    }
}

/// This process's copy of the sample archive.
fn archive() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../traces/otf2/sst-elements-test_emberotf2");
        let dst = std::env::temp_dir().join(format!("netreplay-fuzz-{}-otf2", std::process::id()));
        copy_dir(&src, &dst);
        dst
    })
}

fuzz_target!(|data: &[u8]| {
    let dir = archive();
    std::fs::write(dir.join("traces/0.evt"), data).expect("event file");
    if let Ok(program) = otf2::read(dir, &Algorithms::default(), 1e9) {
        let _ = program.validate();
    }
});
