"""Where generated data (levels, indexes) is kept between runs, and how it is written.

Generating some data is slow enough (seconds per Sokoban level in pure Python) that
we keep it in the user's cache. Many processes (vectorised envs, parallel eval jobs)
may generate the same file at once, so every file is written atomically: readers
see either no file or a complete one, never a half-written one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

CACHE_ENV_VAR = "DUNGEONBENCH_CACHE_DIR"


def cache_root() -> Path:
    """The package's cache folder (not created).

    ``$DUNGEONBENCH_CACHE_DIR`` wins so tests and clusters can redirect it; otherwise the
    XDG convention, which is what users of Linux tools expect to find and clean.
    """
    explicit = os.environ.get(CACHE_ENV_VAR)
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg).expanduser() / "dungeonbench_gym"
    return Path.home() / ".cache" / "dungeonbench_gym"


def cache_dir(*parts: str) -> Path:
    """The folder ``<cache root>/<parts...>``, created if missing."""
    folder = cache_root().joinpath(*parts)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def write_text_atomic(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` so that no reader ever sees a partial file.

    The temporary file lives in the same folder because ``os.replace`` is atomic only
    within one file system. Concurrent writers of the same path both succeed; the last
    one wins, which is harmless when they write the same (deterministic) content.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
    return path
