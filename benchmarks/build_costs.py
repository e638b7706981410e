"""Where `verify` spends its time in one process (`-j 1`): the Keras builds of each architecture,
the attribution of weights to the formula's leaves (`compare`), the cyclic garbage collector, and
the process's peak memory.

    .venv/bin/python benchmarks/build_costs.py [--top N] [ARCH ...]

Without ARCH it verifies every set (`verify --all`). TensorFlow and KerasHub are imported before
the clock starts, so the first build is not charged with them. A collection that runs inside a
build or an attribution is counted there too: the shares may sum past 100%. Its last lines are a markdown
table to paste into benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import gc
import io
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("arch", nargs="*", help="architectures to verify (default: all)")
    ap.add_argument("--top", type=int, default=15, help="architectures listed, costliest first")
    args = ap.parse_args(argv)

    import importlib

    import keras_hub  # noqa: F401  (imported here, not charged to the first build)

    import reference_models
    from paramcount.analyze import verify
    from paramcount.cli.main import main as cli

    # (before paramcount/analyze/builds.py, the builder was called from paramcount.analyze.verify: a checkout of
    # an earlier commit is measured the same way)
    here = Path(verify.__file__).parent
    builds = importlib.import_module("paramcount.analyze.builds") if (here / "builds.py").is_file() \
        else verify

    reference_models.import_keras()
    per: collections.Counter[str] = collections.Counter()
    sets: collections.Counter[str] = collections.Counter()
    spent: collections.Counter[str] = collections.Counter()

    def timed(fn, charge):
        def run(arch, *a, **kw):
            t = time.perf_counter()
            try:
                return fn(arch, *a, **kw)
            finally:
                charge(arch, time.perf_counter() - t)
        return run

    def on_build(arch, s):
        per[arch.id] += s
        sets[arch.id] += 1

    builds.build_reference = timed(builds.build_reference, on_build)
    verify.compare = timed(verify.compare, lambda arch, s: spent.update(compare=s))
    started: list[float] = []

    def on_gc(phase, info):
        if phase == "start":
            started.append(time.perf_counter())
        elif started:
            spent["gc"] += time.perf_counter() - started.pop()

    gc.callbacks.append(on_gc)
    t = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = cli(["verify", *(args.arch or ["--all"]), "-j", "1", "--quiet"])
    wall = time.perf_counter() - t
    gc.callbacks.remove(on_gc)
    summary = (out.getvalue().strip().splitlines() or ["no output"])[-1]
    print(f"`verify {' '.join(args.arch) or '--all'} -j 1` ({summary}), exit {code}\n")
    print("| where | seconds | share |\n|---|---:|---:|")
    for what, s in (("whole verification", wall), ("Keras builds", sum(per.values())),
                    ("attribution (`compare`)", spent["compare"]),
                    ("cyclic garbage collector", spent["gc"])):
        print(f"| {what} | {s:.2f} | {100 * s / wall:.0f}% |")
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024  # KiB on Linux
    print(f"| peak memory of this process | {peak} MB | |")
    for arch_id, s in per.most_common(args.top):
        print(f"| builds of `{arch_id}` ({sets[arch_id]}) | {s:.2f} | {100 * s / wall:.0f}% |")
    return code


if __name__ == "__main__":
    sys.exit(main())
