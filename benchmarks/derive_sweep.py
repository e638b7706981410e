"""The derive sweep, measured: every model type of a transformers language-model auto mapping
derived and proven (paramcount.analyze.derive.sweep.one), each in its own process with a time limit,
``-j`` at a time; rows appended to a JSON-lines file as they finish (a rerun skips the types
it holds), then the tally and the failures by cause.

    .venv/bin/python benchmarks/derive_sweep.py --kind causal --kind masked --kind seq2seq \
        -j 2 --out /tmp/lm.jsonl \
        --record reports/derived.json

With PARAMCOUNT_CACHE_DIR set, a second run reads every derivation and proof from the cache
(the warm sweep)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

_ONE = ("import json, dataclasses; from paramcount.analyze.derive import sweep; "
        "print('ROW', json.dumps(dataclasses.asdict(sweep.one({t!r}, {kind!r}))))")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", choices=("causal", "masked", "seq2seq"), action="append",
                    help="an auto mapping to sweep (repeat for several; default: causal)")
    ap.add_argument("--only", nargs="+", metavar="TYPE", help="sweep these model types only")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--limit", type=int, default=600, help="seconds per model type")
    ap.add_argument("--out", required=True, help="JSON-lines file of the rows")
    ap.add_argument("--record", help="also write the rows as the report's record "
                    "(reports/derived.json, read by `paramcount report`)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    kinds = tuple(args.kind or ["causal"])
    have = {(r.get("kind", "causal"), r["model_type"]) for r in _rows(out)}
    items = [(k, t) for k in kinds for t in json.loads(subprocess.check_output([
        sys.executable, "-c", "import json; from paramcount.analyze.derive import sweep; "
        f"print(json.dumps(sweep.model_types(({k!r},))))"]))
             if not args.only or t in args.only]
    code = subprocess.check_output([  # the derive code's digest, for the rows made here
        sys.executable, "-c", "from paramcount.analyze.derive.store import fingerprint; "
        "print(fingerprint()[:16])"], text=True).strip()

    def job(item: tuple[str, str]) -> None:
        kind, t = item
        start = time.perf_counter()
        try:
            proc = subprocess.run([sys.executable, "-c", _ONE.format(t=t, kind=kind)],
                                  capture_output=True, text=True, timeout=args.limit)
            line = [x for x in proc.stdout.splitlines() if x.startswith("ROW ")]
            row = json.loads(line[0][4:]) if line else {
                "model_type": t, "cls": "", "status": "error", "kind": kind,
                "reason": "crashed: " + (proc.stderr.strip().splitlines() or ["?"])[-1]}
        except subprocess.TimeoutExpired:
            row = {"model_type": t, "cls": "", "status": "error", "kind": kind,
                   "reason": f"not derived within the sweep's time limit ({args.limit} s a type)"}
        row.setdefault("derive", code)
        row["seconds"] = round(time.perf_counter() - start, 1)
        with out.open("a") as f:
            f.write(json.dumps(row) + "\n")

    start = time.perf_counter()
    with ThreadPoolExecutor(args.j) as ex:
        list(ex.map(job, [x for x in items if x not in have]))
    rows = _rows(out)
    for k in kinds:
        of = [r for r in rows if r.get("kind", "causal") == k]
        proven = sum(r["status"] == "proven" for r in of)
        print(f"{proven} of {len(of)} swept ({sum(x[0] == k for x in items)} {k}-LM types) "
              "derived and proven")
    print(f"this run {time.perf_counter() - start:.0f} s")
    for (status, cause), n in Counter(
            (r["status"], r["reason"].split(":")[0][:90]) for r in rows
            if r["status"] != "proven").most_common():
        print(f"  {n:3d}  {status}: {cause}")
    if args.record:
        _record(rows, Path(args.record))
    return 0


def _rows(out: Path) -> list[dict]:
    """The rows a JSON-lines file holds (none where it does not exist)."""
    return [json.loads(x) for x in out.read_text().splitlines()] if out.exists() else []


def _record(rows: list[dict], path: Path) -> None:
    """The rows as the report's record, in model-type order, keyed by today's versions."""
    from paramcount.analyze.derive import sweep

    keep = sweep.Row.__dataclass_fields__
    out = sorted((sweep.Row(**{**{k: v for k, v in r.items() if k in keep},
                               "fields": tuple(r.get("fields") or ())}) for r in rows),
                 key=lambda r: (sweep.KINDS.index(r.kind), r.model_type))
    path.write_text(sweep.dumps(out, sweep.versions()), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
