"""An on-disk cache for results that are costly to recompute and cheap to key: compiled counts
(:mod:`paramcount.compiled`) and proof outcomes (:mod:`paramcount.prove`).

Nothing here imports SymPy or TensorFlow (``count`` reads it on every call).

- **Where.** ``$PARAMCOUNT_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/paramcount``, else
  ``~/.cache/paramcount``. ``PARAMCOUNT_CACHE=0`` (or ``off``/``no``/``false``) disables it:
  every lookup misses and nothing is written.
- **Keys.** A caller hashes everything that could change the value (:func:`key`); the entry is a
  file named by that hash, so a changed input never finds a stale entry — it finds none.
- **Safety.** Writes go to a temporary file in the same folder, then ``os.replace``: a reader sees
  the old entry, the new one or none, never half of one. A cache folder that cannot be created or
  written (read-only home, a full disk) is not an error: the value is simply recomputed next time.
  An entry that cannot be read or parsed is a miss.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

__all__ = ["CACHE_DIR_ENV", "CACHE_ENV", "enabled", "cache_dir", "key", "get", "put",
           "get_json", "put_json", "source_fingerprint"]

CACHE_DIR_ENV = "PARAMCOUNT_CACHE_DIR"
CACHE_ENV = "PARAMCOUNT_CACHE"


def enabled() -> bool:
    return os.environ.get(CACHE_ENV, "1").strip().lower() not in ("0", "off", "no", "false")


def cache_dir() -> Path:
    explicit = os.environ.get(CACHE_DIR_ENV)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "paramcount"


def key(*parts: object) -> str:
    """A hex digest of ``parts`` (strings, bytes, numbers, None, or nested tuples/lists of them)."""
    h = hashlib.sha256()
    _feed(h, parts)
    return h.hexdigest()


def _feed(h, obj: object) -> None:
    # Length-prefixed, type-tagged: ("ab", "c") and ("a", "bc") hash differently.
    if isinstance(obj, (tuple, list)):
        h.update(b"(%d" % len(obj))
        for x in obj:
            _feed(h, x)
        h.update(b")")
        return
    data = obj if isinstance(obj, bytes) else repr(obj).encode()
    h.update(b"%s%d:" % (type(obj).__name__.encode(), len(data)))
    h.update(data)


def _path(kind: str, digest: str, suffix: str) -> Path:
    return cache_dir() / kind / f"{digest}{suffix}"


def get(kind: str, digest: str, suffix: str = "") -> bytes | None:
    """The bytes stored under ``kind/digest``, or None (missing, unreadable or disabled)."""
    if not enabled():
        return None
    try:
        return _path(kind, digest, suffix).read_bytes()
    except OSError:
        return None


def put(kind: str, digest: str, data: bytes, suffix: str = "") -> Path | None:
    """Store ``data`` atomically under ``kind/digest``; the path, or None when not stored."""
    if not enabled():
        return None
    target = _path(kind, digest, suffix)
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=target.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
        return target
    except OSError:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        return None


def get_json(kind: str, digest: str):
    raw = get(kind, digest, ".json")
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def put_json(kind: str, digest: str, obj) -> Path | None:
    return put(kind, digest, json.dumps(obj, sort_keys=True).encode(), ".json")


_FINGERPRINT: str | None = None


def source_fingerprint() -> str:
    """A digest of paramcount's own source and preset files (and its version).

    Anything a formula tree, its hyperparameters, presets or the count's wording derive from is
    in these files, so an entry keyed by this digest is never used after any of them changes
    (a checkout, an edit, an upgrade). Reading ~110 small files costs a few milliseconds.
    """
    global _FINGERPRINT
    if _FINGERPRINT is None:
        from paramcount import __version__

        root = Path(__file__).resolve().parent
        h = hashlib.sha256(f"paramcount {__version__}\0".encode())
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith((".py", ".toml")):
                    p = os.path.join(dirpath, name)
                    with open(p, "rb") as fh:
                        data = fh.read()
                    h.update(os.path.relpath(p, root).encode() + b"\0%d\0" % len(data) + data)
        _FINGERPRINT = h.hexdigest()
    return _FINGERPRINT
