//! Unit tests of the campaign module: the shipped configs' plans, run order, threads and memory.
use super::*;

/// The shipped configs load and plan seed 004's 5 x 7 x 5 runs; weights of Table 5 apply.
#[test]
fn shipped_configs_plan_seed_004s_sets() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    for (file, runs) in [
        ("seed004-same-size.toml", 175),
        ("seed004-radix12.toml", 175),
        ("seed004-table5a-collectives.toml", 175),
        ("seed004-table5b-production.toml", 175),
        ("quick-campaign.toml", 24),
        ("flow-vs-flit.toml", 290),
    ] {
        let cfg = CampaignConfig::load(&dir.join(file)).unwrap();
        assert_eq!(cfg.plan().len(), runs, "{file}");
    }
    let a = CampaignConfig::load(&dir.join("seed004-table5a-collectives.toml")).unwrap();
    let total: f64 = a.cells().iter().map(|(w, s)| a.weights.weight(w, *s)).sum();
    assert_eq!(total, 10.0);
    let b = CampaignConfig::load(&dir.join("seed004-table5b-production.toml")).unwrap();
    let total: f64 = b.cells().iter().map(|(w, s)| b.weights.weight(w, *s)).sum();
    assert_eq!(total, 7.0);
    // `model` is left out of flit configs, so the hashes of results written before it existed hold.
    let same = CampaignConfig::load(&dir.join("seed004-same-size.toml")).unwrap();
    assert!(!serde_json::to_string(&same).unwrap().contains("model"));
    let flow = CampaignConfig::load(&dir.join("flow-vs-flit.toml")).unwrap();
    let run = &flow.plan()[flow.cells().len()];
    assert_eq!(
        flow.run_config(run).unwrap().network.model,
        crate::network::Model::Flow,
        "the second candidate's runs use its model"
    );
    assert_eq!(
        a.workload_spec("bu", Some(100000)).unwrap(),
        "bu:size=100000,ranks=4096"
    );
}

/// `--jobs 100000` must not start 100000 threads: jobs are capped to the machine's parallelism.
#[test]
fn p10_jobs_capped_to_available_parallelism() {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    assert_eq!(threads(100_000), cores);
    assert_eq!(threads(0), 1);
    assert_eq!(threads(1), 1);
}

/// Shards partition the run order.
#[test]
fn shards_parse_and_partition() {
    assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
    for bad in ["0/2", "3/2", "x", "1/0"] {
        assert!(bad.parse::<Shard>().is_err(), "{bad}");
    }
}

/// Runs start largest size first, traces (no size) last, config order within a size.
#[test]
fn runs_start_largest_size_first() {
    let cfg = CampaignConfig::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/seed004-same-size.toml"),
    )
    .unwrap();
    let mut runs = cfg.plan();
    runs.push(Planned {
        index: runs.len(),
        label: "trace".into(),
        workload: "traces/x".into(),
        size: None,
    });
    largest_first(&mut runs);
    let sizes: Vec<Option<u64>> = runs.iter().map(|r| r.size).collect();
    assert_eq!(sizes[0], Some(100_000));
    assert_eq!(sizes[34], Some(100_000));
    assert_eq!(sizes[35], Some(10_000));
    assert_eq!(sizes[175], None);
    assert!(sizes[..175].windows(2).all(|w| w[0] >= w[1]));
    assert!(runs[..35].windows(2).all(|w| w[0].index < w[1].index));
    // Progress weighs a run as its size plus 1 KB; a trace as the largest size.
    assert_eq!(run_weight(&runs[0], 100_000), 101_000);
    assert_eq!(run_weight(&runs[175], 100_000), 101_000);
    assert_eq!(run_weight(&runs[174], 100_000), 1_010);
}
