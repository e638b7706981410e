"""paramcount benchmarks: each target as a ratio to an anchor measured in the same run.

    .venv/bin/python benchmarks/bench.py                 # everything but the report
    .venv/bin/python benchmarks/bench.py --report        # also `report`, cold and warm
    .venv/bin/python benchmarks/bench.py --skip-all      # without `verify --all` (minutes)
    .venv/bin/python benchmarks/bench.py --count-only    # only `count`'s start-up rows

A shared or busy machine slows everything alike, so a ratio to something measured beside it
(a bare interpreter start, one TensorFlow import, an ordinary build) says more than seconds do.
Targets (issue 12), checked here and nowhere else (timed tests would be flaky):

- `paramcount count`: at most 8× `python -c pass` and at most 0.15 s (median; its compiled
  count, i.e. after the first count of the architecture); shown against `import sympy` too;
  with `--context` at most 8× too, shown against its SymPy path (`--no-cache`).
- verifying the 96- and 126-layer presets (GPT-3 175B, Llama 3.1 405B, Qwen3-MoE 235B): at most
  1.5 s after the import; shown against an ordinary allocating build of GPT-2 XL (1.6B) and a
  transformers meta-device build of the same 175B model, where transformers is installed.
- `paramcount verify --all`: at most 10× one TensorFlow + KerasHub import.
- beside them (issue 9, no target of their own): the same large presets verified against
  transformers (meta-device builds), as a ratio to their Keras verification in the same run, and
  `paramcount verify --all --framework transformers` as a ratio to one torch + transformers import
  and to `verify --all` (Keras) in the same run.
- `paramcount derive --model-type deepseek_v3` (issue 19): within 30 s whole; the derivation
  as a ratio to one meta-device build of the same model in the same process.
- the derive sweep (with --sweep): every causal-LM model type derived and proven, cold and
  warm, as a ratio to one meta-device build of each at its defaults in the same run.
- `paramcount report` (with --report): at most 60 s warm, 2 min cold (a fresh cache).
- the default test run (with --tests: `pytest -n 2`, slow sweeps left out): at most 3 min, shown
  against one TensorFlow + KerasHub import (issue 17).

Every measurement runs in a fresh subprocess; the last lines are a markdown table to paste.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PY = sys.executable
ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    "TF_CPP_MIN_LOG_LEVEL": "3", "PARAMCOUNT_PROGRESS": "0"}

LARGE = [("gpt2", "gpt3_175b"), ("llama3", "llama3.1_405b"), ("qwen3_moe", "qwen3_moe_235b_a22b_en")]

_IMPORT_TF = """
import json, time
t = time.perf_counter()
import reference_models
reference_models.import_keras()  # TensorFlow, Keras, KerasHub
print(json.dumps({"import": time.perf_counter() - t}))
"""

_VERIFY_ONE = """
import json, resource, time, sys
t0 = time.perf_counter()
import reference_models
reference_models.import_keras()  # TensorFlow, Keras, KerasHub
t1 = time.perf_counter()
from paramcount.analyze.verify import verify
r = verify(sys.argv[1], preset=sys.argv[2])
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "verify": t2 - t1, "ok": r.ok, "params": r.reference,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

_ALLOCATING = """
import json, resource, time, sys, contextlib
import reference_models
reference_models.import_keras()
import keras
from paramcount.model import registry
from reference_models import _build
arch = registry.get(sys.argv[1])
hp = arch.resolve(arch.preset(sys.argv[2]).hparams)
_build.stateless = contextlib.nullcontext  # the ordinary build: every weight allocated
from paramcount.analyze.verify import build_reference
t = time.perf_counter()
model = build_reference(arch, hp)
n = model.count_params()
print(json.dumps({"build": time.perf_counter() - t, "params": n,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

# One large preset verified against transformers: torch and transformers imported first, then
# the meta-device build and the attribution of every PyTorch parameter.
_VERIFY_ONE_HF = _VERIFY_ONE.replace(
    "import reference_models\nreference_models.import_keras()  # TensorFlow, Keras, KerasHub",
    "import torch, transformers").replace("preset=sys.argv[2])",
                                          'preset=sys.argv[2], framework="transformers")')

_IMPORT_HF = """
import json, time
t = time.perf_counter()
import torch, transformers
from transformers import PreTrainedModel  # transformers imports its modeling code lazily
print(json.dumps({"import": time.perf_counter() - t}))
"""

# The same GPT-3 175B in transformers, built on PyTorch's meta device (no storage allocated).
_META = """
import json, time
t0 = time.perf_counter()
import torch
from transformers import GPT2Config, GPT2LMHeadModel
t1 = time.perf_counter()
config = GPT2Config(vocab_size=50257, n_positions=2048, n_embd=12288, n_layer=96, n_head=96,
                    n_inner=49152)
with torch.device("meta"):
    model = GPT2LMHeadModel(config)
n = sum(p.numel() for p in model.parameters())
print(json.dumps({"import": t1 - t0, "build": time.perf_counter() - t1, "params": n}))
"""


_CPU: list[float] = [0.0]  # the CPU seconds (user + system, its workers too) of the last child


def _children_cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _child(args: list[str], *, env: dict | None = None, timeout: float = 1800):
    t, cpu = time.perf_counter(), _children_cpu()
    proc = subprocess.run(args, capture_output=True, text=True, env=env or ENV, timeout=timeout)
    _CPU[0] = _children_cpu() - cpu
    return time.perf_counter() - t, proc


def _json(proc) -> dict:
    if proc.returncode:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1:] or ["failed"])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _median_wall(args: list[str], runs: int, *, env: dict | None = None) -> float:
    times = []
    for _ in range(runs):
        wall, proc = _child(args, env=env)
        if proc.returncode:
            raise RuntimeError(proc.stderr[-300:])
        times.append(wall)
    return statistics.median(times)


class Table:
    """Rows of: what | measured | anchor | ratio | target | outcome."""

    def __init__(self) -> None:
        self.rows: list[str] = []

    def add(self, what: str, measured: float, anchor_name: str = "", anchor: float | None = None,
            target: str = "", limit_ratio: float | None = None, limit_s: float | None = None,
            note: str = "") -> None:
        ratio = measured / anchor if anchor else None
        misses = []
        if limit_ratio is not None and ratio is not None and ratio > limit_ratio:
            misses.append(f"{ratio / limit_ratio:.2f}× over {limit_ratio:g}×")
        if limit_s is not None and measured > limit_s:
            misses.append(f"{measured - limit_s:.2f} s over {limit_s:g} s")
        outcome = ("missed: " + ", ".join(misses)) if misses else ("met" if target else "")
        if note:
            outcome = f"{outcome} ({note})" if outcome else note
        row = (f"| {what} | {measured:.3f} s | {anchor_name}"
               f"{f' {anchor:.3f} s' if anchor is not None else ''} | "
               f"{f'{ratio:.1f}×' if ratio is not None else ''} | {target} | {outcome} |")
        self.rows.append(row)
        print(row, file=sys.stderr, flush=True)  # as it goes; the table is printed at the end

    def markdown(self) -> str:
        return "\n".join(["| what | measured | anchor (same run) | ratio | target | outcome |",
                          "|---|---:|---|---:|---|---|", *self.rows])


def _has_transformers() -> bool:
    import importlib.util

    return bool(importlib.util.find_spec("torch") and importlib.util.find_spec("transformers"))


def bench_count(t: Table, runs: int) -> None:
    bare = _median_wall([PY, "-c", "pass"], runs)
    sympy_import = _median_wall([PY, "-c", "import sympy"], max(3, runs // 2))
    for what in ("count gpt2 --preset gpt2_base_en", "count mixtral --preset mixtral_8_7b_en",
                 "count llama3 --preset llama3_8b_en --context 8192"):  # memory and compute too
        cmd, plain = [PY, "-m", "paramcount", *what.split()], "--context" not in what
        _child(cmd)  # the first count compiles the architecture (and its costs) into the cache
        took = _median_wall(cmd, runs)
        t.add(f"`{what}` (median of {runs})", took, "`python -c pass`", bare,
              "≤ 8× and ≤ 0.15 s" if plain else "≤ 8×", limit_ratio=8, limit_s=0.15 if plain else None)
        if plain:
            t.add(f"`{what.split(' --')[0]}` against importing SymPy", took, "`import sympy`",
                  sympy_import)
        else:  # the same command through SymPy (--no-cache: nothing compiled read or written)
            t.add(f"`{what}` against its full path", took, "the same with `--no-cache` (SymPy)",
                  _median_wall([*cmd, "--no-cache"], max(3, runs // 2)))


def bench_large(t: Table, allocating: bool) -> None:
    gpt2_xl = None
    if allocating:
        try:
            gpt2_xl = _json(_child([PY, "-c", _ALLOCATING, "gpt2", "gpt2_extra_large_en"])[1])
        except RuntimeError as exc:
            print(f"allocating GPT-2 XL build failed: {exc}", file=sys.stderr)
    meta = None
    try:
        if _has_transformers():
            meta = _json(_child([PY, "-c", _META])[1])
    except RuntimeError as exc:
        print(f"transformers meta-device build failed: {exc}", file=sys.stderr)
    for arch_id, preset in LARGE:
        try:
            d = _json(_child([PY, "-c", _VERIFY_ONE, arch_id, preset])[1])
        except RuntimeError as exc:
            t.add(f"verify `{arch_id}` `{preset}`", float("nan"), note=f"failed: {exc}")
            continue
        what = (f"verify `{preset}` ({d['params'] / 1e9:.0f}B, {d['rss_mb']:.0f} MB peak) "
                f"after import")
        status = "" if d["ok"] else "MISMATCH"
        anchor = ("allocating build of GPT-2 XL", gpt2_xl["build"]) if gpt2_xl else ("", None)
        t.add(what, d["verify"], *anchor, "≤ 1.5 s", limit_s=1.5,
              note=status or ("" if gpt2_xl else "allocating anchor skipped: --no-allocating"))
        if meta and arch_id == "gpt2":
            t.add(f"verify `{preset}` against transformers", d["verify"],
                  "transformers meta-device build of the same model", meta["build"])
        if meta is None:
            continue
        try:
            h = _json(_child([PY, "-c", _VERIFY_ONE_HF, arch_id, preset])[1])
        except RuntimeError as exc:
            t.add(f"verify `{preset}` --framework transformers", float("nan"),
                  note=f"failed: {exc}")
            continue
        t.add(f"verify `{preset}` --framework transformers ({h['rss_mb']:.0f} MB peak) "
              "after import", h["verify"], "its Keras verification above", d["verify"],
              note="" if h["ok"] else "MISMATCH")


def _verify_all(jobs: int | None, *extra: str) -> tuple[float, str, str]:
    cmd = [PY, "-m", "paramcount", "verify", "--all", "--quiet", *extra]
    if jobs:
        cmd += ["-j", str(jobs)]
    wall, proc = _child(cmd)
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-200:]
    label = " ".join(["--all", *extra, *([f"-j {jobs}"] if jobs else [])])
    return wall, f"`verify {label}` ({summary})", "" if proc.returncode == 0 else \
        f"exit {proc.returncode}"


def bench_verify_all(t: Table, jobs: int | None) -> float:
    tf, tf_cpu = [], []
    for _ in range(3):
        tf.append(_json(_child([PY, "-c", _IMPORT_TF])[1])["import"])
        tf_cpu.append(_CPU[0])  # the whole process: interpreter, imports, exit
    wall, what, note = _verify_all(jobs)
    t.add(what, wall, "TensorFlow + KerasHub import", statistics.median(tf), "≤ 10×",
          limit_ratio=10, note=note)
    # CPU seconds, less sensitive than wall time to other work on a shared machine
    t.add(f"{what.split(' (')[0]}, CPU seconds of all its processes", _CPU[0],
          "CPU seconds of a process importing TensorFlow + KerasHub", statistics.median(tf_cpu))
    return wall


def bench_verify_all_transformers(t: Table, jobs: int | None, keras_wall: float | None) -> None:
    hf = statistics.median(_json(_child([PY, "-c", _IMPORT_HF])[1])["import"] for _ in range(3))
    wall, what, note = _verify_all(jobs, "--framework", "transformers")
    t.add(what, wall, "torch + transformers import", hf, note=note)
    if keras_wall is not None:
        t.add("`verify --all --framework transformers` against Keras' `verify --all`", wall,
              "`verify --all` above", keras_wall)


_DERIVE = """
import json, time
from paramcount.analyze.derive.core import derive
from paramcount.analyze.derive.probe import Source
src = Source(model_type="deepseek_v3")
builds = []
for _ in range(2):
    t = time.perf_counter()
    src.build({})
    builds.append(time.perf_counter() - t)
t = time.perf_counter()
d = derive(src)
print(json.dumps({"derive": time.perf_counter() - t, "build": min(builds),
                  "count": d.count({})["trainable"]}))
"""


def bench_derive(t: Table) -> None:
    """Issue 19: DeepSeek-V3 at its defaults (671B) derived within 30 s on 2 cores, whole
    command; the derivation alone as a ratio to one meta-device build of the same model."""
    r = _json(_child([PY, "-c", _DERIVE])[1])
    t.add("derive DeepSeek-V3 (671,026,404,352) after the import", r["derive"],
          "one meta-device build of it", r["build"],
          note="" if r["count"] == 671_026_404_352 else f"count {r['count']:,}")
    wall, proc = _child([PY, "-m", "paramcount", "derive", "--model-type", "deepseek_v3",
                         "--no-prove"], env={**ENV, "PARAMCOUNT_CACHE": "0"})
    t.add("`derive --model-type deepseek_v3 --no-prove`, whole command", wall,
          target="≤ 30 s", limit_s=30.0, note="" if proc.returncode == 0 else
          f"exit {proc.returncode}")


_BUILD_EACH = """
import json, time
from paramcount.analyze.derive import sweep
from paramcount.analyze.derive.probe import Source
total, failed = 0.0, 0
for mt in sweep.model_types():
    try:
        src = Source(model_type=mt)
        t = time.perf_counter()
        src.build({})
        total += time.perf_counter() - t
    except Exception:
        failed += 1
print(json.dumps({"build": total, "failed": failed}))
"""

_SWEEP = """
import json, time
from paramcount.analyze.derive import sweep
t = time.perf_counter()
rows = sweep.sweep()
print(json.dumps({"sweep": time.perf_counter() - t, "proven": sum(r.status == "proven"
                  for r in rows), "of": len(rows)}))
"""


def bench_sweep(t: Table) -> None:
    """Issue 19: every causal-LM model type derived and proven (paramcount.analyze.derive.sweep), cold
    (a fresh cache) and warm, as a ratio to one meta-device build of each model type at its
    defaults in the same run."""
    anchor = _json(_child([PY, "-c", _BUILD_EACH])[1])
    with tempfile.TemporaryDirectory() as d:
        env = {**ENV, "PARAMCOUNT_CACHE_DIR": d}
        for label in ("cold (empty cache)", "warm"):
            r = _json(_child([PY, "-c", _SWEEP], env=env, timeout=6 * 3600)[1])
            t.add(f"derive sweep of every causal-LM type, {label}: {r['proven']} of {r['of']} "
                  "proven", r["sweep"], "one meta-device build of each at its defaults",
                  anchor["build"], note=f"{anchor['failed']} do not build at their defaults"
                  if anchor["failed"] else "")


def bench_report(t: Table) -> None:
    with tempfile.TemporaryDirectory() as d:
        env = {**ENV, "PARAMCOUNT_CACHE_DIR": d}
        out = str(Path(d) / "conformance.md")
        for label, limit in (("cold (empty cache)", 120.0), ("warm", 60.0)):
            wall, proc = _child([PY, "-m", "paramcount", "report", "--quiet", "--output", out],
                                env=env)
            t.add(f"`report`, {label}", wall, target=f"≤ {limit:g} s", limit_s=limit,
                  note="" if proc.returncode == 0 else f"exit {proc.returncode}")


def bench_tests(t: Table) -> None:
    tf = statistics.median(_json(_child([PY, "-c", _IMPORT_TF])[1])["import"] for _ in range(3))
    wall, proc = _child([PY, "-m", "pytest", str(ROOT / "tests"), "-q", "-n", "2",
                         "-p", "no:cacheprovider"],
                        timeout=3600)
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    t.add(f"default test run, `pytest -n 2` ({last.strip('= ')})", wall,
          "TensorFlow + KerasHub import", tf, "≤ 180 s", limit_s=180.0,
          note="" if proc.returncode == 0 else f"exit {proc.returncode}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=11, help="runs per median of the short timings")
    ap.add_argument("--no-allocating", dest="allocating", action="store_false",
                    help="skip the ordinary allocating build of GPT-2 XL (about 7 GB)")
    ap.add_argument("--skip-all", action="store_true", help="skip `verify --all`")
    ap.add_argument("--count-only", action="store_true",
                    help="only the `count` rows (start-up against `python -c pass`)")
    ap.add_argument("--jobs", type=int, default=None, help="`verify --all -j N` (default: cores)")
    ap.add_argument("--report", action="store_true", help="also time `report`, cold and warm")
    ap.add_argument("--tests", action="store_true", help="also time the default test run")
    ap.add_argument("--sweep", action="store_true", help="also time the derive sweep of every "
                                                         "causal-LM type, cold and warm (hours)")
    args = ap.parse_args(argv)
    t = Table()
    bench_count(t, args.runs)
    if not args.count_only:
        _bench_rest(t, args)
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
          "ratios hold up better than seconds on a busy machine\n")
    print(t.markdown())
    return 0


def _bench_rest(t: Table, args) -> None:  # everything after `count`'s rows
    bench_large(t, args.allocating)
    if not args.skip_all:
        keras_wall = bench_verify_all(t, args.jobs)
        if _has_transformers():
            bench_verify_all_transformers(t, args.jobs, keras_wall)
    if _has_transformers():
        bench_derive(t)
    if args.sweep and _has_transformers():
        bench_sweep(t)
    if args.report:
        bench_report(t)
    if args.tests:
        bench_tests(t)


if __name__ == "__main__":
    sys.exit(main())
