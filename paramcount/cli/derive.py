"""``paramcount derive``, and ``count --config`` for a model type no hand-written architecture
covers: the formula derived from the transformers model's own builds. The work runs in a torch
worker (:func:`paramcount.runtime.isolate.call`) and returns a result
(:mod:`paramcount.output.derive_output`), which is printed here: torch and transformers are never
imported beside TensorFlow, whatever this process already holds."""

from __future__ import annotations

import time
from types import SimpleNamespace

from paramcount.cli import derive_costs
from paramcount.cli.common import UsageError, emit_json, non_negative_int, show
from paramcount.core.errors import InputFileError, ParamcountError

__all__ = ["add_parser", "cmd_derive", "count_derived", "derived_beside"]


def add_parser(sub) -> None:
    s = sub.add_parser("derive", help="derive a transformers model's formula from its builds "
                                      "and prove it for all hyperparameters")
    src = s.add_mutually_exclusive_group(required=True)
    src.add_argument("--model-type", metavar="NAME", help="a transformers model type, at its "
                                                          "config class's defaults")
    src.add_argument("--config", metavar="PATH", help="a transformers config.json (or folder)")
    src.add_argument("--builder", metavar="MODULE:FUNCTION",
                     help="your own builder: a function from a mapping of field values to a torch "
                          "nn.Module or a Keras model (built without allocation, in a process "
                          "without torch; MODULE a module name or a .py file); its base values from "
                          "--set and the function's `defaults` attribute")
    s.add_argument("--set", metavar="FIELD=VALUE", nargs="+", action="extend", default=[],
                   help="base values of a --builder's fields (integers; flags 0/1)")
    s.add_argument("--class", dest="cls", metavar="NAME",
                   help="the transformers class (default: architectures[0], else the causal-LM "
                        "class of the model type)")
    s.add_argument("--no-prove", action="store_true", help="derive only (checked at every "
                                                           "build, not proven)")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.add_argument("--max-build", type=non_negative_int, metavar="N", default=None,
                   help="refuse a build with more than N weights (layer instances; default "
                        "$PARAMCOUNT_MAX_BUILD, else 100000; 0: no limit)")
    budget_option(s)
    derive_costs.add_options(s)
    s.add_argument("--emit-plugin", metavar="FILE",
                   help="also write a plugin module registering the derived formula as "
                        "architecture <model_type>_derived (load it with --plugin FILE)")
    s.set_defaults(func=cmd_derive)


def count_option(s) -> None:
    s.add_argument("--derived", action="store_true",
                   help="also the formula derived from the transformers class's builds, beside "
                        "this one, and whether they agree (needs the transformers extra)")
    budget_option(s)


def budget_option(s) -> None:
    from paramcount.core.numcore import positive_int

    s.add_argument("--budget", metavar="SECONDS", type=positive_int, default=None,
                   help="a derivation stops with a refusal SECONDS after the command's start "
                        "(default $PARAMCOUNT_BUDGET, else 60; the proof that follows a "
                        "derivation is not bounded)")


def _deadline(args) -> tuple[float, int]:
    """(the deadline, the budget in seconds) of a derivation: ``--budget`` seconds (default
    60) from the command's start."""
    from paramcount.analyze.derive.deadline import seconds
    from paramcount.cli import common

    budget = seconds(getattr(args, "budget", None))
    return (common.STARTED or time.monotonic()) + budget, budget


def _refused(args, exc: ParamcountError) -> int:
    """A refusal of derive or of a derived count: its line on stderr, each of its reasons under
    ``--verbose``, and with ``--json`` an object on stdout holding all of them; exit status 2."""
    import sys

    reasons = list(getattr(exc, "reasons", ()) or ())
    sys.stderr.write(f"paramcount: error: {exc}\n")
    if getattr(args, "verbose", False) or getattr(args, "verbose_after", False):
        for r in reasons:
            sys.stderr.write(f"  {r}\n")
    if getattr(args, "json", False):
        from paramcount.analyze.derive.deadline import OverBudget

        emit_json({"refused": str(exc), "reasons": reasons or [str(exc)],
                   "over_budget": isinstance(exc, OverBudget),
                   "budget_seconds": _deadline(args)[1]})
    return 2


def _assignments(items: list[str]) -> dict[str, int]:
    """``--set FIELD=VALUE`` for a builder: its own field names (no paramcount symbols),
    integer values."""
    from paramcount.core.hparams import parse_int_literal

    out = {}
    for item in items:
        name, eq, raw = item.partition("=")
        value = parse_int_literal(raw.strip())
        if not eq or not name.strip().isidentifier() or value is None:
            raise UsageError(f"--set {item!r}: expected FIELD=INTEGER")
        out[name.strip()] = value
    return out


def _builder(spec: str):
    """``module:function`` or ``path/file.py:function`` → the function."""
    import importlib
    import importlib.util
    from pathlib import Path

    module, _, func = spec.rpartition(":")
    if not module or not func:
        raise UsageError(f"--builder {spec!r}: expected MODULE:FUNCTION")
    try:
        if module.endswith(".py"):
            loc = importlib.util.spec_from_file_location(Path(module).stem, module)
            if loc is None or loc.loader is None or not Path(module).is_file():
                raise ParamcountError(f"--builder: cannot read {module}")
            mod = importlib.util.module_from_spec(loc)
            loc.loader.exec_module(mod)
        else:
            mod = importlib.import_module(module)
    except ParamcountError:
        raise
    except Exception as exc:
        from paramcount.analyze.derive.probe import BuildsKeras

        BuildsKeras.check(exc)  # the module imports Keras at its top, in a torch worker
        raise ParamcountError(f"--builder: importing {module} raised {type(exc).__name__}: "
                              f"{exc}") from None
    fn = getattr(mod, func, None)
    if not callable(fn):
        raise ParamcountError(f"--builder: {module} has no function {func!r}")
    return fn


def _load(args, keras: bool = False):
    """(source, derivation, from the cache) for derive's arguments; ``keras``: the builder's
    model is a Keras model (built in this process, which holds no torch)."""
    from paramcount.analyze import derive

    if args.builder:
        fn = _builder(args.builder)
        defaults = {**dict(getattr(fn, "defaults", {}) or {}), **_assignments(args.set)}
        if not defaults:
            raise UsageError("--builder needs its fields' base values: --set FIELD=VALUE ... "
                             "or a `defaults` mapping on the function")
        return derive.derive_model(builder=fn, defaults=defaults, use_cache=False,
                                   max_build=args.max_build, keras=keras)
    if args.set:
        raise UsageError("--set applies to --builder; edit the config instead")
    config = None
    if args.config:
        from paramcount.analyze.configs import is_keras, load_json

        config, where = load_json(args.config)
        if is_keras(config):
            raise InputFileError(f"{where}: a KerasHub config; derive reads transformers configs")
    asked = args.cls or ((config or {}).get("architectures") or [None])[0]
    made = _derive_asked(asked, "", model_type=args.model_type, config=config, cls=args.cls,
                         max_build=args.max_build)
    _same_class(asked, made[1])
    return made


def _derive_asked(asked, where: str, **how):
    """``derive_model(**how)`` where a class named (``asked``) is that class: never its text
    model in its place (the sweep's stand-in for a class whose library is missing); such a class
    is refused from the missing library at once, before any derivation."""
    from paramcount.analyze import derive
    from paramcount.analyze.derive.probe import NeedsLibrary

    try:
        return derive.derive_model(**how, text_model=not isinstance(asked, str))
    except NeedsLibrary as exc:
        said = str(exc).split(": ", 1)[-1].split(". ")[0]  # transformers' own first sentence
        raise ParamcountError(f"{where + ': ' if where else ''}{asked} does not build here (a "
                              f"library it needs is not installed): {said}") from None


def _same_class(asked, d, where: str = "") -> None:
    """Refuse a derivation of another class than the one asked for: the sweep derives a class
    whose library is missing as its text model, which counts another model."""
    if isinstance(asked, str) and asked != d.cls:
        raise ParamcountError(f"{where + ': ' if where else ''}{asked} does not build here (a "
                              f"library it needs is not installed); only its text model, "
                              f"{d.cls}, derives")


def _refuse_failures(d) -> None:
    """A derivation with templates no expression fits is refused, carrying every reason
    (``--verbose`` and ``--json`` show them all)."""
    if d.failures:
        from paramcount.analyze.derive.deadline import Refusal

        what, why = d.failures[0]
        more = (f" (and {len(d.failures) - 1} more: --verbose or --json lists them)"
                if len(d.failures) > 1 else "")
        raise Refusal(f"cannot derive {d.cls}: {what}: {why}{more}",
                      [f"{w}: {y}" for w, y in d.failures])


def _counted(d, src, hit: bool, name: str | None, **more):
    """The derivation's formula counted at the config's values, as the torch worker returns it
    (:class:`~paramcount.output.derive_output.DerivedCount`; the command prints it)."""
    from paramcount.analyze.counting import counted
    from paramcount.analyze.derive.proof import derived_architecture
    from paramcount.analyze.derive.tree import ties
    from paramcount.output.derive_output import DerivedCount

    arch = derived_architecture(d, src)
    return DerivedCount(d, counted(arch, arch.resolve({}), name), d.count({}), hit, ties(d),
                        arch.formula.total(), **more)


def _on_torch(fn, *args):
    """``fn(*args)`` in a torch worker (here, if this process is one): its result returned, its
    errors raised here."""
    from paramcount.runtime import isolate

    return isolate.call("torch", fn, *args)


def _known_to_transformers(model_type: str) -> bool:
    """(In a torch worker.) Whether transformers registers a config class for ``model_type``."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    return model_type in CONFIG_MAPPING_NAMES


def cmd_derive(args) -> int:
    args.deadline = _deadline(args)  # (from the command's start, kept by the worker)
    if args.kv or args.flops:
        return derive_costs.cmd_derive_cost(args, _refused)
    try:
        r = _derived(args)
    except ParamcountError as exc:  # a refusal: every reason under --verbose and --json
        if isinstance(exc, UsageError):
            raise
        return _refused(args, exc)
    return _print_derived(args, r)


def _derived(args):
    """derive's result, from a worker (a builder's Keras model: from a process of Keras' side)."""
    from paramcount.runtime.extras import require

    if args.builder:  # torch's nn.Module, or a Keras model: in a process of its own side
        from paramcount.analyze.derive.probe import BuildsKeras

        try:
            return _on_torch(_derive_here, args)
        except BuildsKeras:  # the builder imported Keras in the torch worker
            pass
        from paramcount.runtime import isolate

        # a Keras model: built in a process of Keras' side (this one, unless it holds torch)
        return isolate.call("keras", _derive_here, args, True)
    require("transformers", "derive")  # one line on how to install it, before any work
    return _on_torch(_derive_here, args)


def _print_derived(args, r) -> int:
    from paramcount.output.derive_output import derive_json, derive_text

    show(args.json, r, derive_json, derive_text)
    return 0 if r.proven else 1


def _derive_here(args, keras: bool = False):
    """(In a torch worker, or on Keras' side for a Keras builder.) derive's work: its
    :class:`~paramcount.output.derive_output.DerivedCount`."""
    start = time.perf_counter()
    if args.emit_plugin:
        from paramcount.runtime.files import check_output

        check_output(args.emit_plugin)  # before the work: a path that cannot be written
        if args.builder:
            raise UsageError("--emit-plugin writes transformers derivations; a builder's "
                             "module is yours to register")
    from paramcount.analyze.derive.deadline import until

    with until(*args.deadline):
        src, d, hit = _load(args, keras)
        _refuse_failures(d)
    if args.emit_plugin:
        from paramcount.analyze.derive.plugin import write_plugin

        write_plugin(args.emit_plugin, d, src.base if not args.model_type else {},
                     f"{d.model_type}_derived")
    proof = None if args.no_prove else _proof(d, src)
    return _counted(d, src, hit, "the config's values", proof=proof,
                    seconds=time.perf_counter() - start)


def count_derived(args, data: dict, where: str) -> int | None:
    """``count --config PATH`` (no architecture named) of a transformers model type no table
    reads: derived, counted. ``data``, ``where``: the file as the command read it. None when the
    config is one the hand-written tables read (or not a transformers config)."""
    from paramcount.analyze import configs, hf_types

    model_type = data.get("model_type")
    if (configs.is_keras(data) or not isinstance(model_type, str)
            or model_type in configs.supported()[0] or model_type in hf_types.BUILT_BY):
        return None  # read by a table, or refused by configs with the true reason
    if args.preset or args.set:
        raise UsageError("--preset and --set do not apply to a derived formula; edit the "
                         "config instead")
    if args.framework == "keras":
        raise InputFileError(f"{where}: model type {data.get('model_type')!r} has no Keras "
                             "formula; its formula is derived from transformers")
    from paramcount.runtime.extras import missing

    if missing("transformers"):
        from paramcount.analyze.derive import require

        require()  # one line: a derived formula needs the transformers extra
    if not _on_torch(_known_to_transformers, model_type):
        return None  # configs names it unsupported, with the model types it reads
    from paramcount.output.derive_output import derived_count_json, derived_count_text

    try:
        r = _on_torch(_count_derived_here, data, where, _deadline(args))
    except ParamcountError as exc:
        return _refused(args, exc)
    show(args.json, r, derived_count_json, derived_count_text)
    return 0


def _count_derived_here(data: dict, where: str, budget: tuple[float, int] | None = None):
    """(In a torch worker.) The config's model type derived (by ``budget``'s deadline, when
    given) and counted at its values."""
    from paramcount.analyze.derive.deadline import until

    asked = (data.get("architectures") or [None])[0]
    with until(*(budget or (None, None))):
        src, d, hit = _derive_asked(asked, where, config=data)
        _same_class(asked, d, where)
        _refuse_failures(d)
    return _counted(d, src, hit, where, proof=_proof(d, src))


def _proof(d, src) -> list[dict]:
    from paramcount.analyze.derive.proof import prove_derivation
    from paramcount.analyze.derive.store import cached_proof

    return cached_proof(d, lambda: [{"case": c.case, "status": c.status, "message": c.message}
                                    for c in prove_derivation(d, src).cases])


def derived_beside(arch, hp: dict, as_json: bool = False, budget: int | None = None):
    """``count ARCH --derived``: the formula derived from the builds of the transformers class
    that builds ``arch`` at ``hp``, counted at the same values (the family's table renames them),
    beside the hand-written tree; and the cross-check of the two for all hyperparameters
    (:mod:`paramcount.analyze.derive.crosscheck`). Text: printed, the exit status returned (1
    when they disagree); JSON: the mapping returned."""
    from paramcount.output.derive_output import beside_json, beside_text
    from paramcount.runtime.extras import require

    if getattr(arch, "transformers", None) is None or arch.mapping is None \
            or not arch.mapping.hf_class(arch.id):
        raise UsageError(f"--derived: {arch.id} has no transformers class to derive from")
    require("transformers", "count --derived")
    b = _on_torch(_beside_here, arch.id, dict(hp), _deadline(SimpleNamespace(budget=budget)))
    if as_json:
        return beside_json(b)
    print(beside_text(b))
    return b.code


def _beside_here(arch_id: str, hp: dict, budget: tuple[float, int] | None = None):
    """(In a torch worker.) :func:`derived_beside`'s work: its
    :class:`~paramcount.output.derive_output.Beside`."""
    from paramcount.analyze.counting import counted
    from paramcount.analyze.derive.crosscheck import check, derivation_for
    from paramcount.analyze.derive.proof import derived_architecture
    from paramcount.analyze.derive.tree import ties
    from paramcount.core.formula import to_int
    from paramcount.model import registry
    from paramcount.model.frameworks import for_framework
    from paramcount.output.derive_output import Beside, DerivedCount

    arch = registry.get(arch_id)
    assert arch.transformers is not None  # (derived_beside checked it)
    ref = arch.transformers.pick(hp)
    from paramcount.analyze.derive.deadline import until

    with until(*(budget or (None, None))):  # the derivation under the budget, not the cross-check
        src, d = derivation_for(arch, ref)
        _refuse_failures(d)
    table = ref.mapping or arch.mapping
    assert table is not None
    try:
        values = src.values(src.config(table.hf_config(hp)))
    except Exception as exc:  # a validator's refusal (an odd rotary width)
        from paramcount.analyze.derive.core import first_line

        raise ParamcountError(f"--derived: transformers refuses {arch.id} at these values: "
                              f"{first_line(exc)}") from None
    darch = derived_architecture(d, src)
    dhp = darch.resolve({f: int(values[f]) for f in d.fields})
    shown = for_framework(arch, "transformers", hp)
    hand = to_int(shown.formula.trainable_total(), shown.values(hp))
    ag = check(arch, ref, src, d)
    mine = DerivedCount(d, counted(darch, dhp, f"{arch.id}'s values, renamed by its config table"),
                        d.count(dhp), ties=ties(d))
    return Beside(mine, hand, ag.agrees, tuple(ag.cases), dict(ag.held))
