"""Every transformers language model: each model type of the causal-LM auto mapping (and, on
request, masked-LM and seq2seq-LM) derived at its config class's defaults and proven against its
builds, and the report's page as markdown. Each derivation and proof is cached
(:mod:`paramcount.analyze.derive.store`), so a warm sweep reads them back; the rows are recorded as JSON
(:func:`dumps`, ``reports/derived.json``) so the page renders without torch."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass

__all__ = ["RECORD_NAME", "Row", "codes", "dumps", "loads", "model_types", "one", "section", "sweep",
           "tally"]

RECORD_NAME = "derived.json"
KV_AT = {"T": 4096, "B": 1}  # the context and batch the page's KV and FLOPs columns are given at
KV_SECONDS = 300  # a cache (FLOPs) derivation and its proof stop here (each build runs a forward)
KINDS = ("causal", "masked", "seq2seq")


@dataclass(frozen=True)
class Row:
    model_type: str
    cls: str
    status: str  # "proven", "unproven" (derived, a proof case failed), "failed" or "error"
    total: int | None = None
    fields: tuple[str, ...] = ()
    reason: str = ""
    kind: str = "causal"
    derive: str = ""  # the derive code's digest it was swept under ("": before rows carried it)
    # its KV cache (paramcount.analyze.derive_cache): "proven ...", or why not ("": not swept),
    # and the elements it holds at KV_AT at the defaults (None where it is not proven)
    kv: str = ""
    kv_at: int | None = None
    # its forward FLOPs (paramcount.analyze.derive_flops), as its KV cache
    flops: str = ""
    flops_at: int | None = None


def model_types(kinds: tuple[str, ...] = ("causal",)) -> list[str]:
    from transformers.models.auto import modeling_auto as ma

    maps = {"causal": ma.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
            "masked": ma.MODEL_FOR_MASKED_LM_MAPPING_NAMES,
            "seq2seq": ma.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES}
    return sorted({t for k in kinds for t in maps[k]})


def _classes(kind: str) -> dict[str, str]:
    from transformers.models.auto import modeling_auto as ma

    return dict({"causal": ma.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
                 "masked": ma.MODEL_FOR_MASKED_LM_MAPPING_NAMES,
                 "seq2seq": ma.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES}[kind])


def _line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"


def one(model_type: str, kind: str = "causal", *, prove: bool = True) -> Row:
    """One model type at its config class's defaults, built as its ``kind`` class: derived and,
    with ``prove``, proven (both cached); the row names the derive code it was swept under."""
    from dataclasses import replace

    from paramcount.analyze.derive.store import fingerprint

    return replace(_one(model_type, kind, prove=prove), derive=fingerprint()[:16])


def _one(model_type: str, kind: str, *, prove: bool) -> Row:
    from paramcount.analyze.derive import derive_model
    from paramcount.core.errors import ParamcountError

    cls = _classes(kind).get(model_type)
    cls = cls if isinstance(cls, str) else None
    try:
        src, d, _ = derive_model(model_type=model_type, cls=cls)
    except ParamcountError as exc:
        return Row(model_type, cls or "", "error", reason=str(exc), kind=kind)
    except Exception as exc:  # a config class that fails at its own defaults: a named row
        return Row(model_type, cls or "", "error", reason=_line(exc), kind=kind)
    fields = tuple(d.fields)
    if d.failures:
        what, why = d.failures[0]
        return Row(model_type, d.cls, "failed", fields=fields, reason=f"{what}: {why}", kind=kind)
    total = d.count({})["trainable"]
    if not prove:
        return Row(model_type, d.cls, "unproven", total, fields, "not proven (--no-prove)", kind)
    try:
        cases = _proof(d, src)
    except Exception as exc:  # the proof's own failure is this row's reason, not a crash
        return Row(model_type, d.cls, "unproven", total, fields, f"proof: {_line(exc)}", kind)
    bad = [c for c in cases if c["status"] != "proven"]
    if bad:
        return Row(model_type, d.cls, "unproven", total, fields,
                   f"{len(bad)} of {len(cases)} proof cases not proven; {bad[0]['case']}: "
                   f"{bad[0]['status']}: {' '.join(str(bad[0]['message']).split())[:160]}", kind)
    return Row(model_type, d.cls, "proven", total, fields,
               f"{len(cases)} cases proven{_held(d)}{_given(src, d)}", kind)


def cache(model_type: str, kind: str = "causal", quantity: str = "kv") -> tuple[str, int | None]:
    """The KV cache (``quantity`` "kv") or the forward FLOPs ("flops") of one model type at its
    config class's defaults, built as its ``kind`` class
    (:func:`paramcount.analyze.derive_cache.derive_cache`): "proven: ..." with the elements (the
    FLOPs) at :data:`KV_AT`, or what stopped it (None)."""
    import time

    from paramcount.analyze.derive import deadline
    from paramcount.analyze.derive_cache import derive_cache, fingerprint
    from paramcount.analyze.derive_flops import SOURCES

    source = SOURCES[quantity]
    cls = _classes(kind).get(model_type)
    cls = cls if isinstance(cls, str) else None
    code = f" [{fingerprint(None, source.code)[:8]}]"
    try:
        with deadline.until(time.monotonic() + KV_SECONDS, KV_SECONDS):
            regimes = derive_cache(model_type, cls, source=source)
    except Exception as exc:  # the derivation's refusal, the forward's failure: the row's reason
        return f"error: {_line(exc)}{code}", None
    for r in regimes:
        if r.derivation.failures:
            what, why = r.derivation.failures[0]
            return f"failed{_side(r)}: {what}: {why}{code}", None
        if r.why:
            return f"not polynomial{_side(r)}: {r.why}{code}", None
        bad = [c for c in r.cases if c["status"] != "proven"]
        if bad or not r.cases:
            first = bad[0] if bad else {"case": "", "status": "no case", "message": ""}
            return (f"unproven{_side(r)}: {first['case']}: {first['status']}: "
                    f"{' '.join(str(first['message']).split())[:160]}{code}"), None
    n = sum(len(r.cases) for r in regimes)
    sides = " and ".join(r.label for r in regimes if r.label)
    at = _kv_at(regimes)
    return (f"proven: {n} case{'s' if n != 1 else ''}" + (f", two regimes ({sides})" if sides
                                                           else "") + code), at


def _side(r) -> str:
    return f" ({r.label})" if r.label else ""


def _kv_at(regimes) -> int:
    """The cache's elements at :data:`KV_AT` at the defaults, from the regime that holds it."""
    return next(r.elements(KV_AT) for r in regimes if r.holds(KV_AT["T"]))


def _held(d) -> str:
    """The fields held at their values, as the proof line says them: the row is proven for all
    values of the others only (Inkling 2 Loop's loop_layer_index_start, 6 in every build)."""
    from paramcount.analyze.derive.held import fixed, said

    values = fixed(d)
    return f"; with {said(values)} held" if values else ""


def _given(src, d) -> str:
    """The integers the defaults leave None that the build was given, as the row's note
    (:mod:`paramcount.analyze.derive.prepare`: Dots1's n_routed_experts)."""
    try:
        cfg = src.config({})
    except Exception:  # a config refusing its base never reaches here; no note then
        return ""
    raw = cfg if isinstance(cfg, dict) else cfg.to_dict()  # before any repair
    filled = [f"{k}={v}" for k, v in sorted(d.explicit.items())
              if type(v) is int and k in raw and raw[k] is None]
    return f"; at {', '.join(filled)} (None at the defaults)" if filled else ""


def _proof(d, src) -> list[dict]:
    from paramcount.analyze.derive.proof import prove_derivation
    from paramcount.analyze.derive.store import cached_proof

    return cached_proof(d, lambda: [{"case": c.case, "status": c.status, "message": c.message}
                                    for c in prove_derivation(d, src).cases])


def sweep(kinds: tuple[str, ...] = ("causal",), types: list[str] | None = None, *,
          prove: bool = True, progress: Callable[[str], None] | None = None) -> list[Row]:
    """Every model type of each of ``kinds``'s auto mappings (or ``types`` of them: each kind the
    names its mapping has, each once, in the order given)."""
    out = []
    for kind in kinds:
        known = model_types((kind,))
        for t in known if types is None else [t for t in dict.fromkeys(types) if t in known]:
            if progress:
                progress(f"{kind} {t}")
            out.append(one(t, kind, prove=prove))
    return out


def versions() -> dict[str, str]:
    """The libraries a sweep's rows hold for, and the derive code's digest (the record's key)."""
    from paramcount.analyze.derive.store import fingerprint
    from paramcount.runtime import cache

    v = cache.library_versions()
    return {"torch": v.get("torch", "?"), "transformers": v.get("transformers", "?"),
            "derive": fingerprint()[:16]}


def dumps(rows: list[Row], vers: dict[str, str]) -> str:
    """The record (``reports/derived.json``): sorted keys, one row a line, so it diffs."""
    body = ",\n".join("  " + json.dumps({**asdict(r), "fields": list(r.fields)}, sort_keys=True)
                      for r in rows)
    return ('{"versions": ' + json.dumps(vers, sort_keys=True) + ',\n"rows": [\n' + body
            + "\n]}\n")


def loads(text: str) -> tuple[list[Row], dict[str, str]]:
    """Rows and versions of a record; ValueError for a record of another shape."""
    from paramcount.runtime import inputs

    try:  # (a malformed, too deep or too long-numbered record: an InputFileError, a ValueError)
        obj = inputs.parse_json(text, "the derive sweep record", "a derive sweep record")
        rows = [Row(r["model_type"], r["cls"], r["status"], r["total"], tuple(r["fields"]),
                    r["reason"], r["kind"], str(r.get("derive", "")), str(r.get("kv", "")),
                    _count(r.get("kv_at")), str(r.get("flops", "")), _count(r.get("flops_at")))
                for r in obj["rows"]]
        return rows, {str(k): str(v) for k, v in obj["versions"].items()}
    except (KeyError, TypeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a derive sweep record: {exc}") from None


def _count(x) -> int | None:
    if x is None:
        return None
    if type(x) is not int:
        raise TypeError(f"kv_at is {x!r}, not an integer")
    return x


def tally(rows: list[Row], kind: str = "causal") -> str:
    of = [r for r in rows if r.kind == kind]
    proven = sum(r.status == "proven" for r in of)
    pct = f" ({100 * proven / len(of):.0f} %)" if of else ""
    return f"{proven} of {len(of)} {kind}-LM model types derived and proven{pct}"


# the page's cost columns: (the row's field, its name in the tallies, the column's head, the unit)
_COSTS = (("kv", "KV caches", "KV cache", "elements"), ("flops", "forward FLOPs", "forward FLOPs",
                                                          "FLOPs"))


def kv_tally(rows: list[Row], kind: str = "causal", field: str = "kv") -> str:
    """How many of a kind's swept caches (``field`` "flops": forward FLOPs) are proven ("" where
    none was swept)."""
    of = [r for r in rows if r.kind == kind and getattr(r, field)]
    if not of:
        return ""
    proven = sum(getattr(r, field).startswith("proven") for r in of)
    name = next(c[1] for c in _COSTS if c[0] == field)
    return (f"{proven} of {len(of)} {kind}-LM model types' {name} derived and proven "
            f"({100 * proven / len(of):.0f} %)")


def section(rows: list[Row], versions: dict[str, str]) -> list[str]:
    """The report's "Every transformers language model" page body, one table per auto mapping."""
    names = {"causal": "causal-LM", "masked": "masked-LM", "seq2seq": "seq2seq-LM"}
    lines = [f"Each model type of transformers {versions.get('transformers', '?')}'s "
             "language-model auto mappings, its formula derived from its own meta-device "
             "builds at its config class's defaults (`paramcount derive --model-type NAME "
             "--class CLASS`) and proven ≡ the build for all hyperparameters found (bound on a "
             "false proof < 1e-9); a proven row that names fields held was proven for all "
             "values of the others, with those at their values, where alone its formula is "
             "exact (no build the derivation made varied them). A row that is not proven names "
             "its reason; nothing is approximated.", ""]
    lines += [f"- {tally(rows, k)}" for k in KINDS if any(r.kind == k for r in rows)]
    lines += [f"- {kv_tally(rows, k, c[0])}" for c in _COSTS for k in KINDS
              if kv_tally(rows, k, c[0])]
    lines += ["", codes(rows, versions)]
    lines += _by_cause("Not proven", [_cause(r) for r in rows if r.status != "proven"])
    for field, name, _, _ in _COSTS:
        lines += _by_cause(f"{name[0].upper()}{name[1:]} not proven", [
            _kv_cause(getattr(r, field)) for r in rows
            if getattr(r, field) and not getattr(r, field).startswith("proven")])
    for k in KINDS:
        of = [r for r in rows if r.kind == k]
        if not of:
            continue
        costs = [c for c in _COSTS if any(getattr(r, c[0]) for r in of)]
        lines += ["", f"## {names[k]} model types", ""]
        if costs:
            lines += [_KV_NOTE, ""]
        lines += ["| model type | class | parameters at the defaults | hyperparameters found | "
                  "status |" + "".join(f" {c[2]} at T = 4,096, B = 1 |" for c in costs),
                  "|---|---|---:|---|---|" + "---|" * len(costs)]
        for r in sorted(of, key=lambda r: r.model_type):
            total = f"{r.total:,}" if r.total is not None else ""
            found = ", ".join(f"`{f}`" for f in r.fields)
            status = f"{r.status}: {r.reason}" if r.status != "proven" else \
                "proven" + (r.reason[r.reason.index(";"):] if ";" in r.reason else "")
            cache = "".join(f" {_cell(r, field, unit)} |" for field, _, _, unit in costs)
            lines.append(f"| `{r.model_type}` | {r.cls} | {total} | {found} | "
                         f"{status.replace('|', '/')} |{cache}")
    return lines


def _cell(r: Row, field: str, unit: str) -> str:
    """A row's cost column: its figure and status, or why not, or "not swept"."""
    said, at = getattr(r, field), getattr(r, f"{field}_at")
    return (f"{at:,} {unit}, {said}" if at is not None else said or "not swept").replace("|", "/")


_KV_NOTE = (
    "The KV cache column (the forward FLOPs column, as FlopCounterMode counts them: `--flops`, "
    "each counted operation observed as a tensor of its FLOPs' factors): the cache a forward of "
    "B sequences of T tokens returns, derived with "
    "T and B as two more fields (`paramcount derive --model-type NAME --kv`: the cache observed "
    "as weights beside the model's, each tensor's shape and layer count fitted) and proven ≡ "
    "the cache for all values of the fields it reads and of those a constraint binds to them "
    "(the derivation's builds varied every other field, and no cache tensor followed it). A "
    "window makes two regimes, T below it and past it, each derived and proven. The figure is "
    "the elements at the defaults, T = 4,096 and B = 1 (bytes: times the bytes of the cache's "
    "dtype); the bracket names the cache derivation's code. The forwards run on the meta "
    "device, which reads no index: the figure is the formula's at T = 4,096 even where a "
    "learned position table is shorter (GPT-2's 1,024 positions), where a real forward "
    "refuses that context.")


def codes(rows: list[Row], versions: dict[str, str]) -> str:
    """Which derive code the rows were swept under: the record's (the code it was written at)
    and any other, by count, so a record that re-sweeps some rows says so."""
    now = versions.get("derive", "?")
    n: dict[str, int] = {}
    for r in rows:
        n[r.derive] = n.get(r.derive, 0) + 1
    parts = [f"{n.pop(now)} under the derive code of this record (`{now}`)"] if now in n else []
    parts += [f"{c} under earlier code `{d}`" for d, c in sorted(n.items(), key=lambda x: (-x[1], x[0]))
              if d]
    parts += [f"{n['']} under earlier code, before rows named theirs"] if n.get("") else []
    return "Rows swept: " + "; ".join(parts) + "."


def _by_cause(title: str, causes: list[str]) -> list[str]:
    """The page's tally of ``causes``, most first ([] for none)."""
    n: dict[str, int] = {}
    for c in causes:
        n[c] = n.get(c, 0) + 1
    if not n:
        return []
    return ["", f"{title}, by cause:", "", *(f"- {c}: {k}" for c, k in sorted(
        n.items(), key=lambda x: (-x[1], x[0])))]


# (a pattern of a row's reason, its cause), the first that matches deciding: the page's tallies
_CAUSES = (
    ("does not build on the meta device", "does not build at the defaults"),
    ("refuses its base values", "the config refuses its own defaults"),
    ("too few random configurations", "too few small configs build"),
    ("how many weights", "a layer count that is no such expression"),
    ("dimension", "a dimension that is no such expression"),
    ("differs between layers", "a shape that differs between layers"),
    ("proof", "derived, not proven"),
    ("no transformers class", "no class to build"),
)
_KV_CAUSES = (
    ("OverBudget", "the derivation ran past its budget"),
    ("does not build on the meta device", "no forward on the meta device at the defaults"),
    ("not polynomial", "a bound on the positions kept, not one window"),
    ("cannot split", "a floor the prover cannot split"),
    ("cannot bound a remainder", "a floor the prover cannot split"),
    ("is not a polyn", "a floor the prover cannot split"),
    ("wall limit", "the sweep's wall limit a type"),
    ("returns no cache", "no cache returned"),
    ("expanded size", "no forward past the position table"),
    ("broadcast a dimension", "no forward past the position table"),
    ("too few random", "too few small configs run"),
    ("tiny model failed", "a proof's build failed"),
    ("cannot parametrize", "a constraint the prover cannot parametrize"),
    ("build raised", "a proof's build failed"),
    ("inconclusive", "a proof inconclusive"),
    ("refuted", "a proof refuted"),
    ("no such expression", "a shape that is no such expression"),
    ("worker died", "the worker died"),
)


def _kv_cause(kv: str) -> str:
    """A KV status by kind, for the tally by cause (else its first word)."""
    return _first(kv, _KV_CAUSES, kv.split(":", 1)[0])


def _cause(r: Row) -> str:
    """A row's reason by kind, for the tally by cause."""
    return _first(r.reason, _CAUSES, "other")


def _first(text: str, table: tuple[tuple[str, str], ...], otherwise: str) -> str:
    return next((cause for pattern, cause in table if pattern in text), otherwise)
