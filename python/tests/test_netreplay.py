"""The Python package against the command line: the same reports, in-process.

NETREPLAY_BIN names the netreplay binary (python/tests/run.sh sets it). Every command runs in the
repository root, as the README's examples do.
"""

import json
import os
import pathlib
import re
import subprocess

import pandas as pd
import pytest

import netreplay

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ["NETREPLAY_BIN"]
CG = "traces/simgrid/npb3.3/cg.S.16/cg.S.16.txt"


@pytest.fixture(autouse=True)
def in_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def cli(*args):
    out = subprocess.run([BIN, *args], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, f"netreplay {' '.join(args)}: {out.stderr}"
    return out.stdout


def cli_json(*args):
    return json.loads(cli(*args, "--json"))


def without_wall_time(report):
    return {k: v for k, v in report.items() if k not in netreplay.WALL_FIELDS}


def write(path, text):
    path.write_text(text)
    return path


def test_run_equals_the_cli_on_a_generated_workload():
    args = ["--topology", "fat-tree:k=4,n=3", "--workload", "bu:size=1000"]
    expected = cli_json("run", *args)
    got = netreplay.run(topology="fat-tree:k=4,n=3", workload="bu:size=1000")
    assert without_wall_time(got) == without_wall_time(expected)
    # The contract's fields, and seconds beside cycles at the 1 GHz clock of generated workloads.
    assert got["completion_cycles"] == expected["completion_cycles"] > 0
    assert got["cycles_per_second"] == 1e9
    assert got["completion_seconds"] == got["completion_cycles"] / 1e9


def test_run_equals_the_cli_on_a_trace():
    expected = cli_json("run", "--topology", "fat-tree:k=4,n=3", "--workload", f"trace:file={CG}")
    got = netreplay.run(topology="fat-tree:k=4,n=3", workload=f"trace:file={CG}")
    assert without_wall_time(got) == without_wall_time(expected)
    assert got["mpi_model"]["protocol"] == "rendezvous"
    assert got["critical_path"]["cycles"] > 0


def test_run_equals_the_cli_with_a_config_flags_and_network_keys(tmp_path):
    config = write(
        tmp_path / "run.toml",
        'topology = "thin-tree:k=4,up=2,n=3"\nworkload = "wf:size=1000"\n'
        '[network]\npreset = "fsin-paper"\ninput_queue_packets = 8\n',
    )
    expected = cli_json(
        "run", str(config), "--seed", "3", "--placement", "random:seed=7", "--model", "flow"
    )
    got = netreplay.run(config, seed=3, placement="random:seed=7", model="flow")
    assert without_wall_time(got) == without_wall_time(expected)
    assert (got["seed"], got["placement"], got["network"]["model"]) == (3, "random:seed=7", "flow")

    # `network` keys merge into the file's table as if written there.
    merged = write(
        tmp_path / "merged.toml",
        config.read_text() + 'selection = "free"\nloser_retry = "same-cycle"\n',
    )
    expected = cli_json("run", str(merged))
    got = netreplay.run(config, network={"selection": "free", "loser_retry": "same-cycle"})
    assert without_wall_time(got) == without_wall_time(expected)
    assert got["network"]["input_queue_packets"] == 8


def test_topology_equals_the_cli():
    for spec in ["fat-tree:k=4,n=3", "dragonfly:p=2,a=4,h=2"]:
        assert netreplay.topology(spec) == cli_json("topology", spec)


def test_errors_carry_the_cli_message():
    out = subprocess.run(
        [BIN, "run", "--topology", "fat-tree:k=4,q=3", "--workload", "bu"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode != 0
    with pytest.raises(netreplay.Error) as raised:
        netreplay.run(topology="fat-tree:k=4,q=3", workload="bu")
    assert out.stderr.strip() == f"netreplay: error: {raised.value}"


def test_a_bad_job_spec_is_placed_in_its_config_as_the_cli_places_it(tmp_path):
    config = write(
        tmp_path / "jobs.toml",
        'topology = "fat-tree:k=4,n=2"\n\n[[jobs]]\nworkload = "bu:size=10,ranks=4"\n\n'
        '[[jobs]]\nworkload = "bu:size=0,ranks=4"\n',
    )
    out = subprocess.run([BIN, "run", str(config)], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode != 0
    with pytest.raises(netreplay.Error) as raised:
        netreplay.run(config)
    assert f"{config}:7:16:" in str(raised.value)
    assert out.stderr.strip() == f"netreplay: error: {raised.value}"


# What every campaign row carries: the run's specs and models, its measures, and the build.
ROW_FIELDS = [
    "label",
    "workload",
    "size",
    "topology",
    "workload_spec",
    "placement",
    "seed",
    "ranks",
    "nodes",
    "model",
    "network",
    "mpi_model.protocol",
    "mpi_model.eager_threshold",
    "completion_cycles",
    "messages",
    "phit_hops",
    "mean_message_latency",
    "max_message_latency",
    "mean_hops",
    "busiest_link",
    "busiest_link_utilisation",
    "critical_path.cycles",
    "critical_path.compute_cycles",
    "critical_path.latency_cycles",
    "critical_path.contention_cycles",
    "mpi_time.compute_sum",
    "mpi_time.wait_sum",
    "cycles_per_second",
    "completion_seconds",
    "mean_message_latency_seconds",
    "max_message_latency_seconds",
    "wall_seconds",
    "version",
    "commit",
]


def test_quick_campaign_results_in_pandas(tmp_path):
    config = "configs/quick-campaign.toml"
    cli("campaign", config, "--out", str(tmp_path / "cli"), "--jobs", "2", "--quiet")
    df = netreplay.read_results(tmp_path / "cli")
    assert isinstance(df, pd.DataFrame)
    assert len(df) == 24
    missing = [f for f in ROW_FIELDS if f not in df.columns]
    assert not missing, f"missing columns {missing} in {list(df.columns)}"
    assert not df[[f for f in ROW_FIELDS if f != "busiest_link"]].isna().any().any()
    # The build that produced the rows: the package's version and the binary's commit.
    version = re.fullmatch(
        r"netreplay (\S+) \((?:commit ([0-9a-f]+)|unknown commit)\)", cli("--version").strip()
    )
    assert version, "netreplay --version names a version and a commit"
    assert set(df["version"]) == {version.group(1)} == {netreplay.__version__}
    assert set(df["commit"]) == {version.group(2) or "unknown"}
    # The quick campaign's models: seed 004's default network and reactive (eager) sources.
    assert set(df["model"]) == {"flit"}
    assert all(n == {} for n in df["network"])
    assert set(df["mpi_model.protocol"]) == {"eager"}
    assert set(df["placement"]) == {"consecutive"} and set(df["seed"]) == {1}
    row = df[(df["label"] == "4,3-fat-tree") & (df["workload"] == "bu") & (df["size"] == 1000)]
    assert len(row) == 1
    row = row.iloc[0]
    assert row["topology"] == "fat-tree:k=4,n=3"
    assert row["workload_spec"] == "bu:size=1000,ranks=64"
    split = sum(row[f"critical_path.{k}_cycles"] for k in ("compute", "latency", "contention"))
    assert split == row["critical_path.cycles"]
    assert 0 < row["busiest_link_utilisation"] <= 1
    assert row["completion_seconds"] == row["completion_cycles"] / 1e9
    # Each row is what `run --json` reports for the same run.
    report = cli_json("run", "--topology", row["topology"], "--workload", row["workload_spec"])
    for field in ["completion_cycles", "mean_message_latency", "max_message_latency", "mean_hops"]:
        assert row[field] == report[field], field
    assert row["busiest_link_utilisation"] == report["busiest_links"][0]["utilisation"]
    assert row["critical_path.contention_cycles"] == report["critical_path"]["contention_cycles"]
    assert df.attrs["reference"] == "4,3-fat-tree"
    assert "critical_path.steps" not in df.columns
    # The README's notebook lines.
    table = df.pivot_table("completion_cycles", index=["workload", "size"], columns="label")
    assert table.shape == (8, 3)
    means = df.groupby("label")[["mean_message_latency", "critical_path.contention_share"]].mean()
    assert means.shape == (3, 2)

    # The package's own campaign gives the same rows, and a second call resumes without rerunning.
    py = netreplay.campaign(config, tmp_path / "py", jobs=2)
    assert (tmp_path / "py" / "report.md").is_file()
    assert set(py["commit"]) == {netreplay.COMMIT}
    simulated = [c for c in df.columns if c not in ("wall_seconds", "network", "commit")]
    pd.testing.assert_frame_equal(py[simulated], df[simulated])
    lines = (tmp_path / "py" / "results.jsonl").read_text()
    again = netreplay.campaign(config, tmp_path / "py", jobs=2)
    assert (tmp_path / "py" / "results.jsonl").read_text() == lines
    assert len(again) == 24


def test_campaign_from_a_dict(tmp_path):
    config = {
        "reference": "ft",
        "sizes": [100],
        "workloads": ["bu"],
        "candidate": [
            {"label": "ft", "topology": "fat-tree:k=4,n=2"},
            {"label": "ft-flow", "topology": "fat-tree:k=4,n=2", "model": "flow"},
        ],
    }
    df = netreplay.campaign(config, tmp_path / "dict", jobs=1)
    assert list(df["label"]) == ["ft", "ft-flow"]
    assert list(df["model"]) == ["flit", "flow"]
    assert df["network"].iloc[1] == {"model": "flow"}


OLD_FIELDS = [
    "config_hash",
    "label",
    "workload",
    "size",
    "completion_cycles",
    "messages",
    "phit_hops",
    "wall_seconds",
]


def test_results_written_before_the_new_fields_still_load(tmp_path):
    stored = ROOT / "results" / "seed004-same-size"
    df = netreplay.read_results(stored)
    assert len(df) == 175
    assert (df["completion_cycles"] > 0).all()
    # The same runs as lines of the first format, eight fields each.
    old = tmp_path / "old"
    old.mkdir()
    (old / "campaign.json").write_text((stored / "campaign.json").read_text())
    lines = [json.loads(line) for line in (stored / "results.jsonl").read_text().splitlines()]
    (old / "results.jsonl").write_text(
        "".join(json.dumps({k: line[k] for k in OLD_FIELDS}) + "\n" for line in lines)
    )
    first = netreplay.read_results(old)
    assert list(first.columns) == OLD_FIELDS
    assert list(first["completion_cycles"]) == list(df["completion_cycles"])
