"""The ``paramcount`` command line: thin over the library.

``list``, ``formula``, ``count`` and ``solve`` read formulas only and never import TensorFlow;
``verify``, ``prove`` and ``report`` import it lazily. Bad input ends with one line on stderr and
exit status 2.

Importing this module is cheap (argparse and the exceptions): SymPy, the registry and everything
else load inside :func:`main`, so a Ctrl-C at any moment after start-up is one line and exit
status 130, never a traceback from an import.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from paramcount.errors import ParamcountError

__all__ = ["build_parser", "entrypoint", "main"]


class UsageError(ParamcountError):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (and exit 2), not usage text plus a line."""

    def error(self, message: str):  # type: ignore[override,unused-ignore]
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _emit_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, indent=2) + "\n")


if TYPE_CHECKING:
    from paramcount import progress, registry


def _load() -> None:
    """Bind ``registry`` and ``progress`` here, inside main() (see the module's docstring: the
    registry imports SymPy)."""
    global progress, registry
    from paramcount import progress, registry


def parse_assignments(items):
    from paramcount.hparams import parse_assignments as parse

    return parse(items)


def _hparams(arch, args) -> tuple[dict[str, int], str | None]:
    """Preset values, then --set overrides on top; resolved and validated."""
    given: dict[str, int] = {}
    name = None
    if getattr(args, "preset", None):
        preset = arch.preset(args.preset)
        given.update(preset.hparams)
        name = preset.name
    if getattr(args, "set", None):
        given.update(parse_assignments(args.set))
        name = f"{name}+custom" if name else "custom"
    elif name is not None:
        # The preset's own values: a bad one is the preset file's fault, so say which file.
        try:
            return arch.resolve(given), name
        except ParamcountError as exc:
            raise type(exc)(f"preset {name!r} of {arch.id} ({_preset_file(arch)}): {exc}") from None
    return arch.resolve(given), name


def _preset_file(arch) -> str:
    files = arch.presets if isinstance(arch.presets, tuple) else (arch.presets,)
    names = [str(f) if str(f).endswith(".toml") else f"presets/{f}.toml" for f in files if f]
    return ", ".join(names) or "examples in its module"


# --- commands -----------------------------------------------------------------------------------
def cmd_list(args) -> int:
    archs = registry.architectures()
    width = max(len(a) for a in archs)
    lines = []  # all of them before any is printed: a bad preset file fails with no output
    for aid in sorted(archs):
        arch = archs[aid]
        n = len(arch.presets_table())
        presets = f"  [{n} preset{'s' if n != 1 else ''}]" if n else ""
        lines.append(f"{aid:<{width}}  {arch.title}{presets}")
    print("\n".join(lines))
    return 0


def cmd_formula(args) -> int:
    from paramcount import render

    arch = registry.get(args.arch)
    if args.json:
        _emit_json(render.formula_json(arch))
    elif args.latex:
        print(render.formula_latex(arch))
    else:
        print(render.formula_text(arch))
    return 0


def cmd_count(args) -> int:
    from paramcount import render

    arch = registry.get(args.arch)
    if not args.preset and not args.set:
        raise UsageError("count needs --preset NAME or --set SYM=VALUE ...; presets of "
                         f"{arch.id}: {', '.join(p.name for p in arch.hparam_sets()) or 'none'}")
    hp, name = _hparams(arch, args)
    if args.json:
        _emit_json(render.count_json(arch, hp, name))
    else:
        print(render.count_text(arch, hp, name))
    return 0


class ErrorRow:
    """A verification that could not run: the reference builder raised (a plugin's builder, its
    missing module). Reported as a row of its own; ``verify`` carries on with the others."""

    ok = False
    status = "error"

    def __init__(self, arch: str, name: str, hparams, exc: BaseException) -> None:
        self.arch, self.name, self.hparams = arch, name, dict(hparams)
        self.error = f"{type(exc).__name__}: {exc}".strip().splitlines()[0][:300]

    def to_json(self) -> dict:
        return {"arch": self.arch, "preset": self.name, "hparams": self.hparams,
                "status": "error", "error": self.error}


def _verify_one(verify, arch, hp, name, preset, max_build, bar):
    """One verification; a build that raises becomes an ErrorRow (bad input was refused
    before any build started, so anything raised here is the builder's)."""
    from paramcount import budget

    size = budget.build_size(arch, hp)
    if size > budget.NOTICE_AT and bar is not None:
        bar.note(f"{arch.id} [{name}]: a large build ({size:,} layer instances), this may take "
                 "a while")
    try:
        return verify(arch, hp, preset=preset, name=name)
    except KeyboardInterrupt:
        raise
    except Exception as exc:
        return ErrorRow(arch.id, name, hp, exc)


def _keras_hub_note(r) -> str:
    """The third figure of the three-way check, and whether a disagreement is explained."""
    if getattr(r, "keras_hub_params", None) is None:
        return ""
    if r.metadata_status == "agrees":
        return f"KerasHub published {r.keras_hub_params:,} ({r.keras_hub_preset}): agrees"
    built = r.keras + r.keras_nontrainable
    why = _differs_reason(r)
    return (f"KerasHub published {r.keras_hub_params:,} ({r.keras_hub_preset}): differs from its "
            f"own build by {r.keras_hub_params - built:+,}; "
            + (f"explained in the preset file: {why}" if why else "UNEXPLAINED"))


def _differs_reason(r) -> str | None:
    try:
        return registry.get(r.arch).preset(r.name).keras_hub_differs
    except ParamcountError:
        return None


def cmd_verify(args) -> int:
    from paramcount import budget
    from paramcount.verify import verify

    ids = args.arch or sorted(registry.architectures())
    archs = [registry.get(a) for a in ids]  # unknown ids fail before anything is built
    jobs = []
    for arch in archs:
        if args.preset or args.set:
            hp, name = _hparams(arch, args)
            # The preset as published (no --set on top): KerasHub's figure is the third check.
            jobs.append((arch, hp, name, None if args.set else args.preset))
        else:
            jobs += [(arch, hs.hparams, hs.name, hs.name) for hs in arch.hparam_sets()]
    for arch, hp, name, _ in jobs:  # refuse a runaway build before any build starts
        budget.check(arch, hp, name or "custom", args.max_build)
    # TensorFlow imported with its C++ start-up notices silenced (they ignore
    # TF_CPP_MIN_LOG_LEVEL), before a plugin's builder imports it loudly.
    import reference_models  # noqa: F401
    results = []
    with progress.Bar(len(jobs), quiet=args.quiet) as bar:
        for arch, hp, name, preset in jobs:
            bar.advance(f"{arch.id} {name}")
            results.append(_verify_one(verify, arch, hp, name, preset, args.max_build, bar))
    if args.json:
        _emit_json([with_residuals(r) for r in results])
    else:
        for r in results:
            if isinstance(r, ErrorRow):
                print(f"{'ERROR':<8} {r.arch:<24} {r.name:<28} {r.error}")
                continue
            print(f"{r.status:<8} {r.arch:<24} {r.name:<28} formula {r.formula:>16,}  "
                  f"Keras {r.keras:>16,}  diff {r.difference:+,}")
            for m in r.mismatches():
                print(f"         - {m}")
            for line in residual_lines(r):
                print(f"         ~ residual {line}")
            note = _keras_hub_note(r)
            if note:
                print(f"         = {note}")
        errors = sum(isinstance(r, ErrorRow) for r in results)
        bad = sum(not r.ok for r in results) - errors
        print(f"{len(results) - bad - errors} match, {bad} mismatch"
              + (f", {errors} error" if errors else ""))
    return 0 if all(r.ok for r in results) else 1


def residual_lines(r) -> list[str]:
    """For a mismatch: Keras − formula per component, as exact polynomials (paramcount.prove)."""
    if r.ok:
        return []
    from paramcount import prove

    try:
        return [res.text() for res in prove.explain_hparams(r.arch, r.hparams)]
    except ParamcountError as exc:
        return [f"not recovered: {exc}"]


def with_residuals(r) -> dict:
    out = r.to_json()
    if isinstance(r, ErrorRow):
        return out
    if r.keras_hub_params is not None:
        out["keras_hub_status"] = r.metadata_status
        out["keras_hub_differs_explained"] = (_differs_reason(r)
                                              if r.metadata_status == "differs" else None)
    if not r.ok:
        from paramcount import prove

        try:
            out["residuals"] = [x.to_json() for x in prove.explain_hparams(r.arch, r.hparams)]
        except ParamcountError as exc:
            out["residuals"] = {"error": str(exc)}
    return out


def cmd_prove(args) -> int:
    from paramcount import prove

    ids = args.arch or sorted(registry.architectures())
    for a in ids:
        registry.get(a)  # unknown ids fail before anything is built
    proofs = []
    with progress.Bar(len(ids), quiet=args.quiet) as bar:
        for aid in ids:
            bar.advance(f"{aid}: proving")
            p = prove.prove(aid)
            proofs.append(p)
            if not args.json:
                bar.clear()  # the proof's lines, then the bar again at the next one
                print(prove.proof_text(p), flush=True)
    if args.json:
        _emit_json([p.to_json() for p in proofs])
    else:
        states = [p.status for p in proofs]
        print(f"{states.count('proven')} proven, {states.count('refuted')} refuted, "
              f"{states.count('error')} error; {sum(p.builds for p in proofs)} Keras builds, "
              f"{sum(p.seconds for p in proofs):.1f} s")
    return 0 if all(p.status == "proven" for p in proofs) else 1


def cmd_solve(args) -> int:
    from paramcount import solve

    arch = registry.get(args.arch)
    given: dict[str, int] = {}
    if args.preset:
        given.update(arch.preset(args.preset).hparams)
    if args.set:
        extra = parse_assignments(args.set)
        if args.unknown in extra:
            raise UsageError(f"--for {args.unknown} and --set {args.unknown}={extra[args.unknown]}"
                             f" both given: solve finds {args.unknown}; drop one")
        given.update(extra)
    sol = solve.solve(arch, args.target, args.unknown, given)
    if args.json:
        _emit_json(solve.solution_json(sol))
    else:
        print(solve.solution_text(sol))
    return 0


def cmd_report(args) -> int:
    from pathlib import Path

    from paramcount import report
    from paramcount._io import check_output

    # Check the destination before the (long) verification run (the true reason, exit 2), and
    # again when writing.
    target = check_output(Path(args.output))
    try:
        with progress.Bar(report.count_jobs(), quiet=args.quiet) as bar:
            results = report.verify_all(progress=bar)
        path = report.write_report(target, results=results)
    except OSError as exc:
        raise ParamcountError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    if not args.quiet:
        print(f"wrote {path}")
    return 0


# --- parser -------------------------------------------------------------------------------------
def _count_arg(text: str) -> int:
    from paramcount.hparams import parse_int_literal

    value = parse_int_literal(text)
    if value is None or value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def _version() -> str:
    from paramcount import __version__

    return __version__


def build_parser() -> argparse.ArgumentParser:
    from paramcount.budget import DEFAULT_LIMIT, LIMIT_ENV
    from paramcount.hparams import INTEGER_RULE
    from paramcount.registry import PLUGINS_ENV

    p = _Parser(prog="paramcount",
                description="Exact, symbolic parameter counts for neural language models, "
                            "verified against Keras / KerasHub.")
    plugin_help = ("a module (or .py file) registering architectures of your own; repeatable. "
                   f"Also read from ${PLUGINS_ENV} (comma-separated)")
    p.add_argument("--plugin", metavar="MODULE", action="append", default=[], help=plugin_help)
    p.add_argument("--version", action="version", version=f"paramcount {_version()}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser,
                           metavar="{list,formula,count,verify,prove,solve,report}")

    s = sub.add_parser("list", help="architectures, one line each")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("formula", help="an architecture's formula, its symbols and their meanings")
    s.add_argument("arch")
    fmt = s.add_mutually_exclusive_group()
    fmt.add_argument("--latex", action="store_true", help="print the total as LaTeX")
    fmt.add_argument("--json", action="store_true", help="print formula, symbols, components")
    s.set_defaults(func=cmd_formula)

    def hp_options(s):
        s.add_argument("--preset", metavar="NAME", help="a published preset or example set")
        s.add_argument("--set", metavar="SYM=VALUE", nargs="+", action="extend",
                       help="hyperparameter values (on top of --preset, if given), each symbol "
                            f"once; {INTEGER_RULE}")
        s.add_argument("--json", action="store_true", help="machine-readable output")

    s = sub.add_parser("count", help="evaluate the formula (never imports TensorFlow)")
    s.add_argument("arch")
    hp_options(s)
    s.set_defaults(func=cmd_count)

    s = sub.add_parser("verify", help="formula against the Keras model; exit 1 on any mismatch")
    s.add_argument("arch", nargs="*", help="architectures (default: all)")
    hp_options(s)
    s.add_argument("--all", action="store_true",
                   help="every architecture, every preset and example set")
    s.add_argument("--quiet", action="store_true", help="no progress on stderr")
    s.add_argument("--max-build", metavar="N", type=_count_arg, default=None,
                   help="refuse a Keras build of more than N layer instances (estimated from the "
                        f"formula before building; default ${LIMIT_ENV} or {DEFAULT_LIMIT:,}; "
                        "0: no limit)")
    s.set_defaults(func=cmd_verify)

    s = sub.add_parser("prove", help="prove formula = Keras as polynomials in every free "
                                     "hyperparameter (every option value); exit 1 unless proven")
    s.add_argument("arch", nargs="*", help="architectures (default: all)")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.add_argument("--quiet", action="store_true", help="no progress on stderr")
    s.set_defaults(func=cmd_prove)

    s = sub.add_parser("solve", help="the valid value of one hyperparameter whose total is nearest "
                                     "a budget (formula only)")
    s.add_argument("arch")
    s.add_argument("--target", required=True, metavar="N", help="parameters: 7e9, 7B, 350M, ...")
    s.add_argument("--for", dest="unknown", required=True, metavar="SYM",
                   help="the hyperparameter to solve for")
    hp_options(s)
    s.set_defaults(func=cmd_solve)

    s = sub.add_parser("report", help="write the markdown conformance report")
    s.add_argument("--output", metavar="PATH", default="reports/conformance.md")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_report)
    for command in sub.choices.values():  # --plugin also after the command name
        command.add_argument("--plugin", metavar="MODULE", action="append", dest="plugin_after",
                             default=argparse.SUPPRESS, help=plugin_help)
    return p


INTERNAL_ERROR = 70  # EX_SOFTWARE: neither bad input (2) nor a mismatch (1)


class OutputError(ParamcountError):
    pass


class _Stdout:
    """stdout, where a failed write (``> /dev/full``, a closed descriptor) is one line of error,
    exit status 2, instead of an OSError traceback or output silently lost."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def _guard(self, fn, *a):
        try:
            return fn(*a)
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:  # ValueError: the stream was closed
            reason = getattr(exc, "strerror", None) or str(exc)
            raise OutputError(f"cannot write the output: {reason}") from None

    def write(self, text: str) -> int:
        return self._guard(self._stream.write, text)

    def flush(self) -> None:
        self._guard(self._stream.flush)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _silence_stdout() -> None:
    """After a failed or broken stdout, point fd 1 at /dev/null so that the interpreter's final
    flush of what is still buffered adds no "Exception ignored" lines."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass


def _run(argv: Sequence[str] | None) -> int:
    _load()
    parser = build_parser()
    args = parser.parse_args(argv)
    # TensorFlow's start-up lines (oneDNN, CPU features, CUDA) are noise to a user of this tool,
    # whoever imports it (the verifier, or a plugin that imports Keras at its top); a user's own
    # setting wins.
    if not os.environ.get("TF_CPP_MIN_LOG_LEVEL"):
        os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    registry.load_plugins([*args.plugin, *getattr(args, "plugin_after", [])])
    if getattr(args, "all", False) and (args.arch or args.preset or args.set):
        raise UsageError("--all takes no architectures, --preset or --set")
    code = args.func(args)
    sys.stdout.flush()
    return code


def main(argv: Sequence[str] | None = None) -> int:
    real = sys.stdout
    try:
        if real is None:  # started with stdout closed (`paramcount list >&-`)
            sys.stderr.write("paramcount: error: standard output is closed\n")
            return 2
        sys.stdout = _Stdout(real)
        return _run(argv)
    except ParamcountError as exc:
        if isinstance(exc, OutputError):
            _silence_stdout()
        sys.stderr.write(f"paramcount: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("paramcount: interrupted\n")
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except Exception as exc:
        if os.environ.get("PARAMCOUNT_DEBUG"):
            raise
        text = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        sys.stderr.write(f"paramcount: internal error: {text} (a bug: please report it; "
                         "PARAMCOUNT_DEBUG=1 shows the traceback)\n")
        return INTERNAL_ERROR
    finally:
        if real is not None:
            sys.stdout = real


def entrypoint() -> None:
    try:
        code = main(sys.argv[1:])
    except KeyboardInterrupt:  # between main's handlers and here
        code = 130
    sys.exit(code)
