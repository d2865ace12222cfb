"""The `palace` command: one subcommand per module in :mod:`palace.commands`.

Every subcommand turns bad input into a one-line message and exit code 2; a legal or
illegal result is 0 or 1. Nobody at a game table should ever see a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

# Subcommand modules, in the order `palace --help` lists them.
COMMANDS = (
    "demo", "watch", "serve", "replay", "score", "check", "render", "dataset", "calibrate",
    "locate", "reconstruct", "map", "schemas",
)


class UsageError(Exception):
    """Bad input the user can fix; the message says what is wrong and where."""


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line (usage stays behind ``--help``), exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """An argparse type for a whole number from ``low`` to ``high``, said so when not."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not between {low} and {high}")
        return value

    parse.__name__ = "whole number"
    return parse


SEED = whole_number(0, 2**32 - 1)
"""Seeds are what numpy's generators take: non-negative, 32 bits."""


def _os_message(exc: OSError) -> str:
    """``path: reason`` for an error the operating system raised (disk full, no access)."""
    where = f"{exc.filename}: " if exc.filename else ""
    return f"{where}{exc.strerror or exc}"


def _input_errors() -> tuple[type[BaseException], ...]:
    from calibration.camera import CameraFileError
    from calibration.image_file import ImageFileError
    from rules.maps import MapError
    from rules.palace import PalaceError
    from rules.scene import SceneError

    return (UsageError, SceneError, MapError, PalaceError, CameraFileError, ImageFileError)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="palace",
        description="Palace Eye: watches a game of LEGO Monkey Palace and keeps score.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"palace.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"palace.commands.{name}":
                continue  # not built yet
            raise
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = int(args.run(args))
    except _input_errors() as exc:
        # One line, even where a file name or a key in the file holds a line break.
        print(f"palace {args.command}: {exc}".replace("\n", "\\n"), file=sys.stderr)
        return 2
    except OSError as exc:  # a disk that fills up, a file that vanished while writing
        if isinstance(exc, BrokenPipeError):  # output piped into `head` and closed early
            sys.stderr.close()
            return 0
        print(f"palace {args.command}: {_os_message(exc)}".replace("\n", "\\n"),
              file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":
    # Run as `python -m palace.cli`, this file is `__main__`, and the commands' import of
    # `palace.cli` would make a second UsageError that the first `main` does not catch.
    from palace.cli import main as package_main

    sys.exit(package_main())
