"""paramcount benchmarks: prints a markdown table of measured times and peak memory.

    .venv/bin/python benchmarks/bench.py              # everything below except --allocating
    .venv/bin/python benchmarks/bench.py --allocating # also the ordinary (allocating) build

Targets (issue 4), checked here and nowhere else (timed tests would be flaky):
- `paramcount verify --all`: under 120 s and 2 GB on a 2-core machine.
- verifying the largest presets: under 2 s and 1.5 GB each (measured in a fresh process:
  the verification itself, and the whole process's peak memory, TensorFlow import included).
- `paramcount count ARCH --preset NAME` end to end: under 0.6 s (it never imports TensorFlow).

Each measurement runs in a fresh subprocess, so peak memory (ru_maxrss) is that run's alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

PY = sys.executable

_VERIFY_ONE = """
import json, resource, time, sys
t0 = time.perf_counter()
import reference_models  # TensorFlow, Keras, KerasHub
t1 = time.perf_counter()
from paramcount.verify import verify
r = verify(sys.argv[1], preset=sys.argv[2])
t2 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "verify": t2 - t1, "ok": r.ok, "params": r.keras,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

_ALLOCATING = """
import json, resource, time, sys
import reference_models, keras
from paramcount import registry
from reference_models import _build
arch = registry.get(sys.argv[1])
hp = arch.resolve(arch.preset(sys.argv[2]).hparams)
import contextlib
_build.stateless = contextlib.nullcontext  # the ordinary build: every weight allocated
t = time.perf_counter()
from paramcount.verify import build_reference
model = build_reference(arch, hp)
n = model.count_params()
print(json.dumps({"build": time.perf_counter() - t, "params": n,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _child(args: list[str], timeout: float = 900) -> tuple[float, subprocess.CompletedProcess]:
    """Run a child process (each reports its own peak memory); (wall seconds, result)."""
    t = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    return time.perf_counter() - t, proc


def outcome(met: bool, ok: bool | None = None) -> str:
    """The outcome column: whether the time/memory target was met, and (for a verification)
    whether formula and Keras matched. A row that misses its target says "missed", whatever
    else went right."""
    target = "target met" if met else "target missed"
    if ok is None:
        return target
    return f"{'match' if ok else 'MISMATCH'}; {target}"


def bench_verify_all() -> list[str]:
    wall, proc = _child([PY, "-c", "import resource, sys, json; from paramcount.cli import "
                            "main; code = main(['verify', '--all', '--quiet']); "
                            "print(json.dumps({'rss_mb': resource.getrusage("
                            "resource.RUSAGE_SELF).ru_maxrss / 1024, 'code': code}))"])
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    sets = proc.stdout.strip().splitlines()[-2]
    return [f"| `paramcount verify --all` ({sets}) | {wall:.1f} s | {data['rss_mb']:.0f} MB "
            f"| < 120 s, < 2048 MB | exit {data['code']}; "
            f"{outcome(wall < 120 and data['rss_mb'] < 2048)} |"]


def largest_presets(top: int) -> list[tuple[str, str, int]]:
    from paramcount import registry

    rows = []
    for arch in registry.architectures().values():
        best = None
        for p in arch.presets_table().values():
            count = arch.count(arch.resolve(p.hparams))
            if best is None or count > best[2]:
                best = (arch.id, p.name, count)
        if best:
            rows.append(best)
    rows.sort(key=lambda r: -r[2])
    return rows[:top]


def bench_largest(top: int) -> list[str]:
    out = []
    for arch_id, preset, count in largest_presets(top):
        _, proc = _child([PY, "-c", _VERIFY_ONE, arch_id, preset])
        if proc.returncode:
            out.append(f"| verify {arch_id} {preset} | failed | | | {proc.stderr[-200:]!r} |")
            continue
        d = json.loads(proc.stdout.strip().splitlines()[-1])
        out.append(f"| verify `{arch_id}` `{preset}` ({count / 1e9:.1f}B) | {d['verify']:.2f} s "
                   f"(+{d['import']:.1f} s import) | {d['rss_mb']:.0f} MB | < 2 s, < 1536 MB "
                   f"| {outcome(d['verify'] < 2 and d['rss_mb'] < 1536, d['ok'])} |")
    return out


def bench_allocating(arch_id: str, preset: str) -> list[str]:
    _, proc = _child([PY, "-c", _ALLOCATING, arch_id, preset], timeout=1800)
    if proc.returncode:
        tail = proc.stderr.strip().splitlines()[-1:] or ["killed"]
        return [f"| ordinary allocating build `{arch_id}` `{preset}` | failed | | | {tail[0][:120]} |"]
    d = json.loads(proc.stdout.strip().splitlines()[-1])
    return [f"| ordinary allocating build `{arch_id}` `{preset}` ({d['params'] / 1e9:.2f}B) "
            f"| {d['build']:.1f} s | {d['rss_mb']:.0f} MB | (for comparison) | |"]


def bench_count(runs: int = 7) -> list[str]:
    out = []
    for arch_id, preset in (("gpt2", "gpt2_base_en"), ("bert", "bert_large_en_uncased")):
        times = []
        for _ in range(runs):
            wall, proc = _child([PY, "-m", "paramcount", "count", arch_id, "--preset", preset])
            assert proc.returncode == 0, proc.stderr
            times.append(wall)
        median = statistics.median(times)
        out.append(f"| `paramcount count {arch_id} --preset {preset}` (median of {runs}) "
                   f"| {median:.2f} s | | < 0.6 s | {outcome(median < 0.6)} |")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=8, help="how many of the largest presets")
    ap.add_argument("--allocating", action="store_true",
                    help="also time the ordinary allocating build of GPT-2 XL (about 7 GB)")
    ap.add_argument("--skip-all", action="store_true", help="skip `verify --all`")
    args = ap.parse_args(argv)
    print("| what | time | peak memory | target | outcome |")
    print("|---|---:|---:|---|---|")
    for line in bench_count():
        print(line, flush=True)
    for line in bench_largest(args.top):
        print(line, flush=True)
    if args.allocating:
        for line in bench_allocating("gpt2", "gpt2_extra_large_en"):
            print(line, flush=True)
    if not args.skip_all:
        for line in bench_verify_all():
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
