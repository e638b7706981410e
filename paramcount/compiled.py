"""``count`` without SymPy: each architecture's formula tree compiled to integer arithmetic.

Importing SymPy costs more than everything else ``paramcount count`` does. So the first count of
an architecture (through SymPy, :mod:`paramcount.render`) also writes that architecture's tree as
generated Python — hyperparameter roles, defaults, constraints, presets, the breakdown's labels
and every count it shows as plain integer expressions — to the on-disk cache
(:mod:`paramcount.cache`); later counts run that code and never import SymPy.

**Why a cache entry and not a generated module in the package.** The key must be computable
without building the tree (building it is what costs), and it must change whenever the tree could:
it is a digest of paramcount's own sources and presets (:func:`paramcount.cache.source_fingerprint`,
the package version included), so an edited formula can never be answered from a stale entry,
and nobody has to remember to regenerate a committed file. Where the cache cannot be written
(read-only home), ``count`` stays correct and runs through SymPy.

**Same answers, same errors.** The compiled path handles only input it can fully check — presets
and examples of the packaged architectures, ``--set NAME=DIGITS`` — and *defers* on anything else:
an unknown name or preset, a value out of its domain, a violated constraint, a non-integer
default, user plugins. Deferring means running the ordinary (SymPy) command, so every error
message and exit status is that path's own, by construction. Tests check that both evaluators
give the same output for every preset, every example set and random sets.

Division is exact: ``_q`` keeps integers where the quotient is whole and falls back to
:class:`fractions.Fraction` otherwise; a count that is not a whole number defers.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping, Sequence

from paramcount import cache
from paramcount.compiled_source import generate
from paramcount.exact import floor as _floor
from paramcount.exact import q as _q

__all__ = ["Defer", "entrypoint", "evaluate", "generate", "load", "store", "try_count"]

KIND = "count"
FORMAT = 2  # bump when the generated code's shape changes


class Defer(Exception):
    """The compiled path cannot answer this input exactly as the SymPy path would: use that."""


# --- helpers the generated code calls ------------------------------------------------------------
def _i(x) -> int:
    """A count: a whole number or defer (SymPy's path raises its own error there)."""
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    if getattr(x, "denominator", None) == 1:
        return int(x)
    raise Defer(f"not an integer: {x}")


def _is_int(x) -> bool:
    return isinstance(x, int) or getattr(x, "denominator", None) == 1


def store(arch) -> bool:
    """Compile ``arch`` into the cache (best effort: False when it cannot be stored)."""
    try:
        src = generate(arch)
    except NotImplementedError:
        return False
    if cache.put(KIND, _digest(arch.id), src.encode(), ".py") is None:
        return False
    cache.prune(KIND, 1000)  # each edit of paramcount's sources keys new entries
    return True


# --- evaluation (no SymPy) -----------------------------------------------------------------------
def _digest(arch_id: str) -> str:
    return cache.key(FORMAT, cache.source_fingerprint(), arch_id)


def load(arch_id: str) -> dict | None:
    """The compiled namespace of ``arch_id``, or None when not (yet) in the cache."""
    raw = cache.get(KIND, _digest(arch_id), ".py")
    if raw is None:
        return None
    ns: dict = {"_q": _q, "_floor": _floor, "__name__": f"paramcount.compiled.{arch_id}"}
    try:
        exec(compile(raw, f"<paramcount compiled {arch_id}>", "exec"), ns)
    except Exception:  # a damaged entry is a miss
        return None
    return ns


def _violated(ns: dict, values: Mapping[str, int]) -> bool:
    """Whether a constraint fails, read as hparams.Divisible/Relation read it (a constraint
    whose symbols are not all known yet, or whose sides are not whole numbers, is not checked)."""
    fns = ns["CONSTRAINT_FNS"]
    for kind, op, deps, when, i in ns["CONSTRAINTS"]:
        if not all(d in values for d in deps):
            continue
        if kind == "div":
            a, b = fns[i](values), fns[i + 1](values)
            if _is_int(a) and _is_int(b) and int(a) % int(b):
                return True
            continue
        if when is not None:
            wdeps, wi = when
            if not all(d in values for d in wdeps):
                continue
            w = fns[wi](values)
            if not _is_int(w) or int(w) == 0:
                continue
        a, b = fns[i](values), fns[i + 1](values)
        if not {"==": a == b, "<=": a <= b, ">=": a >= b}[op]:
            return True
    return False


def _check_value(ns: dict, name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Defer(name)
    if name in ns["FLAGS"]:
        if value not in (0, 1):
            raise Defer(name)
    elif value < (0 if name in ns.get("ZERO_OK", ()) else 1):
        raise Defer(name)
    return value


def resolve(ns: dict, given: Mapping[str, int]) -> dict[str, int]:
    """hparams.resolve, compiled: the complete set, or Defer where that would raise."""
    required, optional, fixed = ns["REQUIRED"], ns["OPTIONAL"], ns["FIXED"]
    settable = set(required) | set(optional)
    values: dict[str, int] = {}
    pinned: dict[str, int] = {}
    for name, value in given.items():
        if name not in settable:
            if name in fixed:
                pinned[name] = _check_value(ns, name, value)
                continue
            raise Defer(name)
        values[name] = _check_value(ns, name, value)
    if any(s not in values for s in required) or _violated(ns, values):
        raise Defer("missing or constrained")
    defaults = {name: (deps, i) for name, deps, i in ns["DEFAULTS"]}
    pending = {**{k: defaults[k] for k in optional if k not in values},
               **{k: defaults[k] for k in fixed}}
    while pending:
        progressed = False
        for name, (deps, i) in list(pending.items()):
            if not all(d in values for d in deps):
                continue
            values[name] = _i(ns["DEFAULT_FNS"][i](values))
            del pending[name]
            progressed = True
        if not progressed:
            raise Defer("defaults depend on each other")
    if _violated(ns, values):
        raise Defer("constrained")
    if any(values[k] != v for k, v in pinned.items()):
        raise Defer("pinned")
    return {k: values[k] for k in (*required, *optional, *fixed)}


def evaluate(ns: dict, hparams: Mapping[str, int], name: str | None = None):
    """A resolved set's :class:`~paramcount.count_output.Counted`, by the compiled code."""
    from paramcount.context import context_of
    from paramcount.count_output import Counted

    V = dict(hparams)
    rows = tuple((d, label, _i(x)) for (d, label), x in zip(ns["ROWS"], ns["rows"](V), strict=True))
    leaves = [_i(x) for x in ns["components"](V)]

    def fill(shape):
        return {k: fill(s) if isinstance(s, dict) else leaves[s] for k, s in shape.items()}

    totals = [_i(x) for x in ns["totals"](V)]
    trainable, frozen, everything = totals[:3]
    emb = sum(_i(x) for x in ns["embeddings"](V))
    active = totals[3] if ns["HAS_ACTIVE"] else None
    ctx = context_of(everything, trainable, emb, ns["RULE_APPLIES"], hparams)
    return Counted(ns["ID"], name, dict(hparams), rows, fill(ns["COMPONENTS"]), trainable,
                   frozen, active, ctx)


def _parse(argv: Sequence[str]) -> tuple[str, str | None, list[tuple[str, str]], bool] | None:
    """``count ARCH [--preset NAME] [--set A=1 ...] [--json]``, in the plainest spelling only;
    None for anything else (abbreviations, ``--opt=value``, help, unknown options, repeats)."""
    if len(argv) < 2 or argv[0] != "count":
        return None
    arch, preset, sets, as_json = None, None, [], False
    seen: set[str] = set()
    i = 1
    while i < len(argv):
        tok = argv[i]
        if tok in ("--preset", "--json", "--set") and tok in seen and tok != "--set":
            return None
        if tok == "--json":
            as_json = True
        elif tok == "--preset":
            if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                return None
            preset = argv[i + 1]
            i += 1
        elif tok == "--set":
            j = i + 1
            while j < len(argv) and not argv[j].startswith("-"):
                sets.append(argv[j].partition("=")[::2])
                j += 1
            if j == i + 1:
                return None
            i = j - 1
        elif tok.startswith("-") or arch is not None:
            return None
        else:
            arch = tok
        seen.add(tok)
        i += 1
    if arch is None or (preset is None and not sets):
        return None
    return arch, preset, sets, as_json


def _plain_int(raw: str) -> int:
    # Only the spelling every integer parser reads the same way; anything else defers.
    if not raw.isascii() or not raw.isdigit() or (raw.startswith("0") and raw != "0"):
        raise Defer(raw)
    return int(raw)


def try_count(argv: Sequence[str]) -> str | None:
    """The output of ``paramcount <argv>`` when the compiled path can give it, else None."""
    parsed = _parse(argv)
    if parsed is None or os.environ.get("PARAMCOUNT_PLUGINS", "").strip():
        return None
    arch_id, preset, sets, as_json = parsed
    ns = load(arch_id)
    if ns is None or "keras" not in ns["CHECKED_BY"]:
        return None  # a model only transformers builds: count says so (the SymPy path)
    try:
        given: dict[str, int] = {}
        name = None
        if preset is not None:
            if preset not in ns["PRESETS"]:
                raise Defer(preset)
            given.update(ns["PRESETS"][preset])
            name = preset
        if sets:
            names = [k.strip() for k, _ in sets]
            if len(set(names)) != len(names):
                raise Defer("repeated name")
            for k, raw in sets:
                if not k.strip() or not raw.strip():
                    raise Defer(k)
                given[k.strip()] = _plain_int(raw.strip())
            name = f"{name}+custom" if name else "custom"
        hp = resolve(ns, given)
        counted = evaluate(ns, hp, name)
    except Defer:
        return None
    except (ArithmeticError, TypeError, ValueError, KeyError):
        return None  # the SymPy path says what is wrong, in its words
    from paramcount import count_output

    if as_json:
        import json

        out = count_output.count_json(counted)
        out["checked_by"] = list(ns["CHECKED_BY"])  # as cli.cmd_count adds it
        return json.dumps(out, indent=2) + "\n"
    return count_output.count_text(counted) + "\n"


def entrypoint() -> None:
    """The ``paramcount`` command: the compiled count where it answers, the full CLI otherwise
    (which, for a count the cache does not hold yet, also compiles it for next time)."""
    try:
        code = _main(sys.argv[1:])
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's 128 + SIGINT
        sys.stderr.write("paramcount: interrupted\n")
        code = 130
    sys.exit(code)


def _main(argv: list[str]) -> int:
    out = try_count(argv) if sys.stdout is not None else None
    if out is not None:
        try:
            sys.stdout.write(out)
            sys.stdout.flush()
        except BrokenPipeError:
            pass
        except (OSError, ValueError) as exc:  # > /dev/full, a closed stream: as the CLI says it
            reason = getattr(exc, "strerror", None) or str(exc)
            sys.stderr.write(f"paramcount: error: cannot write the output: {reason}\n")
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)  # nothing left for the interpreter's final flush to fail on
            except OSError:
                pass
            return 2
        return 0
    from paramcount.cli import main

    code = main(argv)
    parsed = _parse(argv)
    plugins = os.environ.get("PARAMCOUNT_PLUGINS", "").strip()
    if code == 0 and parsed is not None and not plugins and cache.enabled():
        from paramcount import registry

        # Compiling is an optimisation: never fail a count over it.
        with contextlib.suppress(Exception):
            store(registry.get(parsed[0]))
    return code
