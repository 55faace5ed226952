"""Cache files: where they live, and their validated, atomically written format.

A file is `MAGIC, format version (u32), payload length (u64), blake2b-256 of the payload,
payload`. A reader that finds anything else (another program's file, a truncated or corrupted
one) reports why and the entry is compiled and written again. Writers write a temporary file
next to the entry and rename it over the entry, so readers never see half a file.
"""

from __future__ import annotations

import hashlib
import os
import re
import struct
import sys
import tempfile
from pathlib import Path

from ember import config

MAGIC = b"EMBERC\x00\x01"
FORMAT_VERSION = 1
SUFFIX = ".emberc"
_HEADER = struct.Struct("<8sIQ32s")


class CorruptEntry(Exception):
    """The file is not a valid cache entry; the message says what is wrong."""


# ---------------------------------------------------------------------------- locations


def user_cache_root() -> Path:
    """The per-user cache folder (for sources in folders ember cannot write)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ember"


def runtime_directory() -> Path | None:
    """Where ember's own cached object code (the runtime) goes."""
    root = Path(config.CACHE_DIR).absolute() if config.CACHE_DIR else user_cache_root()
    folder = root / "ember-runtime"
    return folder if _writable(folder) else None


def mirrored(root: Path, folder: str | os.PathLike) -> Path:
    """`folder`'s absolute path re-rooted under `root` (a drive letter loses its colon)."""
    relative = str(Path(os.path.abspath(folder))).lstrip(os.sep).replace(":", "")
    return root / relative


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)


def entry_name(stem: str, qualname: str, selector: str) -> str:
    """`<module>.<qualname>.<selector>.emberc`, selector a digest of argument types and
    options (the full key is checked inside the file)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", qualname)
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}"
    return f"{stem}.{safe}.{selector}.{tag}{SUFFIX}"


# ---------------------------------------------------------------------------- the format


def write_entry(path: Path, payload: bytes) -> None:
    """Write atomically: a temporary file in the same folder renamed over `path`."""
    checksum = hashlib.blake2b(payload, digest_size=32).digest()
    header = _HEADER.pack(MAGIC, FORMAT_VERSION, len(payload), checksum)
    handle, temporary = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(header)
            stream.write(payload)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def read_entry(path: Path) -> bytes | None:
    """The payload of a valid entry; None when there is no file; CorruptEntry otherwise."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise CorruptEntry(f"cannot be read ({error})") from None
    if len(data) < _HEADER.size:
        raise CorruptEntry("is truncated (shorter than its header)")
    magic, version, length, checksum = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise CorruptEntry("is not an ember cache file (wrong magic number)")
    if version != FORMAT_VERSION:
        raise CorruptEntry(f"has format version {version}, not {FORMAT_VERSION}")
    payload = data[_HEADER.size :]
    if len(payload) != length:
        raise CorruptEntry(f"is truncated ({len(payload)} of {length} payload bytes)")
    if hashlib.blake2b(payload, digest_size=32).digest() != checksum:
        raise CorruptEntry("is corrupted (checksum mismatch)")
    return payload


def clear(folder: str | os.PathLike | None = None) -> int:
    """Remove ember cache entries under `folder` (default: `EMBER_CACHE_DIR` or the user
    cache folder); returns how many files were removed. `__pycache__` folders of a project
    can be given explicitly."""
    root = Path(folder) if folder is not None else Path(config.CACHE_DIR or user_cache_root())
    removed = 0
    if not root.exists():
        return 0
    for path in root.rglob(f"*{SUFFIX}*"):
        if path.is_file():
            path.unlink()
            removed += 1
    return removed
