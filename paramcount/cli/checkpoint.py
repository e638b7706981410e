"""``count --checkpoint PATH`` and ``verify --checkpoint PATH``: a checkpoint's header against
the formula (:mod:`paramcount.analyze.checkpoints`). Neither TensorFlow nor torch is imported."""

from __future__ import annotations

from paramcount.cli.common import UsageError, emit_json, resolved_hparams
from paramcount.core.errors import ParamcountError

__all__ = ["run"]


def _check(args, arch_id: str | None, verifying: bool):
    from paramcount.analyze import configs
    from paramcount.analyze.checkpoints import check, readers
    from paramcount.model import registry

    if getattr(args, "preset", None) and getattr(args, "config", None):
        raise UsageError("--config and --preset are alternatives; give one")
    ckpt = readers.read(args.checkpoint)
    reading = None
    if getattr(args, "config", None):
        reading = configs.read_config(args.config, arch_id)
    elif ckpt.config is not None and not getattr(args, "preset", None):
        reading = configs.read_data(ckpt.config, ckpt.config_where or ckpt.path, arch_id)
    elif arch_id is None:
        why = ckpt.metadata.get("no config") or f"{ckpt.path}: no config.json beside the checkpoint"
        raise UsageError(f"{why}: give --config PATH (or put the model's config.json beside "
                         "it), or an architecture with --preset or --set")
    target = reading.arch if reading else arch_id
    assert target is not None
    arch = registry.get(target)
    hp, _ = resolved_hparams(arch, args, reading)
    framework = check.framework_of(ckpt, reading.source if reading else "transformers config")
    if framework == "keras" and verifying:  # the h5 names → Keras paths (builds it: imports TF)
        from paramcount.analyze.checkpoints.keras_names import with_keras_paths

        ckpt = with_keras_paths(ckpt, arch, hp)
    return _as_read(reading, ckpt), check.check(ckpt, arch, hp, framework)


def _as_read(reading, ckpt):
    """The reading as the user should see it. A GGUF file's config is one paramcount composes
    from its metadata, in transformers' keys, so configs reads it as a transformers config;
    shown so, it said ``read m.gguf (GGUF metadata) (transformers config, LlamaForCausalLM)``:
    two descriptions, the second not the file's. What was read is the file's metadata, as the
    class its table names (``read m.gguf (GGUF metadata, LlamaForCausalLM) as llama``)."""
    if reading is None or ckpt.format != "GGUF" or not reading.where.startswith(f"{ckpt.path} ("):
        return reading  # (a config.json beside the file, or --config: a file, shown as one)
    import dataclasses

    return dataclasses.replace(reading, where=ckpt.path, source="GGUF metadata")


def run(args, command: str) -> int:
    from paramcount.output import checkpoints as output

    archs = args.arch if isinstance(args.arch, list) else [args.arch] if args.arch else []
    if len(archs) > 1:
        raise UsageError("--checkpoint reads one checkpoint; name at most one architecture")
    if getattr(args, "all", False):
        raise UsageError("--all takes no --checkpoint")
    if getattr(args, "framework", None) not in (None, "keras", "all"):
        raise UsageError("--checkpoint takes no --framework: the checkpoint's names say which "
                         "(transformers' for safetensors and GGUF, Keras' for a KerasHub preset)")
    try:
        reading, c = _check(args, archs[0] if archs else None, command == "verify")
    except MemoryError:  # never expected: only headers are read
        raise ParamcountError(f"{args.checkpoint}: out of memory reading the header") from None
    from paramcount.output.count_result import reading_json, reading_lines

    if args.json:
        out = output.check_json(c)
        if reading is not None:
            out["config"] = reading_json(reading)
        emit_json(out)
    else:
        if reading is not None:
            print("\n".join(reading_lines(reading)))
        lines = output.count_lines(c) if command == "count" else output.verify_lines(c)
        print("\n".join(lines))
    return 0 if command == "count" or c.ok else 1
