"""What the ``paramcount`` commands share: one-line usage errors, JSON output, and the
hyperparameters a command line (a preset, a config file, ``--set``) gives. Cheap to import: the
registry and SymPy load inside the functions that need them."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys

from paramcount.core.errors import ParamcountError
from paramcount.model.discovery import preset_label

__all__ = ["Once", "Parser", "Terminated", "UsageError", "attach_negative_values",
           "config_reading", "emit_json", "no_cache", "parse_assignments", "preset_of",
           "resolved_hparams", "set_verbose", "sigterm_raises"]

# when the command started (time.monotonic(), set by paramcount.cli.main.main): a derivation's
# budget counts from it, SymPy's start-up included
STARTED: float | None = None


class UsageError(ParamcountError):
    pass


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (and exit 2), not usage text plus a line."""

    def error(self, message: str):  # type: ignore[override,unused-ignore]
        raise UsageError(f"{message} (see '{self.prog} --help')")

    def parse_known_args(self, args=None, namespace=None):
        args = sys.argv[1:] if args is None else args
        return super().parse_known_args(attach_negative_values(list(args)), namespace)


class Once(argparse.Action):
    """An option given at most once: a repeat is refused, as a repeated --set symbol is, never
    "the last one wins"."""

    def __call__(self, parser, namespace, values, option_string=None):
        seen = vars(namespace).setdefault("_given_once", {})
        if self.dest in seen:
            raise argparse.ArgumentError(self, f"given twice ({seen[self.dest]!r} and {values!r}); "
                                               "give it once")
        seen[self.dest] = values
        setattr(namespace, self.dest, values)


def attach_negative_values(argv: list[str], options=("--target",)) -> list[str]:
    """``--target -7e9`` as ``--target=-7e9``: argparse takes a value that starts with "-" and is
    not a plain negative number for an option, and would say "expected one argument"."""
    out: list[str] = []
    it = iter(argv)
    for tok in it:
        if tok in options:
            value = next(it, None)
            if value is not None and value[:1] == "-" and (value[1:2].isdigit() or value[1:2] == "."):
                out.append(f"{tok}={value}")
                continue
            out.append(tok)
            if value is not None:
                out.append(value)
            continue
        out.append(tok)
    return out


class Terminated(BaseException):
    """SIGTERM, raised in the main thread as SIGINT raises KeyboardInterrupt (a BaseException:
    no ``except Exception`` turns it into an error row)."""

    status = 143  # the shell's 128 + SIGTERM


@contextlib.contextmanager
def sigterm_raises():
    """Within: SIGTERM raises :class:`Terminated` here, so that the command ends as it does on
    Ctrl-C (one line, its worker pools shut down). A worker forked meanwhile inherits the handler
    and ends at once, quietly, as SIGTERM's default would end it."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    main_pid = os.getpid()

    def on_sigterm(signum, frame):
        if os.getpid() != main_pid:  # a forked worker
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise Terminated

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def set_verbose(args) -> None:
    """``--verbose`` (before or after the command's name): the cache says what it does."""
    from paramcount.runtime import cache_store

    cache_store.verbose = args.verbose or getattr(args, "verbose_after", False)
    cache_store.say_where()


@contextlib.contextmanager
def no_cache(off: bool):
    """``--no-cache`` (before or after the command's name): the cache switched off as
    ``PARAMCOUNT_CACHE=0`` switches it off (:func:`paramcount.runtime.cache.enabled`), so every
    lookup misses and nothing is written, here and in the worker processes (a kept worker gets
    this process's ``PARAMCOUNT_*`` switches with each call). Put back afterwards (``main`` may
    be called again)."""
    from paramcount.runtime.cache_store import CACHE_ENV

    before = os.environ.get(CACHE_ENV)
    if off:
        os.environ[CACHE_ENV] = "0"
    try:
        yield
    finally:
        if off and before is None:
            os.environ.pop(CACHE_ENV, None)
        elif off and before is not None:
            os.environ[CACHE_ENV] = before


def emit_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, indent=2) + "\n")


def show(as_json: bool, result, to_json, to_text) -> None:
    """A command's result printed as ``output/`` renders it: JSON with ``--json``, else text."""
    if as_json:
        emit_json(to_json(result))
    else:
        print(to_text(result))


def parse_assignments(items):
    from paramcount.core.hparams import parse_assignments as parse

    return parse(items)


def config_reading(args, arch_id: str | None, loaded: tuple[dict, str] | None = None):
    """``--config PATH``: what the file reads as (None without the option). ``loaded``: the
    file's (data, name) as :func:`paramcount.analyze.configs.load_json` read it already, so
    that a command reads its config once."""
    if not getattr(args, "config", None):
        return None
    if getattr(args, "preset", None):
        raise UsageError("--config and --preset are alternatives; give one")
    from paramcount.analyze import configs

    data, where = loaded if loaded is not None else configs.load_json(args.config)
    return configs.read_data(data, where, arch_id)


def preset_of(arch, name: str, command: str):
    """``arch``'s preset ``name``; when it has none by that name but another architecture
    publishes one (``count llama --preset llama3_8b_en``), the error names that architecture
    and the command that counts it, in place of near misses among ``arch``'s own presets.
    (The registry's message knows one architecture; this one is the command line's.)"""
    from paramcount.core.errors import UnknownPresetError
    from paramcount.model import registry

    try:
        return arch.preset(name)
    except UnknownPresetError as exc:
        # published presets only: an example set ("tiny") is every family's, and no lead
        owners = [a.id for a in registry.architectures().values()
                  if a.id != arch.id and name in a.presets_table()]
        if not owners:
            raise
        head = str(exc).split("; ", 1)[0]
        raise UnknownPresetError(f"{head}; {name} is a preset of {', '.join(owners)}: "
                                 f"paramcount {command} {owners[0]} --preset {name}") from None


def resolved_hparams(arch, args, reading=None) -> tuple[dict[str, int], str | None]:
    """Preset (or config file) values, then --set overrides on top; resolved and validated."""
    given: dict[str, int] = {}
    name = None
    if reading is not None:
        given.update(reading.hparams)
        name = args.config
    if getattr(args, "preset", None):
        preset = preset_of(arch, args.preset, getattr(args, "command", None) or "count")
        given.update(preset.hparams)
        name = preset.name
    if getattr(args, "set", None):
        given.update(parse_assignments(args.set))
    from paramcount.core.numcore import set_name

    name = set_name(name, bool(getattr(args, "set", None)))
    if reading is not None:
        from paramcount.analyze import configs

        configs.check_missing(reading, given)
        stated = [k for k in reading.hparams if k in {s.name for s in arch.fixed}]
        if stated:  # a width only transformers' class takes (Llama's head_dim): its model
            if getattr(args, "framework", None) == "keras":
                raise UsageError(f"{reading.where}: {', '.join(stated)} as the file states it is "
                                 f"built by transformers only (KerasHub fixes it); use "
                                 "--framework transformers")
            from paramcount.model.frameworks import for_framework

            return _of_file(reading.where, for_framework(arch, "transformers").resolve, given), name
        return _of_file(reading.where, arch.resolve, given), name
    elif name is not None:
        # The preset's own values: a bad one is the preset file's fault, so say which file.
        try:
            return arch.resolve(given), name
        except ParamcountError as exc:
            raise type(exc)(f"preset {name!r} of {arch.id} ({_preset_file(arch)}): {exc}") from None
    return arch.resolve(given), name


def _of_file(where: str, resolve, given: dict[str, int]) -> dict[str, int]:
    """``resolve(given)``, a constraint the values break said of the config file read."""
    try:
        return resolve(given)
    except ParamcountError as exc:
        if where and where not in str(exc):
            raise type(exc)(f"{where}: {exc}") from None
        raise


def _preset_file(arch) -> str:
    files = arch.presets if isinstance(arch.presets, tuple) else (arch.presets,)
    names = [str(f) if str(f).endswith(".toml") else preset_label(str(f)) for f in files if f]
    return ", ".join(names) or "examples in its module"


def non_negative_int(text: str) -> int:
    """An option's value that counts something (``--max-build N``): a whole number, 0 or more,
    read as every integer of the command line is (:func:`paramcount.core.numcore.parse_int_literal`)."""
    from paramcount.core.numcore import parse_int_literal

    value = parse_int_literal(text)
    if value is None or value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value
