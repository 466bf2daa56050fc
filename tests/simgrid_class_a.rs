//! The class A NPB and Himeno SimGrid TI traces of seed 002 §VI (Fig. 10) and the 64-rank FT traces,
//! read with the counts their own text gives: `traces/simgrid/npb3.3-classA/` and
//! `traces/simgrid/himeno/`, made by `results/seed002-fig10-app-classA/make_class_a.sh`, and
//! `traces/simgrid/npb3.3-64/`, made by its `make_ft64.sh`. The expected figures were counted from the
//! decompressed rank files line by line (action names, element count x datatype size, the `compute`
//! flops), independently of netreplay's reader.

use netreplay::network::{Model, NetworkModel};
use netreplay::program::Program;
use netreplay::replay::simulate;
use netreplay::trace::{self, ReadOptions, check, simgrid};
use std::path::{Path, PathBuf};

/// `path` in the repository.
fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The trace at `path` in the repository, read with `opts`.
fn read(path: &str, opts: &ReadOptions) -> Program {
    let path = repo(path);
    trace::read_any(&path, opts).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The trace's summary as `trace check` gives it, read with `opts`.
fn summary(path: &str, opts: &ReadOptions) -> check::TraceCheck {
    check::check(&read(path, opts)).unwrap()
}

/// MG class A on 16 ranks: 11,024 blocking sends of MPI_DOUBLE (datatype 0, 8 bytes) totalling
/// 206,992,128 bytes, as many receives, 23,183 `compute` actions of 2,909,202,998 flops (one
/// cycle each at the default one flop per cycle), and 1,408 + 112 + 96 + 16 collective actions
/// over the 16 ranks (88 all-reduces, 7 broadcasts, 6 barriers and 1 reduce per rank).
#[test]
fn mg_class_a_has_the_counts_of_its_text() {
    let c = summary(
        "traces/simgrid/npb3.3-classA/mg.A.16/mg.A.16.txt",
        &ReadOptions::default(),
    );
    assert_eq!(c.ranks, 16);
    assert!(c.ok, "{:?}", c.problems);
    let calls = c.calls.expect("read from the trace, not a cache");
    let send = calls.point_to_point["send"];
    assert_eq!((send.calls, send.bytes), (11_024, 206_992_128));
    assert_eq!(calls.point_to_point.len(), 1, "only blocking sends");
    assert_eq!((calls.receives, calls.self_messages), (11_024, 0));
    assert_eq!((c.computations, c.compute_cycles), (23_183, 2_909_202_998));
}

/// Himeno size M on 2 x 2 x 4 ranks, 103 Jacobi iterations: 5,768 isends (28 neighbour pairs x 2
/// directions x 103) of one MPI vector type each, written with datatype id -1 and sized here 16,900
/// bytes (65 x 65 floats), and 2,236,863,397 flops of `compute`. Without a size for id -1 the trace
/// is refused with the option to give.
#[test]
fn himeno_needs_and_takes_its_vector_size() {
    let path = "traces/simgrid/himeno/himeno.M.16/himeno.M.16.txt";
    let err = trace::read_any(&repo(path), &ReadOptions::default()).unwrap_err();
    assert!(err.to_string().contains("dtsize=-1:BYTES"), "{err}");

    let mut opts = ReadOptions::default();
    opts.units.derived = simgrid::DerivedSizes::parse("-1:16900").unwrap();
    let c = summary(path, &opts);
    assert_eq!(c.ranks, 16);
    assert!(c.ok, "{:?}", c.problems);
    let calls = c.calls.expect("read from the trace, not a cache");
    let isend = calls.point_to_point["isend"];
    assert_eq!((isend.calls, isend.bytes), (5_768, 5_768 * 16_900));
    assert_eq!((calls.receives, calls.wildcard_receives), (5_768, 0));
    assert_eq!(c.compute_cycles, 2_236_863_397);
}

/// FT on 64 ranks (`traces/simgrid/npb3.3-64/`), classes A and B: only collectives over the 64 ranks
/// (8 and 22 alltoalls of 2,048 and 8,192 MPI_DOUBLE_COMPLEX per pair, datatype 43 of 16 bytes; 5
/// broadcasts of one integer, 6 and 20 reduces of one complex, 1 barrier per rank), and 1,428 and
/// 3,476 `compute` actions of 2,117,018,695 and 20,433,084,450 flops.
#[test]
fn ft_on_64_ranks_has_the_counts_of_its_text() {
    for (class, alltoalls, pair_bytes, reduces, computes, flops) in [
        ('A', 8, 32_768, 6, 1_428, 2_117_018_695),
        ('B', 22, 131_072, 20, 3_476, 20_433_084_450),
    ] {
        let c = summary(
            &format!("traces/simgrid/npb3.3-64/ft.{class}.64/ft.{class}.64.txt"),
            &ReadOptions::default(),
        );
        assert_eq!(c.ranks, 64);
        assert!(c.ok, "{class}: {:?}", c.problems);
        let calls = c.calls.expect("read from the trace, not a cache");
        assert!(calls.point_to_point.is_empty(), "{class}: collectives only");
        let world = &calls.collectives[0];
        assert_eq!((world.comm, world.size), (0, 64));
        let want = [
            ("alltoall", alltoalls),
            ("barrier", 1),
            ("bcast", 5),
            ("reduce", reduces),
        ];
        assert_eq!(
            world
                .calls
                .iter()
                .map(|(k, v)| (*k, *v))
                .collect::<Vec<_>>(),
            want
        );
        assert_eq!((c.computations, c.compute_cycles), (computes, flops));
        // Every collective is 63 messages on 64 ranks: each alltoall per rank, each broadcast of one
        // 4-byte integer (datatypes 1 and 23), each reduce of one 16-byte complex (datatype 43).
        let bytes = 63 * (alltoalls * 64 * pair_bytes + 5 * 4 + reduces * 16);
        assert_eq!(c.bytes, bytes, "{class}");
        // The barrier is a dissemination: 64 ranks x 6 rounds of empty messages.
        let messages = 63 * (alltoalls * 64 + 5 + reduces) + 64 * 6;
        assert_eq!(c.messages, messages, "{class}");
    }
}

/// FT class A on 64 ranks replays on a 64-node fat tree under the flow model (the flit model takes
/// 25 s; `docs/speed.md`): every message and phit delivered, and no sooner than physics allows.
/// Each rank computes 1/64 of 2,117,018,695 cycles on average (so the busiest at least that, one flop
/// per cycle), and pushes 8 x 63 x 32,768 bytes through its injection link of one 4-byte phit per
/// cycle, 4,128,768 cycles.
#[test]
fn ft_a_on_64_ranks_replays_on_the_flow_model() {
    let program = read(
        "traces/simgrid/npb3.3-64/ft.A.64/ft.A.64.txt",
        &ReadOptions::default(),
    );
    let topo = netreplay::topology::build("fat-tree:k=4,n=3").unwrap();
    let nodes: Vec<u32> = (0..64).collect();
    let model = NetworkModel {
        model: Model::Flow,
        ..NetworkModel::default()
    };
    let o = simulate(topo.as_ref(), &model, &program, &nodes, 1).unwrap();
    assert_eq!(o.messages, 33_333);
    assert_eq!(o.phits_delivered, o.phits_injected);
    assert!(
        o.phits_delivered >= 1_056_971_916 / 4,
        "{}",
        o.phits_delivered
    );
    let compute = 2_117_018_695u64.div_ceil(64);
    let injection = 8 * 63 * 32_768 / 4;
    assert!(
        o.completion_cycles >= compute.max(injection),
        "{} cycles",
        o.completion_cycles
    );
}
