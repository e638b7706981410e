"""What the ``paramcount`` commands share: one-line usage errors, JSON output, and the
hyperparameters a command line (a preset, a config file, ``--set``) gives. Cheap to import: the
registry and SymPy load inside the functions that need them."""

from __future__ import annotations

import argparse
import json
import sys

from paramcount.errors import ParamcountError

__all__ = ["UsageError", "parse_assignments"]


class UsageError(ParamcountError):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (and exit 2), not usage text plus a line."""

    def error(self, message: str):  # type: ignore[override,unused-ignore]
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _emit_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, indent=2) + "\n")


def parse_assignments(items):
    from paramcount.hparams import parse_assignments as parse

    return parse(items)



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


def _reading_lines(reading) -> list[str]:
    hp = ", ".join(f"{k}={v}" for k, v in reading.hparams.items())
    lines = [f"read {reading.where} ({reading.source}, {reading.cls}) as {reading.arch}: {hp}"]
    if reading.ignored:
        lines.append(f"keys not read (declared to change no count, or unknown to the "
                     f"{reading.arch} table): {', '.join(reading.ignored)}")
    return lines
