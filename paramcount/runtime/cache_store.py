"""The on-disk cache's files (:mod:`paramcount.runtime.cache` says what is cached and why): where the
folder is, whether it may be used, and entries read and written as the rules below say.

Nothing here imports SymPy (``count`` reads it on every call).

- **Where.** ``$PARAMCOUNT_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/paramcount``, else
  ``~/.cache/paramcount``; without a home folder (``HOME`` unset or missing) nothing is cached
  and nothing is created (``--verbose`` says so). ``PARAMCOUNT_CACHE=0`` (or ``off``/``no``/
  ``false``) disables it: every lookup misses and nothing is written.
- **Data, checked.** An entry is data, never code (JSON that fixed readers interpret), behind a
  first line holding the SHA-256 of its name and content, checked on every read. An entry that is
  missing, cut short, edited, copied under another name, unreadable, or not a regular file of
  this user's is a miss: the value is recomputed and written anew.
- **Ours alone.** A cache folder that another user owns, or that group or others can write to,
  is not used at all (one line on stderr says so): what others can write, others choose.
- **Atomic.** Writes go to a synced temporary file in the same folder, then ``os.replace`` and a
  sync of the folder: a reader sees the old entry, the new one or none, never half of one, even
  after a power cut; a temporary file left by a killed writer is removed by a later write. A
  folder that cannot be created or written (read-only home, a full disk) is not an error.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

try:  # the built-in SHA-256: hashlib would load OpenSSL, a noticeable share of a compiled count
    from _sha256 import sha256 as _sha256
except ImportError:  # pragma: no cover - other Python builds
    from hashlib import sha256 as _sha256

__all__ = ["CACHE_DIR_ENV", "CACHE_ENV", "cache_dir", "enabled", "get", "get_json", "prune", "put",
           "put_json", "say_where"]

CACHE_DIR_ENV = "PARAMCOUNT_CACHE_DIR"
CACHE_ENV = "PARAMCOUNT_CACHE"
MAX_ENTRY = 64 << 20  # bytes: no entry paramcount writes comes near; a larger file is not one
STALE_SECONDS = 60  # a temporary file older than this is a dead writer's, removed on a write
verbose = False  # set by the command line's --verbose: say why nothing is cached, or what missed

_NOTED: set[str] = set()


def _note(text: str, *, always: bool = True) -> None:
    """One line on stderr, once per process (``always``: even without --verbose)."""
    if (always or verbose) and text not in _NOTED:  # (not yet --verbose: said once it is)
        _NOTED.add(text)
        import sys

        with contextlib.suppress(OSError, ValueError, AttributeError):
            sys.stderr.write(f"paramcount: note: {text}\n")


def enabled() -> bool:
    """Whether anything is cached: not turned off, and a folder fit to hold entries."""
    root = cache_dir() if _switched_on() else None
    return root is not None and _safe(root)


def say_where() -> None:
    """Under --verbose: where entries are read and written, or why nothing is cached."""
    if not _switched_on():
        _note(f"not caching: {CACHE_ENV}={os.environ.get(CACHE_ENV)}", always=False)
    elif enabled():
        _note(f"cache folder: {cache_dir()}", always=False)


def _switched_on() -> bool:
    return os.environ.get(CACHE_ENV, "1").strip().lower() not in ("0", "off", "no", "false")


def cache_dir() -> Path | None:
    """The cache folder; None without a home folder to put it in (one is never created)."""
    explicit = os.environ.get(CACHE_DIR_ENV)
    if explicit:
        return Path(explicit)
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "paramcount"
    home = os.environ.get("HOME")
    if not home or not os.path.isdir(home):
        why = "HOME is not set" if not home else f"the home folder {home} does not exist"
        _note(f"not caching: {why}, and paramcount does not create it (set {CACHE_DIR_ENV} to "
              "cache elsewhere)", always=False)
        return None
    return Path(home) / ".cache" / "paramcount"


def _safe(folder: Path) -> bool:
    """Whether ``folder`` (missing: it will be created, private) can only be written by this
    user: an entry others can write is an entry others choose. Says so, once, if not."""
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        return True
    except OSError:
        return False  # unreadable: nothing is read from it or written to it
    if st.st_uid != os.geteuid():
        _note(f"not using the cache folder {folder}: it belongs to another user")
        return False
    if st.st_mode & 0o022:
        _note(f"not using the cache folder {folder}: it is writable by group or others (mode "
              f"{st.st_mode & 0o7777:04o}; chmod go-w {folder} to use it)")
        return False
    return True


def _folder(kind: str) -> Path | None:
    """The folder of ``kind``'s entries, if caching is on and both it and the cache's are safe."""
    root = cache_dir() if _switched_on() else None
    if root is None or not _safe(root) or not _safe(root / kind):
        return None
    return root / kind


def _header(name: str, payload: bytes) -> bytes:
    """An entry's first line: the digest of its name and content, checked on every read (an
    entry cut short, edited, or copied under another name does not match)."""
    return b"paramcount-cache 1 sha256:%s\n" % _sha256(
        name.encode() + b"\0" + payload).hexdigest().encode()


def get(kind: str, digest: str, suffix: str = "") -> bytes | None:
    """The bytes stored under ``kind/digest``, or None (missing, unreadable, damaged, not ours
    alone, or caching off)."""
    folder = _folder(kind)
    if folder is None:
        return None
    name = f"{digest}{suffix}"
    try:
        fd = os.open(folder / name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if (not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022
                or st.st_size > MAX_ENTRY):
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_ENTRY + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    head, sep, payload = data.partition(b"\n")
    if not sep or head + sep != _header(f"{kind}/{name}", payload):
        _note(f"cache entry {folder / name} is damaged (its digest does not match): not used, "
              "written anew", always=False)
        return None
    return payload


def put(kind: str, digest: str, data: bytes, suffix: str = "") -> Path | None:
    """Store ``data`` under ``kind/digest``: a synced temporary file renamed over the entry (a
    reader sees the old entry, the new one or none, never half of one, even after a power cut);
    the path, or None when not stored."""
    folder = _folder(kind)
    if folder is None:
        return None
    import tempfile

    from paramcount.runtime.files import remove_stale, sync_dir

    name = f"{digest}{suffix}"
    tmp = None
    try:
        for d in (folder.parent, folder):
            d.mkdir(mode=0o700, parents=True, exist_ok=True)
        remove_stale(folder, ".tmp-", "", STALE_SECONDS)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
        with os.fdopen(fd, "wb") as fh:
            fh.write(_header(f"{kind}/{name}", data) + data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, folder / name)
        sync_dir(folder)
        return folder / name
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        return None


def prune(kind: str, keep: int) -> None:
    """Remove all but the ``keep`` newest entries of ``kind`` (best effort): every edit of
    paramcount's sources keys new entries, and nothing else would ever remove the old ones."""
    folder = _folder(kind)
    if folder is None:
        return
    try:
        with os.scandir(folder) as it:
            entries = [(e.stat().st_mtime, e.path) for e in it if e.is_file()]
    except OSError:
        return
    entries.sort(reverse=True)
    for _, path in entries[keep:]:
        with contextlib.suppress(OSError):
            os.unlink(path)


def get_json(kind: str, digest: str):
    import json

    raw = get(kind, digest, ".json")
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def put_json(kind: str, digest: str, obj) -> Path | None:
    import json

    text = json.dumps(obj, separators=(",", ":"))  # in its own order: a table's rows
    return put(kind, digest, text.encode(), ".json")
