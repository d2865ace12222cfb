"""Checking where a command will write before it starts working.

A render or a calibration can take seconds to minutes; finding out afterwards that
``--out`` names a folder, lies in a folder that does not exist or cannot be written
wastes that work and, before this check, ended in a traceback. Every command that
writes calls :func:`output_file` or :func:`output_folder` on each path first. A disk
that fills up during the write is still only found then; :func:`palace.cli.main` turns
that ``OSError`` into the same one-line message.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from palace.cli import UsageError


def _writable_folder(folder: Path, option: str, path: Path) -> None:
    if not folder.exists():
        raise UsageError(f"{option} {path}: no such folder {folder}")
    if not folder.is_dir():
        raise UsageError(f"{option} {path}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {path}: the folder {folder} cannot be written to")


def output_file(path: str | Path, option: str, suffixes: Sequence[str] = ()) -> Path:
    """``path`` if a file can be written there: not a folder, in a folder that exists and
    is writable, with one of ``suffixes`` (any when empty). ``option`` names the argument
    in messages (``--out``)."""
    path = Path(path)
    if str(path) == "" or path.name in ("", ".", ".."):
        raise UsageError(f"{option} {str(path)!r}: give a file name")
    if suffixes and path.suffix.lower() not in suffixes:
        raise UsageError(f"{option} {path}: the file name must end in {' or '.join(suffixes)}")
    if path.is_dir():
        raise UsageError(f"{option} {path}: is a folder; give a file name inside it")
    if path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{option} {path}: the file cannot be written to")
    _writable_folder(path.parent, option, path)
    return path


def output_folder(path: str | Path, option: str) -> Path:
    """``path`` if files can be written inside it: a folder, or a new one whose parent
    folder exists and is writable."""
    if str(path) == "":
        raise UsageError(f"{option} '': give a folder name")
    path = Path(path)
    if path.exists():
        if not path.is_dir():
            raise UsageError(f"{option} {path}: exists and is not a folder")
        if not os.access(path, os.W_OK | os.X_OK):
            raise UsageError(f"{option} {path}: the folder cannot be written to")
        return path
    _writable_folder(path.resolve().parent, option, path)
    return path
