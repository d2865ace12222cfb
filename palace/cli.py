"""The `palace` command: one subcommand per module in :mod:`palace.commands`.

Every subcommand turns bad input into a one-line message and exit code 2; a legal or
illegal result is 0 or 1. Nobody at a game table should ever see a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Subcommand modules, in the order `palace --help` lists them.
COMMANDS = ("score", "check", "demo", "render", "dataset", "calibrate", "locate", "serve")


class UsageError(Exception):
    """Bad input the user can fix; the message says what is wrong and where."""


def _input_errors() -> tuple[type[BaseException], ...]:
    from calibration.camera import CameraFileError
    from rules.maps import MapError
    from rules.palace import PalaceError
    from rules.scene import SceneError

    return (UsageError, SceneError, MapError, PalaceError, CameraFileError)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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
        print(f"palace {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head` and closed early
        sys.stderr.close()
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
