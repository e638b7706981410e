"""A progress bar on stderr for the long commands (``verify --all``, ``prove``, ``report``).

It draws only when it helps a person watching: stderr is a terminal, ``--quiet`` was not given,
and the environment does not say it is CI (``CI`` set to anything but ``0``/``false``) or a dumb
terminal. Otherwise, unless ``--quiet`` (or ``PARAMCOUNT_PROGRESS=0``), it writes one plain line
per architecture (the first word of a step's label) to stderr, so a CI log shows that a long
``verify --all`` is alive without carriage-return noise. Set ``PARAMCOUNT_PROGRESS=1`` (or ``0``)
to force the bar on (or all progress off).

One line, redrawn in place and cleared at the end::

    [########------------]  24/60  gpt2 gpt2_medium_en  (36 left, 0:12)

Usage, for a known list of jobs::

    for arch, preset in progress.track(jobs, describe=lambda j: f"{j[0]} {j[1]}", quiet=q):
        ...

or, where the loop is elsewhere (a callback taking the item's label)::

    with progress.Bar(len(jobs), quiet=q) as bar:
        run_all(jobs, on_start=bar.advance)
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TextIO, TypeVar

__all__ = ["Bar", "enabled", "track"]

T = TypeVar("T")

_FORCE_ENV = "PARAMCOUNT_PROGRESS"


def _forced_off() -> bool:
    return os.environ.get(_FORCE_ENV, "").strip().lower() in {"0", "false", "no", "off"}


def enabled(stream: TextIO | None = None, *, quiet: bool = False) -> bool:
    """Whether a bar should be drawn on ``stream`` (stderr by default)."""
    if quiet:
        return False
    force = os.environ.get(_FORCE_ENV, "").strip().lower()
    if force in {"0", "false", "no", "off"}:
        return False
    if force in {"1", "true", "yes", "on"}:
        return True
    if os.environ.get("CI", "").strip().lower() not in {"", "0", "false"}:
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed or file-like objects without isatty
        return False


class Bar:
    """A one-line progress bar of ``total`` steps; a no-op when not :func:`enabled`."""

    def __init__(self, total: int, *, quiet: bool = False, stream: TextIO | None = None,
                 width: int = 20, clock: Callable[[], float] = time.monotonic) -> None:
        self.total = max(0, int(total))
        self.done = 0
        self.stream = sys.stderr if stream is None else stream
        self.active = enabled(self.stream, quiet=quiet) and self.total > 0
        # Not a terminal: a plain line whenever the architecture changes (see the docstring).
        self.lines = not self.active and not quiet and not _forced_off() and self.total > 0
        self._group: str | None = None
        self.width = width
        self._clock = clock
        self._start = clock()
        self._drawn = False
        self._started = False  # a step is under way (finished by the next advance or close)
        self._shown = 0  # the step number of the last plain line

    # --- drawing ----------------------------------------------------------------------------
    def line(self, label: str) -> str:
        """The text of the bar with ``self.done`` steps finished and ``label`` under way."""
        filled = self.width * self.done // self.total if self.total else self.width
        bar = "#" * filled + "-" * (self.width - filled)
        n = len(str(self.total))
        left = self.total - self.done
        secs = int(self._clock() - self._start)
        text = (f"[{bar}] {self.done + (1 if label else 0):>{n}}/{self.total}  {label}  "
                f"({left - (1 if label else 0)} left, {secs // 60}:{secs % 60:02d})")
        cols = shutil.get_terminal_size((80, 24)).columns
        return text if len(text) < cols else text[: max(cols - 2, 10)] + "…"

    def _write(self, text: str) -> None:
        self.stream.write("\r\x1b[K" + text)
        self.stream.flush()
        self._drawn = True

    # --- steps ------------------------------------------------------------------------------
    def advance(self, label: str = "") -> None:
        """Mark the previous step done and show ``label`` as the one now under way."""
        if self._started:
            self.done = min(self.done + 1, self.total)
        self._started = True
        if self.active:
            self._write(self.line(label))
        elif self.lines and label:
            group = label.split()[0].rstrip(":")
            if group != self._group:
                self._group = group
                self._shown = self.done + 1
                self._plain(f"paramcount: {self._shown}/{self.total} {group}")

    def _plain(self, text: str) -> None:
        try:
            self.stream.write(text + "\n")
            self.stream.flush()
        except (OSError, ValueError):  # progress is a courtesy: a closed stderr stops nothing
            self.lines = False

    def note(self, text: str) -> None:
        """A message of its own line (a long build under way), unless quiet."""
        if self.active:
            self.clear()
            self._plain(f"paramcount: {text}")
        elif self.lines:
            self._plain(f"paramcount: {text}")

    def clear(self) -> None:
        """Erase the bar for now (to print a line of output); the next step redraws it."""
        if self.active and self._drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._drawn = False

    def close(self) -> None:
        """Erase the bar, leaving the terminal as it was."""
        if self._started:
            self.done = min(self.done + 1, self.total)
            self._started = False
        self.clear()

    def __call__(self, label: str = "") -> None:  # usable as a plain callback
        self.advance(label)

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
        if exc[0] is None and self.lines and 0 < self._shown < self.total == self.done:
            # the last architecture's steps were after its first line: the log reaches the total
            self._plain(f"paramcount: {self.total}/{self.total} done")


def track(items: Iterable[T], *, describe: Callable[[T], str] = str, quiet: bool = False,
          stream: TextIO | None = None, total: int | None = None) -> Iterator[T]:
    """Yield ``items``, showing which one is under way and how many are left."""
    items = list(items) if total is None else items
    n = len(items) if total is None else total  # type: ignore[arg-type]
    with Bar(n, quiet=quiet, stream=stream) as bar:
        for item in items:
            bar.advance(describe(item))
            yield item
