"""Input files: only a regular file is opened, and JSON is read through one bounded parser.

- **Regular files only.** Every file a user hands paramcount (a ``config.json``, a safetensors
  file, shard or index, a ``.weights.h5``, a ``.gguf``) is checked to be a regular file before it
  is opened. Opening a FIFO for reading waits for a writer that never comes, and a device
  (``/dev/zero``) never ends: both hung the checkpoint readers (issue 30). :func:`check_regular`
  asks ``stat`` (which opens nothing, and follows a link to what it names);
  :func:`read_capped` opens without blocking and checks the open file itself, then reads at most
  a limit.
- **One JSON parser.** :func:`parse_json` turns what :mod:`json` raises on hostile text into one
  :class:`~paramcount.core.errors.InputFileError` line, exit status 2: malformed text, bytes that
  are not UTF-8, nesting deeper than the interpreter's recursion limit (the C scanner raises
  ``RecursionError``; no config or index nests more than a few levels), and an integer of more
  digits than Python converts from a string (4,300 by default: a ``ValueError``, raised even
  under a key paramcount never reads). Each was an "internal error", exit 70.

The on-disk cache reads its own entries with its own checks (:mod:`paramcount.runtime.cache_store`).
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from paramcount.core.errors import InputFileError

__all__ = ["check_regular", "irregular", "load_json", "parse_json", "read_capped"]

_KINDS = ((stat.S_ISDIR, "is a directory"), (stat.S_ISFIFO, "is a FIFO (named pipe)"),
          (stat.S_ISCHR, "is a device"), (stat.S_ISBLK, "is a device"),
          (stat.S_ISSOCK, "is a socket"))


def irregular(mode: int) -> str | None:
    """Why a file of ``mode`` is not read (``is a FIFO (named pipe)``), or None: a regular file."""
    for test, reason in _KINDS:
        if test(mode):
            return reason
    return None if stat.S_ISREG(mode) else "is not a regular file"


def check_regular(path: str | os.PathLike, what: str, hint: str = "") -> int:
    """The size of ``path``, a regular file (or a link to one); else one line naming ``what``
    it was to be and why it is not read. Opens nothing: call it before the open that could
    block."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise InputFileError(f"cannot read {what} {os.fspath(path)}: "
                             f"{exc.strerror or exc}") from None
    reason = irregular(st.st_mode)
    if reason is not None:
        raise InputFileError(f"cannot read {what} {os.fspath(path)}: {reason}{hint}")
    return st.st_size


def read_capped(path: str | os.PathLike, what: str, limit: int, hint: str = "") -> bytes:
    """The bytes of the regular file ``path``, at most ``limit``: opened without blocking (a
    FIFO is refused, not waited on) and refused by its type before a byte is read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise InputFileError(f"cannot read {what} {os.fspath(path)}: "
                             f"{exc.strerror or exc}") from None
    try:
        reason = irregular(os.fstat(fd).st_mode)
        if reason is not None:
            raise InputFileError(f"cannot read {what} {os.fspath(path)}: {reason}{hint}")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise InputFileError(f"cannot read {what} {os.fspath(path)}: "
                             f"{exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise InputFileError(f"{os.fspath(path)}: too large for a {what} file (over "
                             f"{limit >> 20} MB)")
    return b"".join(chunks)


def parse_json(raw: bytes | str, where: str, what: str = "a JSON file", *,
               object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None) -> Any:
    """The JSON value in ``raw``, or one line saying why there is none (``where``: the file's
    name in it; ``what``: what the file was to be, "a config")."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise InputFileError(f"{where}: not a UTF-8 text file") from None
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError as exc:
        raise InputFileError(f"{where}: malformed JSON: {exc.msg} (line {exc.lineno}, column "
                             f"{exc.colno})") from None
    except InputFileError:  # the hook's own refusal (a duplicate name)
        raise
    except RecursionError:
        raise InputFileError(f"{where}: malformed JSON: nested too deeply for {what} (over "
                             "about a thousand levels; one nests a few)") from None
    except ValueError as exc:  # int(): past sys.get_int_max_str_digits() (4,300 by default)
        if "integer string conversion" not in str(exc):
            raise
        raise InputFileError(f"{where}: holds a number too long to read (more than "
                             f"{sys.get_int_max_str_digits():,} digits; {what} has "
                             "none)") from None


def load_json(path: str | os.PathLike, what: str, limit: int, hint: str = "") -> Any:
    """:func:`parse_json` of :func:`read_capped`: a user's JSON file, read within bounds."""
    article = "an" if what[:1] in tuple("aeiou") else "a"
    return parse_json(read_capped(path, what, limit, hint), os.fspath(Path(path)),
                      f"{article} {what}")
