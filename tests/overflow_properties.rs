//! Checked arithmetic as properties: any sequence of u64 values that meets time or sizes either runs
//! to the exact answer or is refused naming a value; nothing wraps, nothing panics.

use netreplay::load_latency::parse_loads;
use netreplay::network::{MAX_CYCLE, NetworkModel, OpenLoopParams};
use netreplay::program::{Op, Program};
use netreplay::trace::check::check;
use netreplay::{topology, traffic};
use proptest::prelude::*;

/// Values concentrated where overflow happens (near 2^63 and 2^64), and small ones.
fn cycles() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..1000,
        (MAX_CYCLE - 1000)..=(MAX_CYCLE + 1000),
        (u64::MAX - 1000)..=u64::MAX,
        any::<u64>(),
    ]
}

/// Two ranks computing `a` and `b` in turn, no messages.
fn computing(a: &[u64], b: &[u64]) -> Program {
    Program::from_fn(2, |r, ops| {
        for &cycles in if r == 0 { a } else { b } {
            ops.push(Op::Compute { cycles });
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A replay finishes at the larger rank's total compute when that fits the simulator's clock,
    /// and is refused otherwise.
    #[test]
    fn compute_sums_run_exactly_or_are_refused(
        a in prop::collection::vec(cycles(), 0..5),
        b in prop::collection::vec(cycles(), 0..5),
    ) {
        let topo = topology::build("fat-tree:k=2,n=1").unwrap();
        let program = computing(&a, &b);
        let sum = |v: &[u64]| v.iter().map(|&c| u128::from(c)).sum::<u128>();
        let longest = sum(&a).max(sum(&b));
        let r = netreplay::replay::simulate(topo.as_ref(), &NetworkModel::default(), &program, &[0, 1], 1);
        match r {
            Ok(o) => {
                prop_assert!(longest <= u128::from(MAX_CYCLE));
                prop_assert_eq!(u128::from(o.completion_cycles), longest);
            }
            Err(e) => {
                prop_assert!(longest > u128::from(MAX_CYCLE), "{}", e);
                prop_assert!(e.to_string().contains("asks to wait"), "{}", e);
            }
        }
    }

    /// `trace check` totals are exact or refused.
    #[test]
    fn trace_check_totals_are_exact_or_refused(
        a in prop::collection::vec(cycles(), 0..5),
        b in prop::collection::vec(cycles(), 0..5),
    ) {
        let total: u128 = a.iter().chain(&b).map(|&c| u128::from(c)).sum();
        match check(&computing(&a, &b)) {
            Ok(c) => prop_assert_eq!(u128::from(c.compute_cycles), total),
            Err(e) => {
                prop_assert!(total > u128::from(u64::MAX));
                prop_assert!(e.to_string().contains("overflows"), "{}", e);
            }
        }
    }

    /// Open-loop phases are accepted only when their sum fits the clock (then a point is measured).
    #[test]
    fn open_loop_phases_fit_or_are_refused(
        warmup in cycles(),
        measure in cycles(),
        drain in cycles(),
    ) {
        let params = OpenLoopParams { load: 0.5, warmup_cycles: warmup, measure_cycles: measure, drain_cycles: drain, sample_periods: 1 };
        let total = u128::from(warmup) + u128::from(measure) + u128::from(drain);
        let fits = measure > 0 && total <= u128::from(MAX_CYCLE);
        prop_assert_eq!(params.validate().is_ok(), fits);
        if fits && total < 5000 {
            let topo = topology::build("fat-tree:k=2,n=1").unwrap();
            let dests = traffic::build("uniform").unwrap().bind(topo.nodes(), 1).unwrap();
            let p = netreplay::network::Network::new(topo.as_ref(), &NetworkModel::default()).and_then(|n| n.open_loop(&dests, &params, 1)).unwrap();
            prop_assert!(p.cycles >= warmup + measure);
        }
    }

    /// Any load range gives at most 1000 loads or an error, never a panic or a huge allocation.
    #[test]
    fn load_ranges_are_bounded(from in any::<f64>(), to in any::<f64>(), step in any::<f64>()) {
        if let Ok(loads) = parse_loads(&format!("{from}:{to}:{step}")) {
            prop_assert!(!loads.is_empty() && loads.len() <= 1000);
            prop_assert!(loads.iter().all(|l| *l > 0.0 && *l <= 1.0));
        }
    }
}

/// Three ranks computing 2^63 each: the per-rank time split's sum over ranks saturates instead of
/// wrapping (it panicked in builds with overflow checks).
#[test]
fn p2_time_split_sums_over_ranks_do_not_wrap() {
    let topo = topology::build("fat-tree:k=2,n=2").unwrap();
    let program = Program::from_fn(3, |_, ops| ops.push(Op::Compute { cycles: MAX_CYCLE }));
    let model = NetworkModel::default();
    let replay = netreplay::replay::Replay::new(topo.as_ref(), &model, 1).unwrap();
    let r = replay
        .program(&program, &[0, 1, 2], Default::default())
        .unwrap();
    assert_eq!(r.outcome.completion_cycles, MAX_CYCLE);
    let v = serde_json::to_value(r.mpi).unwrap();
    assert_eq!(v["time"]["compute_sum"], u64::MAX, "{v}");
}
