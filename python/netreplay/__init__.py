"""netreplay from Python: the simulator's library called in-process (no subprocess).

``run`` returns exactly the report ``netreplay run --json`` prints, as a dict; ``topology`` the
metrics ``netreplay topology --json`` prints; ``campaign`` runs (the rest of) a campaign as
``netreplay campaign`` does and, like ``read_results``, returns its ``results.jsonl`` as a pandas
DataFrame, one row per run. Errors raise ``netreplay.Error`` with the command line's message.
"""

import json
import os

from . import _native

Error = _native.Error
#: The version and commit of the library, as ``netreplay --version`` prints them.
VERSION = _native.VERSION
#: The git commit the library was built from (``unknown`` outside a checkout).
COMMIT = _native.COMMIT
__version__ = VERSION.split(" ")[0]

__all__ = ["run", "topology", "campaign", "read_results", "Error", "VERSION", "COMMIT"]

# Wall-clock fields of a run report: the only ones two runs of one configuration may differ in.
WALL_FIELDS = ("wall_seconds", "phit_hops_per_second", "node_cycles_per_second")


def _path(value):
    return None if value is None else os.fspath(value)


def run(
    config=None,
    *,
    topology=None,
    workload=None,
    placement=None,
    seed=None,
    routing=None,
    model=None,
    network=None,
    jobs=None,
    timeline=None,
    link_load=False,
    bins=None,
    max_memory=None,
):
    """One simulation, as ``netreplay run [CONFIG] --json``; returns the report as a dict.

    ``config`` is a TOML run config (path); the keyword arguments override it as the flags of the
    same names do: ``topology``, ``workload``, ``placement`` (spec strings), ``seed``, ``routing``
    and ``model`` (``"flit"`` or ``"flow"``). ``network`` is a dict of ``[network]`` keys merged into
    the config's table as if written there (``{"preset": "fsin-paper", "selection": "free"}``);
    ``jobs`` a list of ``[[jobs]]`` tables (dicts with ``workload``, ``placement``, ``start``).
    ``timeline`` writes the replay timeline to that file, ``link_load=True`` adds the report's
    ``link_load`` series (``bins`` at most), ``max_memory`` refuses a larger run (``"8G"``, bytes).
    """
    overrides = {
        key: value
        for key, value in (
            ("topology", topology),
            ("workload", workload),
            ("placement", placement),
            ("seed", seed),
            ("jobs", jobs),
        )
        if value is not None
    }
    keys = dict(network or {})
    if routing is not None:
        keys["routing"] = routing
    if model is not None:
        keys["model"] = model
    if keys:
        overrides["network"] = keys
    text = _native.run_json(
        _path(config),
        json.dumps(overrides),
        timeline=_path(timeline),
        link_load=bool(link_load),
        bins=bins,
        max_memory=None if max_memory is None else str(max_memory),
    )
    return json.loads(text)


def topology(spec, *, exact=False, fault_tolerance=False, trials=100):
    """A topology's structure and metrics, as ``netreplay topology SPEC --json``, as a dict."""
    return json.loads(
        _native.topology_json(
            spec, exact=exact, fault_tolerance=fault_tolerance, trials=trials
        )
    )


def campaign(config, out, *, jobs=None, progress=False):
    """Runs what ``out`` does not hold yet of a campaign and writes its report files there, as
    ``netreplay campaign CONFIG --out OUT``; returns ``read_results(out)``.

    ``config`` is a campaign TOML file (path) or a dict with the same keys (``[[candidate]]`` as a
    list under ``"candidate"``). ``jobs`` runs at once (default: every core); ``progress=True``
    prints progress lines on stderr.
    """
    if isinstance(config, dict):
        text, is_json = json.dumps(config), True
    else:
        text, is_json = os.fspath(config), False
    _native.campaign_run(text, is_json, os.fspath(out), jobs=jobs, progress=progress)
    return read_results(out)


def read_results(*dirs):
    """The runs of a campaign's results directories (shards of one config are merged) as a pandas
    DataFrame, one row per run.

    Columns are the fields of ``results.jsonl``; nested ones are flattened with dots
    (``critical_path.contention_cycles``, ``mpi_model.protocol``, ``mpi_time.wait_sum``), except
    ``network``, a dict per row of the ``[network]`` keys that differ from the default model. Lines
    written by versions before these fields existed leave them missing (NaN). ``df.attrs`` holds
    the config's ``name``, ``config_hash`` and ``reference``.
    """
    import pandas as pd

    if not dirs:
        raise ValueError("read_results needs at least one results directory")
    data = json.loads(_native.read_results_json([os.fspath(d) for d in dirs]))
    records = data["records"]
    networks = [record.pop("network", None) for record in records]
    frame = pd.json_normalize(records, sep=".") if records else pd.DataFrame()
    if any(n is not None for n in networks):
        frame["network"] = networks
    if "size" in frame:
        frame["size"] = frame["size"].astype("Int64")
    for key in ("name", "config_hash", "reference"):
        frame.attrs[key] = data[key]
    return frame
