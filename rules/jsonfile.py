"""Reading the project's JSON files (scenes, maps, cards, cameras) with one kind of error.

Every file a user hands over can be missing, unreadable or not JSON; each of those
must become a one-line message naming the file and, for JSON, the line and column,
raised as the caller's own error type so the CLI reports it as bad input.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_json(path: str | Path, what: str, error: type[Exception]) -> Any:
    """The parsed contents of ``path``; ``what`` names the file in messages ("scene file")."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot read the {what} ({exc})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
