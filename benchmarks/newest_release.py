"""The newest transformers, checked: a release newer than the pin (constraints.txt), installed
into a fresh venv, verified and swept for the model types it adds.

    python3 benchmarks/newest_release.py [--version X] [--against V] [--venv DIR] \
        [--torch-index URL] [--limit S] [-j N] [--out FILE]

pyproject allows ``transformers>=5``, so users run releases newer than the one constraints.txt
pins. This script, for one such release (``--version``; default the newest on the index, as
``pip index versions transformers`` reports it, pre-releases left out):

1. makes a fresh venv (in ``--venv DIR``, default a temporary folder, removed afterwards unless
   ``--keep``), installs torch alone (``--no-deps``) from ``--torch-index`` first (a CPU one by
   default), then this checkout with the transformers extra and that transformers
   (``pip install -e '.[transformers]' transformers==X``; constraints.txt is not applied: it
   pins another transformers);
2. runs ``paramcount verify --all --framework transformers --json`` there and tallies match,
   mismatch, skipped and error;
3. finds the model types of the causal-, masked- and seq2seq-LM auto mappings
   (:func:`paramcount.analyze.derive.sweep.model_types`) that the pinned release (the
   ``transformers==`` line of constraints.txt, or ``--against V``) lacks, read from that
   release's wheel (``pip download --no-deps``, its ``models/auto/modeling_auto.py`` parsed, not
   imported), and derives and proves each in its own process with a time limit
   (benchmarks/derive_sweep.py ``--only``, run by the venv's interpreter);
4. prints a markdown table (and writes it to ``--out FILE``): exact (verify's match, a derived
   type proven), refused (verify's skipped set, a type derive refuses, with its reason), wrong
   (verify's mismatch, a derived formula a proof case refutes) and unfinished (an error row, a
   crash, the time limit, a proof that could not decide).

Bad arguments: one line, exit 2. benchmarks/README.md has a run's table and its command.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONSTRAINTS = ROOT / "constraints.txt"
KINDS = ("causal", "masked", "seq2seq")
MAPPINGS = {"causal": "MODEL_FOR_CAUSAL_LM_MAPPING_NAMES",
            "masked": "MODEL_FOR_MASKED_LM_MAPPING_NAMES",
            "seq2seq": "MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES"}
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
# a release as PyPI spells it (PEP 440's public versions, without epochs or local parts)
VERSION = re.compile(r"[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?")
OUTCOMES = ("exact", "refused", "wrong", "unfinished")


class BadArguments(Exception):
    """An argument this script refuses: its message is the one line printed."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not argparse's usage block
        raise BadArguments(message)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The options, checked; BadArguments (one line) for any this script refuses."""
    p = _Parser(description=__doc__.splitlines()[0])
    p.add_argument("--version", help="the transformers release to check (default: the newest)")
    p.add_argument("--against", help="the release whose model types count as known (default: "
                   "the transformers== line of constraints.txt)")
    p.add_argument("--venv", help="a folder for the venv (default: a temporary one)")
    p.add_argument("--keep", action="store_true", help="keep a temporary venv (its path on stderr)")
    p.add_argument("--torch-index", default=TORCH_INDEX,
                   help=f"the index torch is installed from first (default {TORCH_INDEX}; "
                   "'' : torch as the transformers extra resolves it)")
    p.add_argument("--limit", type=int, default=600, help="seconds per new model type (default 600)")
    p.add_argument("-j", type=int, default=2, help="processes at a time (default 2)")
    p.add_argument("--out", help="also write the table to this file")
    args = p.parse_args(argv)
    for opt in ("version", "against"):
        v = getattr(args, opt)
        if v is not None and not VERSION.fullmatch(v):
            raise BadArguments(f"--{opt} {v!r} is not a release version (such as 5.24.0)")
    if args.limit <= 0:
        raise BadArguments(f"--limit must be a positive number of seconds, not {args.limit}")
    if args.j <= 0:
        raise BadArguments(f"-j must be at least 1, not {args.j}")
    if args.venv is not None and Path(args.venv).exists() and not Path(args.venv).is_dir():
        raise BadArguments(f"--venv {args.venv} exists and is not a folder")
    if args.out is not None and Path(args.out).is_dir():
        raise BadArguments(f"--out {args.out} is a folder")
    if args.version is not None and args.against is not None and args.version == args.against:
        raise BadArguments(f"--version and --against are the same release ({args.version})")
    return args


def pinned(text: str) -> str:
    """The release the ``transformers==`` line of a constraints file pins; BadArguments if none."""
    for line in text.splitlines():
        m = re.fullmatch(r"\s*transformers\s*==\s*(\S+?)\s*(#.*)?", line)
        if m:
            return m.group(1)
    raise BadArguments("constraints.txt pins no transformers== release: give --against VERSION")


def newest(pip: list[str]) -> str:
    """The newest transformers release on the index, as ``pip index versions`` says."""
    proc = subprocess.run([*pip, "index", "versions", "transformers", "--json"],
                          capture_output=True, text=True)
    if proc.returncode == 0:
        return json.loads(proc.stdout)["latest"]
    proc = subprocess.run([*pip, "index", "versions", "transformers"], capture_output=True, text=True)
    m = re.match(r"transformers \(([^)]+)\)", proc.stdout)
    if not m:
        raise SystemExit("pip index versions transformers: " + (proc.stderr.strip().splitlines()
                                                                or ["no answer"])[-1])
    return m.group(1)


def mapping_types(source: str) -> dict[str, list[str]]:
    """Each kind's model types, from the text of a release's ``models/auto/modeling_auto.py``:
    the first argument of ``NAME = OrderedDict([...])``, read as a literal (nothing imported)."""
    found: dict[str, list[str]] = {}
    names = {v: k for k, v in MAPPINGS.items()}
    for node in ast.parse(source).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id in names
                and isinstance(node.value, ast.Call) and node.value.args):
            pairs = ast.literal_eval(node.value.args[0])
            found[names[node.targets[0].id]] = sorted({t for t, _ in pairs})
    missing = [MAPPINGS[k] for k in KINDS if k not in found]
    if missing:
        raise ValueError(f"modeling_auto.py defines no {', '.join(missing)} literal")
    return found


def release_types(pip: list[str], version: str, folder: Path) -> dict[str, list[str]]:
    """A release's auto-mapping model types, from its wheel (downloaded, not installed)."""
    folder.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([*pip, "download", "-q", "--no-deps", "--only-binary", ":all:",
                           "-d", str(folder), f"transformers=={version}"],
                          capture_output=True, text=True)
    wheels = sorted(folder.glob(f"transformers-{version}-*.whl"))
    if proc.returncode or not wheels:
        raise SystemExit(f"pip download transformers=={version}: "
                         + (proc.stderr.strip().splitlines() or ["no wheel"])[-1])
    with zipfile.ZipFile(wheels[0]) as z:
        return mapping_types(z.read("transformers/models/auto/modeling_auto.py").decode())


def new_types(newer: dict[str, list[str]], older: dict[str, list[str]]) -> list[tuple[str, str]]:
    """(kind, model type) of the newer mappings that the older ones lack, in kind order."""
    return [(k, t) for k in KINDS for t in newer.get(k, []) if t not in set(older.get(k, []))]


def outcome_of_verify(status: str) -> str:
    return {"match": "exact", "skipped": "refused", "mismatch": "wrong"}.get(status, "unfinished")


def outcome_of_row(row: dict) -> str:
    """A derive sweep row's outcome: proven is exact; a refutation is wrong; derive's refusal
    (its error or failed rows) is refused; a crash, the time limit, a proof that raised or could
    not decide is unfinished."""
    status, reason = row.get("status"), row.get("reason", "")
    if status == "proven":
        return "exact"
    if status == "unproven":
        return "wrong" if re.search(r"proof cases not proven; [^;]*?: refuted:", reason) else "unfinished"
    if reason.startswith(("crashed:", "not derived within")):
        return "unfinished"
    return "refused"


def _cell(text: str, width: int = 160) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if len(text) <= width else text[:width - 1] + "…"


def table(info: dict, verify_rows: list[dict], derived: list[dict]) -> str:
    """The markdown: the versions, the tally of verify and of the new types, each new type's row,
    and verify's rows that were not exact."""
    v = Counter(outcome_of_verify(r.get("status", "")) for r in verify_rows)
    d = Counter(outcome_of_row(r) for r in derived)
    lines = [f"transformers {info['version']} (against {info['against']}), torch {info['torch']}, "
             f"{info['date']}; {info['new']} model types new to the auto mappings.", "",
             "| check | exact | refused | wrong | unfinished |", "|---|---:|---:|---:|---:|",
             f"| `verify --all --framework transformers` ({len(verify_rows)} sets) | "
             f"{v['exact']} match | {v['refused']} skipped | {v['wrong']} mismatch | "
             f"{v['unfinished']} error |",
             f"| new model types derived and proven ({len(derived)} of {info['new']}) | "
             f"{d['exact']} proven | {d['refused']} refused | {d['wrong']} refuted | "
             f"{d['unfinished']} unfinished |"]
    if derived:
        lines += ["", "| kind | model type | class | outcome | parameters at the defaults | "
                  "reason or note | seconds |", "|---|---|---|---|---:|---|---:|"]
        for r in sorted(derived, key=lambda r: (KINDS.index(r["kind"]), r["model_type"])):
            total = f"{r['total']:,}" if isinstance(r.get("total"), int) else ""
            lines.append(f"| {r['kind']} | {r['model_type']} | {r.get('cls') or ''} | "
                         f"{outcome_of_row(r)} | {total} | {_cell(r.get('reason', ''))} | "
                         f"{r.get('seconds', '')} |")
    off = [r for r in verify_rows if outcome_of_verify(r.get("status", "")) != "exact"]
    if off:
        lines += ["", "| verify: architecture | set | outcome | reason |", "|---|---|---|---|"]
        for r in off:
            why = r.get("reason") or r.get("error") or (
                f"formula {r.get('formula')}, transformers {r.get('keras')}" if "formula" in r else "")
            lines.append(f"| {r.get('arch', '?')} | {r.get('preset', '')} | "
                         f"{outcome_of_verify(r.get('status', ''))} | {_cell(why)} |")
    return "\n".join(lines)


def _run(argv: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def _last(proc: subprocess.CompletedProcess) -> str:
    return (proc.stderr.strip().splitlines() or proc.stdout.strip().splitlines() or ["?"])[-1]


def install(venv: Path, version: str, torch_index: str, env: dict) -> dict:
    """A venv with a CPU torch, then this checkout's transformers extra at ``version``."""
    say = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    t0 = time.perf_counter()
    py = venv / "bin" / "python"
    if not py.exists():
        say(f"venv {venv} ...")
        _run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(py), "-m", "pip"]
    if torch_index:
        say(f"torch from {torch_index} ...")
        # torch alone from that index (it need not mirror torch's own requirements: pip resolves
        # those from the ordinary index in the next step, torch being installed by then)
        p = _run([*pip, "install", "-q", "--no-deps", "torch", "--index-url", torch_index], env=env)
        if p.returncode:
            raise SystemExit(f"pip install torch: {_last(p)}")
    say(f"paramcount[transformers] with transformers=={version} ...")
    p = _run([*pip, "install", "-q", "-e", f"{ROOT}[transformers]", f"transformers=={version}"],
             env=env, cwd=ROOT)
    if p.returncode:
        raise SystemExit(f"pip install transformers=={version}: {_last(p)}")
    got = json.loads(_run([str(py), "-c", "import json, importlib.metadata as m; print(json.dumps("
                           "{d: m.version(d) for d in ('torch', 'transformers')}))"],
                          env=env, check=True).stdout)
    if got["transformers"] != version:
        raise SystemExit(f"the venv holds transformers {got['transformers']}, not {version}")
    return {**got, "install_seconds": round(time.perf_counter() - t0, 1)}


def verify(py: Path, jobs: int, env: dict) -> tuple[list[dict], float]:
    """verify --all --framework transformers's rows (a crash: one error row)."""
    t0 = time.perf_counter()
    p = _run([str(py), "-m", "paramcount", "verify", "--all", "--framework", "transformers",
              "--json", "--quiet", "-j", str(jobs)], env=env, cwd=ROOT)
    try:
        rows = json.loads(p.stdout)
    except json.JSONDecodeError:
        rows = [{"arch": "(verify --all)", "status": "error",
                 "error": f"exit {p.returncode}: {_last(p)}"}]
    return rows, round(time.perf_counter() - t0, 1)


def derive_new(py: Path, new: list[tuple[str, str]], args, rows_file: Path, env: dict) -> list[dict]:
    """Each new (kind, type) through benchmarks/derive_sweep.py in the venv; the rows it holds
    for them (a rerun with the same ``--venv`` keeps the rows already written)."""
    for kind in KINDS:
        types = [t for k, t in new if k == kind]
        if types:
            print(f"deriving {len(types)} new {kind}-LM types ...", file=sys.stderr, flush=True)
            p = _run([str(py), str(ROOT / "benchmarks" / "derive_sweep.py"), "--kind", kind,
                      "--only", *types, "-j", str(args.j), "--limit", str(args.limit),
                      "--out", str(rows_file)], env=env, cwd=ROOT)
            if p.returncode:
                raise SystemExit(f"derive_sweep.py ({kind}): {_last(p)}")
    want = set(new)
    rows = [json.loads(x) for x in rows_file.read_text().splitlines()] if rows_file.exists() else []
    return [r for r in rows if (r.get("kind", "causal"), r["model_type"]) in want]


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_args(argv)
        against = args.against or pinned(CONSTRAINTS.read_text(encoding="utf-8"))
    except BadArguments as exc:
        print(f"newest_release.py: error: {exc}", file=sys.stderr)
        return 2
    version = args.version or newest([sys.executable, "-m", "pip"])
    if version == against:
        which = "--against" if args.against else "the pin in constraints.txt"
        print(f"newest_release.py: error: transformers {version} is also the release checked "
              f"against ({which}): give --against an older one", file=sys.stderr)
        return 2
    base = Path(args.venv) if args.venv else Path(tempfile.mkdtemp(prefix="paramcount-newest-"))
    base.mkdir(parents=True, exist_ok=True)
    venv = base / f"transformers-{version}"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PARAMCOUNT_CACHE_DIR"] = str(base / "cache")  # this release's derivations, not another's
    try:
        got = install(venv, version, args.torch_index, env)
        py = venv / "bin" / "python"
        print("verify --all --framework transformers ...", file=sys.stderr, flush=True)
        verify_rows, verify_s = verify(py, args.j, env)
        pip = [str(py), "-m", "pip"]
        older = release_types(pip, against, base / "wheels")
        newer = json.loads(_run([str(py), "-c", "import json; from paramcount.analyze.derive "
                                 f"import sweep; print(json.dumps({{k: sweep.model_types((k,)) "
                                 f"for k in {KINDS!r}}}))"], env=env, cwd=ROOT, check=True).stdout)
        new = new_types(newer, older)
        print(f"{len(new)} new (kind, model type): {new}", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        derived = derive_new(py, new, args, base / f"derived-{version}-vs-{against}.jsonl", env)
        info = {"version": version, "against": against, "torch": got["torch"], "new": len(new),
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
        text = table(info, verify_rows, derived)
        print(text)
        print(f"\ninstall {got['install_seconds']} s, verify {verify_s} s, derive "
              f"{time.perf_counter() - t0:.0f} s (-j {args.j}, --limit {args.limit} s a type); "
              f"load average {os.getloadavg()[0]:.1f}; {os.cpu_count()} cores", file=sys.stderr)
        if args.out:
            Path(args.out).write_text(text + "\n", encoding="utf-8")
    finally:
        if args.venv is None and not args.keep:
            shutil.rmtree(base, ignore_errors=True)
        elif args.venv is None:
            print(f"kept {base}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
