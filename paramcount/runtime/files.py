"""Output files: checked before any work, written atomically, never anything but a regular file.

The rules, in one place (``paramcount report --output PATH`` and every figure beside it):

- The target is a regular file, or a new file in a folder that exists (or can be created) and
  accepts new files. Anything else is refused with the true reason, before any work: a directory,
  a device (``/dev/full``), a FIFO, a socket, a symbolic link (paramcount replaces files by
  renaming; it never follows a link into replacing what it points to, nor turns the link into a
  plain file: name the link's target instead), a path under a regular file ("not a directory"),
  or a folder where no file can be created (``/proc``).
- A file whose mode has no write bit at all (``chmod 444``) is read-only on purpose and refused,
  for every user including root (root could replace it, and did: that is the defect this rule
  closes). Make it writable to let paramcount replace it.
- The new content goes to a temporary file beside the target, is flushed and fsync'ed, takes the
  existing file's mode (and owner, where the process may set it; a new file gets 0666 less the
  umask, as ``open(path, "w")`` would), and is renamed over the target; the folder is fsync'ed
  after the rename. A crash or a full disk leaves the old file whole and no temporary file; a
  SIGKILL (which no process can clean up after) may leave ``.NAME.*.tmp`` files beside the
  targets, and the next write of the same files removes those more than a minute old.
- Several files that belong together (a report and its figures) are written with
  :func:`write_group`: every temporary file is written and synced first, and only then renamed,
  the main file last, so a failure before the renames changes none of them.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path

from paramcount.core.errors import OutputPathError

__all__ = ["check_output", "remove_stale", "sync_dir", "write_atomic", "write_group"]

STALE_SECONDS = 60  # a temporary file of ours this old is a dead writer's: a live one renames it
_KINDS = [(stat.S_ISDIR, "is a directory"), (stat.S_ISCHR, "is a device"),
          (stat.S_ISBLK, "is a device"), (stat.S_ISFIFO, "is a FIFO (named pipe)"),
          (stat.S_ISSOCK, "is a socket"), (stat.S_ISLNK, "is a symbolic link (paramcount "
                                                        "never replaces a link; give its target)")]


def _refuse(path: Path, reason: str) -> OutputPathError:
    return OutputPathError(f"cannot write {path}: {reason}")


def check_output(path: str | os.PathLike, *, new_folders: bool = True) -> Path:
    """Check that ``path`` may be written by :func:`write_atomic`; raise OutputPathError if not.

    Creates nothing (with ``new_folders``, a missing folder is created at write time; without,
    the folder must exist: a user's ``--output`` in a folder that is not there is a typo more
    often than a wish); probes the folder that will hold the file by creating and removing an
    empty temporary file there.
    """
    path = Path(path)
    if path.name in ("", ".", ".."):
        raise _refuse(path, "is a directory")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except NotADirectoryError:
        st = None  # reported below, naming the component that is not a folder
    except OSError as exc:
        raise _refuse(path, exc.strerror or str(exc)) from None
    if st is not None:
        for test, reason in _KINDS:
            if test(st.st_mode):
                raise _refuse(path, reason)
        if not st.st_mode & 0o222:
            raise _refuse(path, f"is read-only (mode {stat.S_IMODE(st.st_mode):04o}); "
                                "make it writable to replace it")
        if not os.access(path, os.W_OK):
            raise _refuse(path, "permission denied")
    # The nearest folder that exists: every missing one below it is created at write time.
    folder = path.parent
    while True:
        try:
            fst = os.stat(folder)
        except FileNotFoundError:
            if not new_folders and folder == path.parent:
                raise _refuse(path, f"the folder {folder} does not exist") from None
            folder = folder.parent
            continue
        except NotADirectoryError:
            folder = folder.parent
            continue
        except OSError as exc:
            raise _refuse(path, f"{folder}: {exc.strerror or exc}") from None
        break
    if not stat.S_ISDIR(fst.st_mode):
        raise _refuse(path, f"{folder} is not a directory")
    try:
        fd, probe = tempfile.mkstemp(prefix=".paramcount-probe.", dir=folder)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if exc.errno in (errno.EACCES, errno.EPERM):
            reason = "permission denied"
        raise _refuse(path, f"no file can be created in {folder} ({reason})") from None
    os.close(fd)
    os.unlink(probe)
    return path


def _write_temp(path: Path, data: str | bytes) -> str:
    """The content in a synced temporary file beside ``path`` with the mode ``path`` will have."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        old = os.stat(path)
    except FileNotFoundError:
        old = None
    # What a killed writer left (a SIGKILL between the writes and the renames): removed here
    remove_stale(path.parent, f".{path.name}.", ".tmp", STALE_SECONDS)
    remove_stale(path.parent, ".paramcount-probe.", "", STALE_SECONDS)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if old is not None:
            os.fchmod(fd, stat.S_IMODE(old.st_mode))
            if hasattr(os, "fchown"):
                # Not root: the file becomes ours, as with any editor.
                with contextlib.suppress(PermissionError):
                    os.fchown(fd, old.st_uid, old.st_gid)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(fd, 0o666 & ~umask)
        raw = data.encode("utf-8") if isinstance(data, str) else data
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def sync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems do not sync folders; the rename is still atomic
        pass
    finally:
        os.close(fd)


def remove_stale(folder: Path, prefix: str, suffix: str, age: float) -> None:
    """Remove files in ``folder`` named ``prefix...suffix`` (paramcount's own temporary files)
    not modified for ``age`` seconds: what a killed writer left (a live writer's are younger:
    it writes, syncs and renames them within seconds). Best effort."""
    import time

    now = time.time()
    with contextlib.suppress(OSError), os.scandir(folder) as it:
        for e in it:
            if not (e.name.startswith(prefix) and e.name.endswith(suffix)):
                continue
            with contextlib.suppress(OSError):
                if e.is_file(follow_symlinks=False) and now - e.stat().st_mtime > age:
                    os.unlink(e.path)


def write_group(files: Mapping[str | os.PathLike, str | bytes]) -> list[Path]:
    """Write several files that belong together; the last one named is renamed last.

    Every target is checked first (:func:`check_output`), then every temporary file is written
    and synced, then they are renamed in order. A failure before the renames changes no target.
    """
    items = [(Path(p), d) for p, d in files.items()]
    for p, _ in items:
        check_output(p)
    temps: list[tuple[str, Path]] = []
    try:
        for p, d in items:
            temps.append((_write_temp(p, d), p))
        for tmp, p in temps:
            os.replace(tmp, p)
    except BaseException:
        for tmp, _ in temps:
            Path(tmp).unlink(missing_ok=True)
        raise
    for folder in dict.fromkeys(p.parent for p, _ in items):
        sync_dir(folder)
    return [p for p, _ in items]


def write_atomic(path: str | os.PathLike, data: str | bytes) -> Path:
    """Write ``data`` to ``path`` atomically (see the module's rules)."""
    return write_group({path: data})[0]
