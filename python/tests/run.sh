#!/usr/bin/env bash
# Builds the Python package into a virtual environment under the target directory and runs its tests
# (python/tests/test_netreplay.py). tests/python_package.rs runs it under `cargo test`; by hand:
#   NETREPLAY_BIN=target/release/netreplay NETREPLAY_PYTHON_PROFILE=release python/tests/run.sh
#
# NETREPLAY_BIN: the command-line binary the package's answers are compared with (default: netreplay
# on PATH). NETREPLAY_PYTHON_PROFILE: the Cargo profile of the native module (default `release`, as
# `pip install ./python` builds it; not `test`, which `cargo rustc`, maturin's build, turns into a test
# harness). The venv is kept between runs; pip installs maturin, pandas and pytest into it once.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
venv="$target/python-venv"
profile="${NETREPLAY_PYTHON_PROFILE:-release}"
export NETREPLAY_BIN="${NETREPLAY_BIN:-$(command -v netreplay || true)}"
if [ -z "$NETREPLAY_BIN" ]; then
  echo "run.sh: set NETREPLAY_BIN to the netreplay binary (or put netreplay on PATH)" >&2
  exit 2
fi

start=$(date +%s)
# Exit status 3: the venv or its packages could not be set up (no PyPI, say), which the Rust test
# reports as a skip unless NETREPLAY_REQUIRE_PYTHON=1.
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" || exit 3
fi
if ! "$venv/bin/python" -c "import maturin, pandas, pytest" 2>/dev/null; then
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check maturin pandas pytest || exit 3
fi
venv_done=$(date +%s)

cd "$root/python"
# The workspace's target directory: what an earlier build of this profile compiled is reused.
CARGO_TARGET_DIR="$target" VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" \
  "$venv/bin/maturin" develop --quiet --profile "$profile"
built=$(date +%s)

"$venv/bin/python" -m pytest -q -p no:cacheprovider tests
finished=$(date +%s)
echo "python package: venv and packages $((venv_done - start)) s, build $((built - venv_done)) s," \
  "pytest $((finished - built)) s"
