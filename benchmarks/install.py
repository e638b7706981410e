"""How much a user installs for the question they ask: the core package against everything.

    python3 benchmarks/install.py [--install core all] [--keep] [--json]

Each install is README's set-up command with its own extras, into a fresh venv in a temporary
folder: ``python3 -m venv D && D/bin/pip install -c constraints.txt -e '.[EXTRAS]'`` (``core`` is
``-e .``, SymPy alone). For each it records the seconds the venv and the install took, the venv's
size on disk, the distributions installed, and what that install can do: ``count --config``
(and that it imports no TensorFlow, Keras or torch, which the core install does not even hold),
and, where the Keras extra is missing, that ``verify`` ends in the one line naming it. The last
lines are a markdown table for benchmarks/README.md.

pip reads its wheels from this machine's caches and local indexes (as CI does); a first run
downloads what is not cached yet, so run it twice and keep the second figures.

Measured here (2 cores shared with other work, load average 15-17, pip's cache warm; the second
of two runs of ``--install core all``, ``all+test`` from the first):

    core      `.`            43.3 s   108 MiB    5 distributions  count --config: exit 0, no heavy import
    all       `.[all]`      505.4 s   3.39 GiB  78 distributions  count --config: exit 0, no heavy import
    all+test  `.[all,test]` 544.8 s   3.58 GiB 123 distributions

and without the Keras extra, ``verify gpt2 --preset tiny`` exits 2 with ``paramcount: error:
verify needs the keras extra (tensorflow, keras, keras_hub not installed): pip install
'paramcount[keras]'``. benchmarks/README.md has the table and its reading.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "tests" / "configs" / "llama-2-7b-hf.json"
INSTALLS = {"core": "", "keras": "keras", "report": "report", "all": "all", "all+test": "all,test"}
HEAVY = ("tensorflow", "keras", "keras_hub", "torch", "transformers", "matplotlib", "numpy", "safetensors",
         "gguf", "h5py")


def _size(folder: Path) -> int:
    """Bytes on disk (allocated blocks, as du counts them; hard links once)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            st = os.lstat(os.path.join(dirpath, name))
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_blocks * 512
    return total


def _run(argv: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def measure(name: str, python: str, keep: bool) -> dict:
    extras = INSTALLS[name]
    target = Path(tempfile.mkdtemp(prefix=f"paramcount-install-{name}-"))
    venv = target / "venv"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PARAMCOUNT_CACHE"] = "0"  # measure the install, not a cache another run left
    try:
        t0 = time.perf_counter()
        _run([python, "-m", "venv", str(venv)], check=True)
        t1 = time.perf_counter()
        spec = "." if not extras else f".[{extras}]"
        pip = _run([str(venv / "bin" / "pip"), "install", "-q", "-c", "constraints.txt", "-e", spec],
                   cwd=ROOT, env=env)
        t2 = time.perf_counter()
        if pip.returncode:
            raise SystemExit(f"{name}: pip failed:\n{pip.stderr[-2000:]}")
        dists = _run([str(venv / "bin" / "pip"), "list", "--format=json"], env=env, check=True)
        py = str(venv / "bin" / "python")
        probe = ("import importlib.util, json; "
                 f"print(json.dumps([m for m in {list(HEAVY)!r} if importlib.util.find_spec(m)]))")
        installed = json.loads(_run([py, "-c", probe], env=env, check=True).stdout)
        count = ("import json, sys; from paramcount.cli.main import main; "
                 f"code = main(['count', '--config', {str(CONFIG)!r}, '--json']); "
                 f"print(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules])); "
                 "sys.exit(code)")
        t3 = time.perf_counter()
        c = _run([py, "-c", count], env=env, cwd=target)
        t4 = time.perf_counter()
        lines = c.stdout.splitlines()
        out = {
            "install": name, "pip_spec": spec,
            "venv_seconds": round(t1 - t0, 2), "pip_seconds": round(t2 - t1, 2),
            "bytes": _size(venv), "distributions": len(json.loads(dists.stdout)),
            "frameworks_installed": installed,
            "count_config_status": c.returncode,
            "count_config_total": json.loads("\n".join(lines[:-1]))["total"] if c.returncode == 0 else None,
            "count_config_imported": json.loads(lines[-1]) if c.returncode == 0 else None,
            "count_config_seconds": round(t4 - t3, 2),
            "load_average": [round(x, 1) for x in os.getloadavg()],  # 1, 5, 15 min, at the end
        }
        if "keras" not in installed:
            v = _run([py, "-m", "paramcount", "verify", "gpt2", "--preset", "tiny"], env=env, cwd=target)
            out["verify_without_keras"] = {"status": v.returncode, "stderr": v.stderr.strip()}
        return out
    finally:
        if keep:
            print(f"kept {venv}", file=sys.stderr)
        else:
            shutil.rmtree(target, ignore_errors=True)


def _human(n: int) -> str:
    return f"{n / 2**30:.2f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"


def table(rows: list[dict]) -> str:
    lines = ["| install | pip spec | venv + install | size on disk | distributions | "
             "`count --config` | without the Keras extra, `verify` |",
             "|---|---|---:|---:|---:|---|---|"]
    for r in rows:
        imported = ", ".join(r["count_config_imported"] or []) or "nothing heavy imported"
        count = (f"exit {r['count_config_status']}, {r['count_config_total']:,} in "
                 f"{r['count_config_seconds']:.2f} s, {imported}")
        v = r.get("verify_without_keras")
        verify = f"exit {v['status']}: `{v['stderr']}`" if v else "(installed)"
        lines.append(f"| {r['install']} | `{r['pip_spec']}` | "
                     f"{r['venv_seconds'] + r['pip_seconds']:.1f} s | {_human(r['bytes'])} | "
                     f"{r['distributions']} | {count} | {verify} |")
    loads = ", ".join(f"{r['install']} {r['load_average'][0]}" for r in rows)
    return "\n".join([*lines, "", f"Load average (1 min) at the end of each install: {loads}; "
                       f"{os.cpu_count()} cores."])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--install", nargs="+", choices=sorted(INSTALLS), default=["core", "all"],
                   help="which installs to measure (default: core all)")
    p.add_argument("--python", default="python3", help="the interpreter the venvs are made from")
    p.add_argument("--keep", action="store_true", help="keep the venvs (their paths on stderr)")
    p.add_argument("--json", action="store_true", help="the measurements as JSON")
    args = p.parse_args(argv)
    rows = []
    for name in args.install:
        print(f"installing {name} ...", file=sys.stderr, flush=True)
        rows.append(measure(name, args.python, args.keep))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(json.dumps(rows, indent=1) if args.json else table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
