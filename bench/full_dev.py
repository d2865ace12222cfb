"""Full mode on its development palaces: games 2001-2010 and three of 120 pieces
(2016-2018), other seeds than the bench's (1000 on), the bench's renderer and cameras,
four views a quarter turn apart, the true poses given so that a change to the carving
or the parse is judged by the reading alone. Settings are chosen on those; five more
(2011-2015) are held out to report, and ``python3 -m bench.vision --only full`` then
says whether the settings hold on the bench's palaces.

    python3 -m bench.full_dev [--set dev|large|held ...] [--cache DIR]
                              [--only 2004_120 ...] [--model] [-v]

The renders are kept in ``--cache`` (a minute or two to make the first time).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import pickle
import sys
import time
from collections import Counter
from pathlib import Path

from bench.full_palace import FullTally, Views, key_level, palace_keys, palace_views
from bench.full_seen import seen_keys, show_seen
from calibration.evidence import BoardLocation
from vision.full import read_palace

DEV = ((2001, 30), (2002, 10), (2003, 40), (2004, 120), (2005, 10), (2006, 30), (2007, 30),
       (2008, 30), (2009, 60), (2010, 60))
"""(game seed, pieces): the first scene of each game with at least that many pieces."""
LARGE = ((2016, 120), (2017, 120), (2018, 120))
"""Three more development palaces of 120 pieces (the search's settings were checked on them)."""
HELD_OUT = ((2011, 30), (2012, 60), (2013, 120), (2014, 40), (2015, 10))
"""Held-out palaces: measured to report, never tuned on."""
SETS = {"dev": DEV, "large": LARGE, "held": HELD_OUT}


@functools.cache
def renderer_version() -> str:
    """A digest of the sources a render depends on (the twin, the rules' bot games): a
    render kept from before a change to either is not read as if it were current."""
    digest = hashlib.sha1()
    root = Path(__file__).resolve().parent.parent
    for path in sorted([*root.glob("twin/**/*.py"), *root.glob("rules/**/*.py")]):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


UPPER = 2
"""The level from which pieces count as upper ones (they stand on hidden supports)."""


def _upper(by_level: Counter[int]) -> int:
    """How many of a tally's by-level counts stand at :data:`UPPER` or above."""
    return sum(n for z, n in by_level.items() if z >= UPPER)


class CacheError(Exception):
    """A kept render that cannot be read back."""


def dev_views(seed: int, pieces: int, cache: Path) -> Views:
    """The palace and its four views, rendered once per renderer version and kept in
    ``cache`` (rendered again where the kept one predates the pixels each view shows of
    each piece)."""
    path = cache / f"v{seed}_{pieces}_{renderer_version()}.pkl"
    if path.exists():
        try:
            with path.open("rb") as f:
                kept: Views = pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError) as err:
            raise CacheError(f"{path}: kept render unreadable ({err}); delete it") from err
        if kept.shown is not None and kept.whole is not None:
            return kept
    views = palace_views(seed, pieces)
    cache.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        pickle.dump(views, f)
    return views


def _short(key: tuple[object, ...]) -> str:
    """A piece's place key (:func:`rules.pieces.place_key`) in a few words."""
    kind, x, y, z, axis, colour, _corner_turn = key
    extra = f" {axis.value}" if axis is not None else ""  # type: ignore[attr-defined]
    extra += f" {colour}" if colour else ""
    return f"{kind.value} {x},{y},{z}{extra}"  # type: ignore[attr-defined]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default="/tmp/palace-full-dev",
                    help="folder the renders are kept in")
    ap.add_argument("--set", nargs="+", default=["dev"], choices=sorted(SETS),
                    help="which palaces: dev (games 2001-2010, the default), large (three of "
                         "120 pieces, 2016-2018), held (held out, 2011-2015: report only)")
    ap.add_argument("--only", nargs="*", default=None, metavar="SEED_PIECES",
                    help="palaces to read, as 2004_120")
    ap.add_argument("--model", action="store_true",
                    help="let the learned surface model empty the space above each view's "
                         "surface (vision.surface)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="list each palace's missed and extra pieces by kind")
    args = ap.parse_args(argv)
    names = {f"{s}_{n}": (s, n) for name in args.set for s, n in SETS[name]}
    chosen = args.only or list(names)
    unknown = [c for c in chosen if c not in names]
    if unknown:
        print(f"--only: no palace {unknown[0]} in --set {' '.join(args.set)} (it has "
              f"{', '.join(names)})",
              file=sys.stderr)
        return 2
    tally = FullTally()
    for name in chosen:
        try:
            v = dev_views(*names[name], Path(args.cache))
        except CacheError as err:
            print(err, file=sys.stderr)
            return 2
        located = [BoardLocation(True, pose=p, rotation=0, camera=v.camera) for p in v.poses]
        started = time.perf_counter()
        reading = read_palace(v.frames, v.camera, ground=v.ground, locations=located,
                              model=args.model)
        seconds = (time.perf_counter() - started) / len(v.frames)
        got, want = palace_keys(list(reading.pieces)), palace_keys(list(v.palace.pieces))
        tally.palaces += 1
        tally.add(got, want, v.shown, v.whole)
        upper_right = sum(key_level(k) >= UPPER for k in got & want)
        upper_truth = sum(key_level(k) >= UPPER for k in want)
        print(f"{name}: right {len(got & want)} read {len(got)} truth {len(want)}, "
              f"levels {UPPER}+ {upper_right} of {upper_truth}, {seconds:.2f} s a view",
              flush=True)
        if args.verbose:
            assert v.shown is not None
            print("  missed:", "; ".join(
                f"{_short(k)} ({max(v.shown[k])} px)" if k in seen_keys(v.shown)
                else f"{_short(k)} (hidden)" for k in sorted(want - got, key=_short)))
            print("  extra:", "; ".join(sorted(map(_short, got - want))))
    p, r, f1 = tally.f1()
    print(f"P {p:.3f} R {r:.3f} F1 {f1:.3f} ({tally.right} right, {tally.read} read, "
          f"{tally.truth} to read)")
    print(f"levels {UPPER} and up: {_upper(tally.level_right)} of "
          f"{_upper(tally.level_truth)} read right")
    print("missed by kind:", dict(tally.missed.most_common()), "extra by kind:",
          dict(tally.extra.most_common()))
    print("missed though some view shows them, by kind:", dict(tally.missed_seen.most_common()))
    show_seen(tally.seen)
    return 0


if __name__ == "__main__":
    sys.exit(main())
