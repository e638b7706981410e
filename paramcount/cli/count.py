"""``paramcount count`` on the full command line (SymPy; :mod:`paramcount.cli.fast` answers the
plain cases first): the hyperparameters from a preset, ``--set`` or a config file, the count
collected into a :class:`~paramcount.output.count_result.CountResult`, printed as
:mod:`paramcount.output.count_result` renders it.

A ``--config`` file is read once here (:func:`paramcount.analyze.configs.load_json`), and what
was read is handed on: to the derived count (a model type no table reads) and to the table that
reads it. ``--checkpoint`` is :mod:`paramcount.cli.checkpoint`'s; ``--derived``'s comparison is
:mod:`paramcount.cli.derive`'s, printed after the count."""

from __future__ import annotations

from paramcount.cli.common import UsageError, config_reading, emit_json, resolved_hparams

__all__ = ["cmd_count"]


def cmd_count(args) -> int:
    from paramcount.cli.derive import count_derived, derived_beside
    from paramcount.output.count_result import count_result_json, count_result_text

    if args.checkpoint:
        from paramcount.cli.checkpoint import run

        return run(args, "count")
    loaded = None
    if args.config and not args.arch:  # the file picks the architecture, or is derived
        from paramcount.analyze import configs

        loaded = configs.load_json(args.config)
        if (derived := count_derived(args, *loaded)) is not None:  # a model type no table reads
            return derived
    reading = config_reading(args, args.arch, loaded)
    if reading is None and not args.arch:
        raise UsageError("the following arguments are required: arch (or --config PATH)")
    arch, hp, result = _collect(args, reading)
    if args.json:
        emit_json(count_result_json(result))
        return 0
    print(count_result_text(result))
    if args.derived:  # after the count: its own worker, its own exit status
        return derived_beside(arch, hp, budget=getattr(args, "budget", None))
    return 0


def _collect(args, reading):
    """The architecture, the resolved hyperparameters and the :class:`CountResult` of
    ``count``'s arguments (and ``reading``, the config file's)."""
    from paramcount.analyze.counting import counted
    from paramcount.core.restrictions import broken_notes
    from paramcount.model import registry
    from paramcount.output.count_result import CountResult

    arch = registry.get(reading.arch if reading else args.arch)
    if not args.preset and not args.set and reading is None:
        raise UsageError("count needs --preset NAME or --set SYM=VALUE ...; presets of "
                         f"{arch.id}: {', '.join(p.name for p in arch.hparam_sets()) or 'none'}")
    hp, name = resolved_hparams(arch, args, reading)
    framework = _framework(args, arch, reading)
    shown, fw = arch, {}
    if framework != "keras":
        shown, fw = _transformers_side(arch, framework, hp)
    count = counted(shown, hp, name)
    stored = None
    if reading is not None and getattr(reading, "quantization", None) is not None:
        from paramcount.model.quantization import stored as stored_size

        stored = stored_size(shown, hp, reading.quantization)
    only = None
    if "keras" not in arch.checked_by:  # a model KerasHub cannot build (Falcon-7B)
        ref = arch.transformers.pick(hp) if arch.transformers is not None else None
        only = getattr(ref, "only", None) or "no Keras build exists"
    derived = None
    if args.derived and args.json:  # (text: printed after the count, by cmd_count)
        from paramcount.cli.derive import derived_beside

        derived = derived_beside(arch, hp, as_json=True, budget=getattr(args, "budget", None))
    return arch, hp, CountResult(count, tuple(arch.checked_by), framework, reading, stored,
                                 only=only, derived=derived, costs=_costs(args, arch, hp, count, reading),
                                 notes=tuple(broken_notes(shown.notes, shown.values(hp))), **fw)


def _costs(args, arch, hp, count, reading):
    """``--context T [--batch B] [--dtype D]``: memory and compute at the counted set, its
    cost fields (a window) as the config file or the preset gives them (the record of proofs
    committed with the project says what stands behind each figure)."""
    if args.context is None:
        if args.batch is not None or args.dtype is not None:
            raise UsageError("--batch and --dtype go with --context T")
        return None
    from paramcount.analyze import costs
    from paramcount.analyze.cost_status import statuses as cost_statuses
    from paramcount.analyze.prove.record import PROJECT_RECORD
    from paramcount.model import dtypes

    dtype = dtypes.get(args.dtype or "bf16")
    statuses = cost_statuses(arch, PROJECT_RECORD if PROJECT_RECORD.is_file() else None)
    if reading is not None:  # the file's class is not the one the trees describe: no figure
        for q in costs.QUANTITIES:  # (but a language-model head's cache, its base model's)
            if (other := costs.class_problem(arch, hp, reading.cls, q)) is not None:
                statuses[q] = ("not formulated", other)
    config = dict(reading.costs) if reading is not None else (
        dict(arch.preset(args.preset).config) if args.preset else {})
    return costs.evaluate(arch, hp, args.context, args.batch or 1, dtype,
                          count.total + count.nontrainable, statuses,
                          config)


def _framework(args, arch, reading) -> str:
    """The build counted: the option's, else transformers' for a transformers config of a
    family transformers builds, else Keras' (or the one reference of a model Keras cannot
    build)."""
    framework = args.framework
    if framework is None:  # a transformers config means the model transformers builds from it
        hf_config = reading is not None and reading.source == "transformers config"
        framework = "transformers" if hf_config and arch.transformers is not None else "keras"
        # the model only transformers builds (a derived formula is transformers' already)
        if framework not in arch.checked_by and arch.transformers is not None:
            framework = arch.checked_by[0]
    return framework


def _transformers_side(arch, framework: str, hp):
    """The architecture as ``framework`` builds it (the formula with its declared deltas), and
    the result's fields that say so: the class and each delta's counts."""
    from paramcount.model import frameworks
    from paramcount.output.count_result import DeltaRow

    shown = frameworks.for_framework(arch, framework, hp)
    shown.resolve(hp)  # transformers' own constraints (an even rotary width)
    deltas = tuple(DeltaRow(d.path, k, h, d.reason) for d, k, h in frameworks.delta_rows(arch, hp))
    return shown, {"hf_class": frameworks.hf_class(arch, hp), "deltas": deltas}
