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
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from paramcount.cli.checks import cmd_prove, cmd_report, cmd_verify
from paramcount.cli.common import (
    Once,
    Parser,
    Terminated,
    UsageError,
    emit_json,
    no_cache,
    non_negative_int,
    parse_assignments,
    preset_of,
    set_verbose,
    sigterm_raises,
)
from paramcount.cli.count import cmd_count
from paramcount.cli.derive import count_option
from paramcount.core.errors import ParamcountError

__all__ = ["build_parser", "entrypoint", "main"]

if TYPE_CHECKING:
    from paramcount.model import registry


def _load() -> None:
    """Bind ``registry`` and ``progress`` here, inside main() (see the module's docstring: the
    registry imports SymPy)."""
    global progress, registry
    from paramcount.model import registry
    from paramcount.runtime import progress


# --- commands -----------------------------------------------------------------------------------
def cmd_list(args) -> int:
    from paramcount.output.commands import ListRow, list_text

    archs = registry.architectures()
    # all of them before any is printed: a bad preset file fails with no output
    rows = [ListRow(aid, archs[aid].title, len(archs[aid].presets_table()),
                    tuple(archs[aid].checked_by), archs[aid].mapping is not None)
            for aid in sorted(archs)]
    print(list_text(rows))
    return 0


def cmd_formula(args) -> int:
    from paramcount.output import render

    arch = registry.get(args.arch)
    if args.json:
        emit_json(render.formula_json(arch))
    elif args.latex:
        print(render.formula_latex(arch))
    else:
        print(render.formula_text(arch))
    return 0


def cmd_solve(args) -> int:
    from paramcount.analyze import solve_moe
    from paramcount.output import solutions

    arch = registry.get(args.arch)
    given: dict[str, int] = {}
    if args.preset:
        given.update(preset_of(arch, args.preset, "solve").hparams)
    if args.set:
        extra = parse_assignments(args.set)
        if args.unknown in extra:
            raise UsageError(f"--for {args.unknown} and --set {args.unknown}={extra[args.unknown]}"
                             f" both given: solve finds {args.unknown}; drop one")
        given.update(extra)
    if (args.target is None) == (args.memory is None):
        raise UsageError("solve needs one of --target N (parameters) or --memory BYTES")
    if args.memory is not None:
        return _solve_memory(args, arch, given)
    if args.context is not None or args.batch is not None or args.dtype is not None:
        raise UsageError("--context, --batch and --dtype go with --memory")
    sol = solve_moe.solve_any(arch, args.target, args.unknown, given, args.active, args.also)
    if args.json:
        emit_json(solutions.solution_json(sol))
    else:
        print(solutions.solution_text(sol))
    return 0


def _solve_memory(args, arch, given) -> int:
    """``solve --memory BYTES --for T|B``: the longest context, or the largest batch, that fits."""
    from paramcount.analyze.prove.record import PROJECT_RECORD
    from paramcount.analyze.solve_memory import parse_memory, solve_memory
    from paramcount.model import dtypes
    from paramcount.output import solutions

    if args.active is not None or args.also is not None:
        raise UsageError("--active and --and go with --target, not --memory")
    fixed = {"T": (args.batch, args.context), "B": (args.context, args.batch)}
    if args.unknown not in fixed:
        raise UsageError(f"solve --memory finds T (the context) or B (the batch), not {args.unknown!r}")
    other, clash = fixed[args.unknown]
    if clash is not None:
        raise UsageError(f"--for {args.unknown} with {'--context' if args.unknown == 'T' else '--batch'}: "
                         f"solve finds {args.unknown}; drop one")
    if other is None and args.unknown == "B":
        raise UsageError("solve --memory --for B needs --context T")
    sol = solve_memory(arch, arch.resolve(given), parse_memory(args.memory), args.unknown,
                       other or 1, dtypes.get(args.dtype or "bf16"),
                       PROJECT_RECORD if PROJECT_RECORD.is_file() else None,
                       dict(preset_of(arch, args.preset, "solve").config) if args.preset else None)
    if args.json:
        emit_json(solutions.memory_json(sol))
    else:
        print(solutions.memory_text(sol))
    return 0


# --- parser -------------------------------------------------------------------------------------
def _jobs(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number of processes, got {text!r}")
    return n


def _jobs_option(s) -> None:
    s.add_argument("-j", "--jobs", type=_jobs, default=None, metavar="N",
                   help="worker processes (default: one per core; 1: in this process)")


def _record_options(s, default: str) -> None:
    """``--proofs PATH`` or ``--no-record``: which recorded proof outcomes are reused."""
    g = s.add_mutually_exclusive_group()
    g.add_argument("--proofs", metavar="PATH", default=None, action=Once,
                   help=f"the proof record whose outcomes are reused while their key matches "
                        f"(default: {default})")
    g.add_argument("--no-record", action="store_true",
                   help="reuse no recorded outcome: prove every architecture here (tens of "
                        "minutes with an empty cache)")


def _version() -> str:
    from paramcount import __version__

    return __version__


def build_parser() -> argparse.ArgumentParser:
    from paramcount.analyze.budget import DEFAULT_LIMIT, LIMIT_ENV
    from paramcount.core import numcore
    from paramcount.model.registry import PLUGINS_ENV

    p = Parser(prog="paramcount",
                description="Exact, symbolic parameter counts for neural language models, "
                            "verified against Keras / KerasHub and PyTorch / HF transformers. "
                            "list, formula, count and solve need SymPy alone; verify and prove "
                            "need pip install 'paramcount[keras]' (and 'paramcount[transformers]' "
                            "for --framework transformers), report 'paramcount[report]'.")
    plugin_help = ("a module (or .py file) registering architectures of your own; repeatable. "
                   f"Also read from ${PLUGINS_ENV} (comma-separated)")
    p.add_argument("--plugin", metavar="MODULE", action="append", default=[], help=plugin_help)
    p.add_argument("--version", action="version", version=f"paramcount {_version()}")
    verbose_help = "say what the on-disk cache does (where it is, why nothing is cached)"
    p.add_argument("--verbose", action="store_true", help=verbose_help)
    no_cache_help = ("compute afresh: neither read nor write the on-disk cache (its digests "
                     "catch damage, not a writer; as PARAMCOUNT_CACHE=0)")
    p.add_argument("--no-cache", action="store_true", help=no_cache_help)
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser,
                           metavar="{list,formula,count,verify,prove,solve,derive,report}")

    s = sub.add_parser("list", help="architectures, one line each")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("formula", help="an architecture's formula, its symbols and their meanings")
    s.add_argument("arch", help="architecture id (paramcount list shows them)")
    fmt = s.add_mutually_exclusive_group()
    fmt.add_argument("--latex", action="store_true", help="print the total as LaTeX")
    fmt.add_argument("--json", action="store_true", help="print formula, symbols, components")
    s.set_defaults(func=cmd_formula)

    def hp_options(s):
        numcore.hp_options(s, Once)

    def config_options(s, frameworks, default, default_help):
        numcore.config_options(s, Once, frameworks, default, default_help)

    s = sub.add_parser("count", help="evaluate the formula (never imports TensorFlow)")
    numcore.add_count_arguments(s, Once)  # the compiled count reads count's options from it too
    count_option(s)  # --derived
    s.set_defaults(func=cmd_count)

    s = sub.add_parser("verify", help="formula against the Keras model; exit 1 on any mismatch")
    s.add_argument("arch", nargs="*", help="architectures (default: all)")
    hp_options(s)
    config_options(s, ("keras", "transformers", "all"), "keras",
                   "checked (default keras; transformers needs "
                   "pip install 'paramcount[transformers]')")
    s.add_argument("--all", action="store_true",
                   help="every architecture, every preset and example set")
    s.add_argument("--quiet", action="store_true", help="no progress on stderr")
    _jobs_option(s)
    s.add_argument("--max-build", metavar="N", type=non_negative_int, default=None,
                   help="refuse a Keras build of more than N layer instances (estimated from the "
                        f"formula before building; default ${LIMIT_ENV} or {DEFAULT_LIMIT:,}; "
                        "0: no limit)")
    s.set_defaults(func=cmd_verify)

    s = sub.add_parser("prove", help="prove formula = Keras as polynomials in every free "
                                     "hyperparameter (every option value); exit 1 unless proven")
    s.add_argument("arch", nargs="*", help="architectures (default: all)")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.add_argument("--quiet", action="store_true", help="no progress on stderr")
    s.add_argument("--framework", choices=("keras", "transformers"), default="keras",
                   help="the reference proven against (default keras; transformers proves the "
                        "formula with its declared deltas)")
    _record_options(s, "the project's reports/proofs.json where paramcount runs from a checkout")
    _jobs_option(s)
    s.set_defaults(func=cmd_prove)

    s = sub.add_parser("solve", help="the valid value of one hyperparameter whose total is nearest "
                                     "a budget (formula only)")
    s.add_argument("arch", help="architecture id (paramcount list shows them)")
    s.add_argument("--target", metavar="N", action=Once,
                   help="parameters: 7e9, 7B, 350M, ... (or --memory)")
    s.add_argument("--memory", metavar="BYTES", action=Once,
                   help="a memory budget (80GB, 80GiB, ...): the largest --for T (context) or B "
                        "(batch) whose weights and KV cache fit it")
    s.add_argument("--context", metavar="T", type=numcore.positive_int, action=Once,
                   help="with --memory --for B: the context")
    s.add_argument("--batch", metavar="B", type=numcore.positive_int, action=Once,
                   help="with --memory --for T: the batch (default 1)")
    s.add_argument("--dtype", metavar="D", action=Once,
                   help="with --memory: the weights' dtype (default bf16)")
    s.add_argument("--for", dest="unknown", required=True, metavar="SYM", action=Once,
                   help="the hyperparameter to solve for")
    s.add_argument("--active", metavar="N", action=Once, help="MoE: the active budget too (--and)")
    s.add_argument("--and", dest="also", metavar="SYM", action=Once, help="solved for --active")
    hp_options(s)
    s.set_defaults(func=cmd_solve)

    from paramcount.cli.derive import add_parser as add_derive

    add_derive(sub)
    s = sub.add_parser("report", help="write the markdown conformance report")
    s.add_argument("--output", metavar="PATH", default="reports/conformance.md", action=Once,
                   help="the report; its figures and proof record go beside it "
                        "(default: %(default)s)")
    _record_options(s, "the project's reports/proofs.json, else the one beside --output; "
                       "with none, the report is refused before any work")
    s.add_argument("--quiet", action="store_true",
                   help="no progress on stderr and no closing 'wrote PATH' line")
    s.add_argument("--sweep", action="store_true", help="derive every transformers LM type "
                   "afresh (hours cold; default: the recorded sweep, reports/derived.json)")
    _jobs_option(s)
    s.set_defaults(func=cmd_report)
    for command in sub.choices.values():  # --plugin also after the command name
        command.add_argument("--plugin", metavar="MODULE", action="append", dest="plugin_after",
                             default=argparse.SUPPRESS, help=plugin_help)
        command.add_argument("--verbose", action="store_true", dest="verbose_after",
                             default=argparse.SUPPRESS, help=verbose_help)
        command.add_argument("--no-cache", action="store_true", dest="no_cache_after",
                             default=argparse.SUPPRESS, help=no_cache_help)
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


def _run(argv: Sequence[str] | None, fast: bool) -> int:
    command = sys.argv[1:] if argv is None else list(argv)
    if fast:  # the command itself: the compiled count where it answers, SymPy never imported
        from paramcount.cli import fast as fast_path
        if (out := fast_path.try_count(command)) is not None:
            sys.stdout.write(out)
            sys.stdout.flush()
            return 0
    _load()
    parser = build_parser()
    args = parser.parse_args(argv)
    with no_cache(args.no_cache or getattr(args, "no_cache_after", False)):
        return _command(args, command, fast)


def _command(args, command: list[str], fast: bool) -> int:
    set_verbose(args)
    # TensorFlow's start-up lines (oneDNN, CPU features, CUDA) are noise to a user of this tool,
    # whoever imports it (the verifier, or a plugin that imports Keras at its top); a user's own
    # setting wins.
    if not os.environ.get("TF_CPP_MIN_LOG_LEVEL"):
        os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    from paramcount.runtime import isolate

    isolate.install_guard()  # TensorFlow and torch never in one process (torch: in workers)
    registry.load_plugins([*args.plugin, *getattr(args, "plugin_after", [])])
    if getattr(args, "all", False) and (args.arch or args.preset or args.set
                                        or getattr(args, "config", None)):
        raise UsageError("--all takes no architectures, --preset, --config or --set")
    code = args.func(args)
    sys.stdout.flush()
    if fast and code == 0:
        from paramcount.cli import fast as fast_path

        fast_path.remember(command)  # compiled for the next count (an optimisation, never an error)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """The ``paramcount`` command (the console script's entry point): ``main()`` reads sys.argv and
    takes the compiled count (:mod:`paramcount.cli.fast`) where it answers; ``main(argv)`` from
    Python runs the full command line alone (the SymPy path the compiled count is held to)."""
    import time

    from paramcount.cli import common

    common.STARTED = time.monotonic()  # (a derivation's budget counts from here)
    real = sys.stdout
    try:
        if real is None:  # started with stdout closed (`paramcount list >&-`)
            sys.stderr.write("paramcount: error: standard output is closed\n")
            return 2
        sys.stdout = _Stdout(real)
        with sigterm_raises():
            return _run(argv, argv is None)
    except ParamcountError as exc:
        if isinstance(exc, OutputError):
            _silence_stdout()
        sys.stderr.write(f"paramcount: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("paramcount: interrupted\n")
        return 130
    except Terminated:
        sys.stderr.write("paramcount: terminated\n")
        return Terminated.status
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
        code = main()
    except KeyboardInterrupt:  # between main's handlers and here
        code = 130
    sys.exit(code)
