"""The ``paramcount`` command line: thin over the library.

``list``, ``formula``, ``count`` and ``solve`` read formulas only and never import TensorFlow;
``verify``, ``prove`` and ``report`` import it lazily. Bad input ends with one line on stderr and
exit status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from paramcount import progress, registry
from paramcount.errors import ParamcountError
from paramcount.hparams import parse_assignments

__all__ = ["main", "entrypoint", "build_parser"]


class UsageError(ParamcountError):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (and exit 2), not usage text plus a line."""

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _emit_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, indent=2) + "\n")


def _reading(args, arch_id: str | None):
    """``--config PATH``: what the file reads as (None without the option)."""
    if not getattr(args, "config", None):
        return None
    if getattr(args, "preset", None):
        raise UsageError("--config and --preset are alternatives; give one")
    from paramcount import configs

    return configs.read_config(args.config, arch_id)


def _hparams(arch, args, reading=None) -> tuple[dict[str, int], str | None]:
    """Preset (or config file) values, then --set overrides on top; resolved and validated."""
    given: dict[str, int] = {}
    name = None
    if reading is not None:
        given.update(reading.hparams)
        name = args.config
    if getattr(args, "preset", None):
        preset = arch.preset(args.preset)
        given.update(preset.hparams)
        name = preset.name
    if getattr(args, "set", None):
        given.update(parse_assignments(args.set))
        name = f"{name}+custom" if name else "custom"
    if reading is not None:
        from paramcount import configs

        configs.check_missing(reading, given)
    return arch.resolve(given), name


def _reading_lines(reading) -> list[str]:
    hp = ", ".join(f"{k}={v}" for k, v in reading.hparams.items())
    lines = [f"read {reading.where} ({reading.source}, {reading.cls}) as {reading.arch}: {hp}"]
    if reading.ignored:
        lines.append(f"keys not read (declared to change no count, or unknown to the "
                     f"{reading.arch} table): {', '.join(reading.ignored)}")
    return lines


# --- commands -----------------------------------------------------------------------------------
def cmd_list(args) -> int:
    archs = registry.architectures()
    width = max(len(a) for a in archs)
    for aid in sorted(archs):
        arch = archs[aid]
        n = len(arch.presets_table())
        presets = f"  [{n} preset{'s' if n != 1 else ''}]" if n else ""
        print(f"{aid:<{width}}  {arch.title}{presets}")
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

    reading = _reading(args, args.arch)
    if reading is None and not args.arch:
        raise UsageError("the following arguments are required: arch (or --config PATH)")
    arch = registry.get(reading.arch if reading else args.arch)
    if not args.preset and not args.set and reading is None:
        raise UsageError("count needs --preset NAME or --set SYM=VALUE ...; presets of "
                         f"{arch.id}: {', '.join(p.name for p in arch.hparam_sets()) or 'none'}")
    hp, name = _hparams(arch, args, reading)
    framework = args.framework
    if framework is None:  # a transformers config means the model transformers builds from it
        hf_config = reading is not None and reading.source == "transformers config"
        framework = "transformers" if hf_config and arch.transformers is not None else "keras"
    if framework != "keras":
        from paramcount import frameworks

        shown = frameworks.for_framework(arch, framework)
        shown.resolve(hp)  # transformers' own constraints (an even rotary width)
    else:
        shown = arch
    if args.json:
        out = render.count_json(shown, hp, name)
        if reading is not None:
            out["config"] = {"file": reading.where, "source": reading.source,
                             "class": reading.cls, "read": reading.hparams,
                             "ignored": list(reading.ignored)}
        if framework != "keras":
            out["framework"] = framework
            out["deltas"] = [{"path": d.path, "keras": k, framework: h, "reason": d.reason}
                             for d, k, h in frameworks.delta_rows(arch, hp)]
        _emit_json(out)
    else:
        if reading is not None:
            print("\n".join(_reading_lines(reading)))
        if framework != "keras":
            print(f"counted as transformers builds it: {arch.mapping.hf_class(arch.id)} "
                  "(the formula with its declared deltas; torch not imported)")
        print(render.count_text(shown, hp, name))
        if framework != "keras":
            print("\n".join(frameworks.delta_lines(arch, hp)))
    return 0


def cmd_verify(args) -> int:
    from paramcount.verify import verify

    if len(args.arch) > 1 and getattr(args, "config", None):
        raise UsageError("--config reads one architecture; name at most one")
    reading = _reading(args, args.arch[0] if args.arch else None)
    ids = ([reading.arch] if reading else args.arch) or sorted(registry.architectures())
    archs = [registry.get(a) for a in ids]  # unknown ids fail before anything is built
    framework = getattr(args, "framework", "keras")
    fws = ["keras", "transformers"] if framework == "all" else [framework]
    if "transformers" in fws:
        from paramcount.frameworks import for_framework
        from paramcount.verify import require_transformers

        require_transformers()  # one line on how to install it, before anything is built
        # named with --framework transformers: say which have no reference yet; with "all",
        # each architecture is verified on every framework it has (Keras at least)
        if (args.arch or reading) and framework == "transformers":
            for arch in archs:
                for_framework(arch, "transformers")  # says which have no reference yet
    jobs = []
    for arch in archs:
        if args.preset or args.set or reading:
            hp, name = _hparams(arch, args, reading)
            jobs.append((arch, hp, name))
        else:
            jobs += [(arch, hs.hparams, hs.name) for hs in arch.hparam_sets()]
    if reading is not None and not args.json:
        print("\n".join(_reading_lines(reading)))
    jobs = [(arch, hp, name, fw) for arch, hp, name in jobs for fw in fws
            if fw == "keras" or arch.transformers is not None]
    results = []
    skipped: list[dict] = []
    for arch, hp, name, fw in progress.track(jobs, describe=lambda j: f"{j[0].id} {j[2]}",
                                             quiet=args.quiet):
        try:
            results.append(verify(arch, hp, name=name, framework=fw))
        except ParamcountError as exc:
            if fw == "keras" or type(exc).__name__ != "Refused":
                raise
            # transformers' own validation refuses a set Keras builds (an odd rotary width):
            # reported, not a mismatch of the formula.
            skipped.append({"arch": arch.id, "preset": name, "framework": fw,
                            "status": "skipped", "reason": str(exc)})
            if not args.json:
                print(f"{'skipped':<8} {arch.id:<24} {name:<28} {exc}")
    if args.json:
        _emit_json([with_residuals(r) for r in results] + skipped)
    else:
        for r in results:
            print(f"{r.status:<8} {r.arch:<24} {r.name:<28} formula {r.formula:>16,}  "
                  f"{r.reference_label} {r.keras:>16,}  diff {r.difference:+,}")
            for m in r.mismatches():
                print(f"         - {m}")
            for line in residual_lines(r):
                print(f"         ~ residual {line}")
        bad = sum(not r.ok for r in results)
        print(f"{len(results) - bad} match, {bad} mismatch")
    return 0 if all(r.ok for r in results) else 1


def residual_lines(r) -> list[str]:
    """For a mismatch: Keras − formula per component, as exact polynomials (paramcount.prove)."""
    if r.ok or r.framework != "keras":  # prove's oracle is the Keras build
        return []
    from paramcount import prove

    try:
        return [res.text() for res in prove.explain_hparams(r.arch, r.hparams)]
    except ParamcountError as exc:
        return [f"not recovered: {exc}"]


def with_residuals(r) -> dict:
    out = r.to_json()
    if not r.ok and r.framework == "keras":
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
    if args.framework == "transformers" and not args.arch:  # those that have a reference
        ids = [a for a in ids if registry.get(a).transformers is not None]
    proofs = []
    with progress.Bar(len(ids), quiet=args.quiet) as bar:
        for aid in ids:
            bar.advance(f"proving {aid}")
            if args.framework == "transformers":  # formula + deltas ≡ transformers
                from paramcount.verify import require_transformers

                p = prove.prove(require_transformers().proof_arch(registry.get(aid)))
            else:
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
              f"{states.count('inconclusive')} inconclusive, {states.count('error')} error; "
              f"{sum(p.builds for p in proofs)} Keras builds, "
              f"{sum(p.seconds for p in proofs):.1f} s")
    return 0 if all(p.status == "proven" for p in proofs) else 1


def cmd_solve(args) -> int:
    from paramcount import solve

    arch = registry.get(args.arch)
    given: dict[str, int] = {}
    if args.preset:
        given.update(arch.preset(args.preset).hparams)
    if args.set:
        given.update(parse_assignments(args.set))
    sol = solve.solve(arch, args.target, args.unknown, given)
    if args.json:
        _emit_json(solve.solution_json(sol))
    else:
        print(solve.solution_text(sol))
    return 0


def cmd_report(args) -> int:
    from pathlib import Path

    from paramcount import report

    # Check the destination before the (long) verification run, and again when writing.
    target = Path(args.output)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_dir() or not os.access(target.parent, os.W_OK):
            raise OSError("not a writable file path")
        with progress.Bar(report.count_jobs(), quiet=args.quiet) as bar:
            results = report.verify_all(progress=bar)
        path = report.write_report(target, results=results)
    except OSError as exc:
        raise ParamcountError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    if not args.quiet:
        print(f"wrote {path}")
    return 0


# --- parser -------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="paramcount",
                description="Exact, symbolic parameter counts for neural language models, "
                            "verified against Keras / KerasHub.")
    plugin_help = ("a module (or .py file) registering architectures of your own; repeatable. "
                   f"Also read from ${registry.PLUGINS_ENV} (comma-separated)")
    p.add_argument("--plugin", metavar="MODULE", action="append", default=[], help=plugin_help)
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
                       help="hyperparameter values (on top of --preset, if given)")
        s.add_argument("--json", action="store_true", help="machine-readable output")

    def config_options(s, frameworks, default, default_help):
        s.add_argument("--config", metavar="PATH",
                       help="a transformers config.json (or its folder) or a KerasHub preset "
                            "config.json, in place of --preset; picks the architecture")
        s.add_argument("--framework", choices=frameworks, default=default,
                       help=f"the framework whose build is {default_help}")

    s = sub.add_parser("count", help="evaluate the formula (never imports TensorFlow)")
    s.add_argument("arch", nargs="?", help="architecture (optional with --config)")
    hp_options(s)
    config_options(s, ("keras", "transformers"), None,
                   "counted, with its deltas from Keras (default: transformers for a "
                   "transformers --config, else keras; formula only, torch never imported)")
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
    s.set_defaults(func=cmd_verify)

    s = sub.add_parser("prove", help="prove formula = Keras as polynomials in every free "
                                     "hyperparameter (every option value); exit 1 unless proven")
    s.add_argument("arch", nargs="*", help="architectures (default: all)")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.add_argument("--quiet", action="store_true", help="no progress on stderr")
    s.add_argument("--framework", choices=("keras", "transformers"), default="keras",
                   help="the reference proven against (default keras; transformers proves the "
                        "formula with its declared deltas)")
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        registry.load_plugins([*args.plugin, *getattr(args, "plugin_after", [])])
        if getattr(args, "all", False) and (args.arch or args.preset or args.set
                                            or getattr(args, "config", None)):
            raise UsageError("--all takes no architectures, --preset, --config or --set")
        return args.func(args)
    except ParamcountError as exc:
        sys.stderr.write(f"paramcount: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("paramcount: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0


def entrypoint() -> None:
    sys.exit(main(sys.argv[1:]))
