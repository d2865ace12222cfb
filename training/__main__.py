"""The new-piece model's recipe: make the data set, train, evaluate.

Reproducing the committed ``models/new_pieces.onnx`` (torch from the ``train`` extra:
``pip install -e .[train]``; the data set lives outside the repository). Its set has the
twin's room light, ``RenderOptions(room_light=True)``, in two wide-look games of three,
its deep shadows, ``RenderOptions(deep_shadows=True)``, in two others of three, and a
player's card laid over the board's edge between the pictures or picked up
(``--cards mix``: in about three wide-look turns of ten); its two halves are made side by
side and joined::

    python3 -m training create_dataset --pairs 250 --seed 100000 --room-light mix \\
        --deep-shadows mix --cards mix --out /work/data/newpieces5/train_a
    python3 -m training create_dataset --pairs 250 --seed 110000 --room-light mix \\
        --deep-shadows mix --cards mix --out /work/data/newpieces5/train_b
    mkdir /work/data/newpieces5/train
    for i in $(seq 0 249); do n=$(printf %05d $i); m=$(printf %05d $((i + 250)))
        cp /work/data/newpieces5/train_a/pair_$n.npz /work/data/newpieces5/train/pair_$n.npz
        cp /work/data/newpieces5/train_b/pair_$n.npz /work/data/newpieces5/train/pair_$m.npz
    done
    python3 -m training train --data /work/data/newpieces5/train \\
        --out models/new_pieces.onnx --seed 1 --epochs 12 --minutes 40
    python3 -m training create_dataset --pairs 60 --seed 200000 --look wide \\
        --out /work/data/newpieces3/val_wide
    python3 -m training create_dataset --pairs 60 --seed 200000 --look wide \\
        --cards on --out /work/data/newpieces5/val_wide_cards
    python3 -m training create_dataset --pairs 60 --seed 200000 --look wide \\
        --room-light on --out /work/data/newpieces3/val_wide_room
    python3 -m training create_dataset --pairs 60 --seed 200000 --look wide \\
        --room-light on --deep-shadows on --out /work/data/newpieces4/val_wide_room_deep
    python3 -m training evaluate --data /work/data/newpieces3/val_wide

(2,004 steps, 13 to 20 minutes on the 2-core machine: the epochs end it, not the
minutes. The losses repeat to the fourth decimal over the first steps, then torch's CPU
kernels drift with the machine's load: the same data trained for nine epochs and run
again held out 0.886 and 0.675 with cards against 0.888 and 0.682.) Nine epochs
(``--epochs 9``) was tried beside it and read fewer development turns right
(docs/vision-log.md, "The card-trained model committed"). The model before it is the
recipe without ``--cards mix``, nine epochs (its set under ``/work/data/newpieces4``);
the one before that, that recipe trained for six epochs
(``--epochs 6 --minutes 28``); the one before that, without ``--deep-shadows mix`` (its
set under ``/work/data/newpieces3``); and the one before that, on a set without the
room light::

    python3 -m training create_dataset --pairs 500 --seed 100000 --out /work/data/newpieces/train
    python3 -m training train --data /work/data/newpieces/train \\
        --out models/new_pieces.onnx --seed 1 --epochs 6 --minutes 22

``train --near-changed SHARE`` centres that share of the crops on pixels that
changed but show no new piece (tried with the cards, not kept; 0, the default, draws
as the models before did). ``train --widths W0 W1 W2 W3`` sets the network's channels
(the committed 12 16 24 32; 16 24 32 48 was tried) and ``create_dataset --laid things``
lays or picks up a slab of any size, thickness and colour in place of half the cards
(tried with the committed recipe's seeds, not kept: docs/vision-log.md, "What the
players are asked; a phone laid over the edge").

``train`` takes several ``--data`` folders at once; ``--workers N`` makes the training
crops in N processes (each seeded by the run's seed and its number, so the same command
repeats its model on the CPU; a GPU's own kernels need not) and ``--device cuda`` runs
the network on a GPU: how a larger set was tried (docs/vision-log.md, "Eight times
the data and nine times the steps: tried, not kept"), not how the committed model was
made.

``train --height-map`` adds the second map, the height of the new surface each pixel
shows (the data sets carry its label): an experiment that docs/vision-log.md reports
("The height map, and why the decoder does not use it yet"), not the committed model.

Full mode's surface model (``models/full_surface.onnx``: the chance that a pixel shows a
piece against the bare board learned from its own view, and the height of the surface it
shows; :mod:`vision.surface`, off by default), on palaces of games 3000 on, four views
each, one game in four on a random map in the wide look. Made on one machine with a GPU
and 16 cores (``training/full_surface.sh``): 16 parts of 50 games side by side (seeds
3000 + 60 k, 3,200 pairs in 93 s), then::

    python3 -m training train --data /tmp/.../part_* --out models/full_surface.onnx \\
        --seed 1 --epochs 1000 --minutes 5.5 --height-map --workers 15 --device cuda

(14,658 steps in the 5.5 minutes on an H100: time ended it; a GPU's kernels need not
repeat the model bit for bit. The model before it: 720 pairs of games 3000-3189 without
the wide games, ``--epochs 40 --minutes 32`` on a shared two-core CPU, 626 steps.)
``train --geometry`` (``TRAIN_FLAGS=--geometry training/full_surface.sh``) also feeds
the network where each pixel's ray runs (:func:`vision.surface.geometry_channels`, which
full mode's pairs carry); the reader feeds them to a model whose input has them. Tried
on the same pairs, 4.5 minutes with 7 workers beside the same run without them; not kept
(docs/vision-log.md, "The camera's geometry as input"). Full mode's held-out pairs (games
3050-3059 lie between the parts)::

    python3 -m training create_full_dataset --games 10 --seed 3050 --out .../full_held
    python3 -m training evaluate --data .../full_held --model models/full_surface.onnx

Sets beyond the training range for ``evaluate``::

    python3 -m training create_dataset --pairs 40 --seed 201000 --look old --out .../val_old
    python3 -m training create_dataset --pairs 40 --seed 202000 --width 640 --height 480 \\
        --out .../val_640
    python3 -m training create_dataset --pairs 40 --seed 200000 --look wide --blur 3 \\
        --out .../val_blur
    python3 -m training create_dataset --pairs 40 --seed 200000 --look wide \\
        --tint 1.35,0.95,0.6 --out .../val_tint

The map read's ink model (``calibration/ink_model.json``, no torch needed)::

    python3 -m training fit_inks --seed 50200 --maps 300 --out calibration/ink_model.json

The fitted confidence (``vision/confidence_model.json``, no torch needed; the penalty and
the threshold chosen by cross-validation on its rows, checked on the development sets,
docs/vision-log.md)::

    python3 -m training fit_confidence --seed 60000 61000 62000 63000 --turns 150 \\
        --l2 100 --threshold 0.923 --out vision/confidence_model.json

(``--second-view 180`` fits on each turn read from its first view and from two webcams
too; measured and not committed, docs/vision-log.md, "Two webcams in the camera loop".)

Seeds: training games from 100000 on, validation from 200000 on; the bench's games
(5000-5999), the tests' (100-199) and the independent renderer's frames are never used.
Training stops at ``--minutes`` of wall time if that comes first (so on a slower machine
the model differs slightly from the committed one).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

INK_SEED = 50200
"""First seed the ink model may fit on."""


def _degrees(text: str) -> float:
    value = float(text)
    if not -360.0 <= value <= 360.0:  # NaN fails too
        raise argparse.ArgumentTypeError("degrees round the table, -360 to 360")
    return value


def _tint(text: str) -> tuple[float, float, float]:
    parts = [float(v) for v in text.split(",")]
    if len(parts) != 3 or not all(0.05 <= v <= 20 for v in parts):
        raise argparse.ArgumentTypeError("three gains B,G,R between 0.05 and 20")
    return parts[0], parts[1], parts[2]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python3 -m training", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    verbs = parser.add_subparsers(dest="verb", required=True)
    make = verbs.add_parser("create_dataset", help="render turn pairs, cut to regions")
    make.add_argument("--pairs", type=int, required=True)
    make.add_argument("--seed", type=int, required=True)
    make.add_argument("--out", type=Path, required=True)
    make.add_argument("--look", choices=("mix", "wide", "old"), default="mix")
    make.add_argument("--width", type=int)
    make.add_argument("--height", type=int)
    make.add_argument("--blur", type=float, default=0.0)
    make.add_argument("--tint", type=_tint)
    make.add_argument("--room-light", choices=("off", "mix", "on"), default="off",
                      help="the room's light (pieces shading pieces, a fill light of its "
                           "own colour): in no game, in two wide-look games of three, or in all")
    make.add_argument("--deep-shadows", choices=("off", "mix", "on"), default="off",
                      help="deep shadows (darker, sharper cast shadows, the card hidden from "
                           "the room under arches): in no game, in two wide-look games of "
                           "three, or in all")
    make.add_argument("--seams", choices=("off", "on"), default="off",
                      help="seams (dark lines where pieces stand on pieces) in every "
                           "wide-look game; off keeps the committed model's sets as they were")
    make.add_argument("--cards", choices=("off", "mix", "on"), default="off",
                      help="a card laid over the board's edge between the pictures, or "
                           "picked up: in no turn, in some of the wide-look turns, or in "
                           "every wide-look turn")
    make.add_argument("--laid", choices=("cards", "things"), default="cards",
                      help="what --cards lays or picks up: a card, or a card or half the "
                           "time a slab of any size, thickness and colour")
    fit = verbs.add_parser("train", help="train the network, write ONNX")
    fit.add_argument("--data", type=Path, required=True, nargs="+",
                     help="one or more folders of pairs (create_dataset's --out)")
    fit.add_argument("--out", type=Path, required=True)
    fit.add_argument("--seed", type=int, required=True)
    fit.add_argument("--epochs", type=int, default=4)
    fit.add_argument("--minutes", type=float)
    fit.add_argument("--height-map", action="store_true",
                     help="also learn the height of the new surface (the experiment of "
                          "docs/vision.md; not the committed model)")
    fit.add_argument("--geometry", action="store_true",
                     help="also feed each pixel's ray (full mode's pairs carry it; "
                          "vision.surface.geometry_channels)")
    fit.add_argument("--workers", type=int, default=0,
                     help="processes making the training crops (0: this one, from one "
                          "generator; the committed model's count is in its recipe)")
    fit.add_argument("--device", default="cpu", help="torch's device: cpu or cuda")
    fit.add_argument("--widths", type=int, nargs=4,
                     metavar=("W0", "W1", "W2", "W3"),
                     help="the network's channels at its four levels (default 12 16 24 "
                          "32, the committed model's)")
    fit.add_argument("--near-changed", type=float, default=0.0, metavar="SHARE",
                     help="share of crops centred on a change that is no new piece (a card "
                          "laid or picked up, a piece's shadow); 0 as the models before")
    inks = verbs.add_parser("fit_inks", help="fit the map read's ink model on twin maps")
    inks.add_argument("--seed", type=int, default=INK_SEED)
    inks.add_argument("--maps", type=int, default=300)
    inks.add_argument("--out", type=Path, required=True)
    sure = verbs.add_parser("fit_confidence",
                            help="fit the pieces' confidence on read twin turns")
    sure.add_argument("--seed", type=int, nargs="+", required=True,
                      help="first game of each set of turns (60000 on)")
    sure.add_argument("--turns", type=int, default=150, help="turns of each set")
    sure.add_argument("--l2", type=float, required=True)
    sure.add_argument("--threshold", type=float, required=True,
                      help="the chance of being right under which a piece is flagged")
    sure.add_argument("--out", type=Path, required=True)
    sure.add_argument("--rows", type=Path,
                      help="an .npz of the read rows: read from it where it exists, else "
                           "written there (another penalty or threshold then needs no reading)")
    sure.add_argument("--second-view", type=_degrees, metavar="DEG",
                      help="each turn also seen by a second webcam this many degrees round "
                           "the table, and read from both views as well as from the first")
    whole = verbs.add_parser("create_full_dataset",
                             help="full mode's pairs: palace views beside their learned bare board")
    whole.add_argument("--games", type=int, required=True)
    whole.add_argument("--seed", type=int, required=True)
    whole.add_argument("--out", type=Path, required=True)
    score = verbs.add_parser("evaluate", help="pixel scores: model vs classical")
    score.add_argument("--data", type=Path, required=True)
    score.add_argument("--model", default=None)
    return parser


def _check_seed(seed: int) -> str | None:
    if 5000 <= seed < 6000 or 100 <= seed < 200:
        return f"--seed {seed}: seeds 100-199 (tests) and 5000-5999 (bench) are held out"
    return None


def _fit_inks(seed: int, maps: int, out: Path) -> int:
    if not (seed >= INK_SEED and 1 <= maps <= 5000):
        print(f"--seed {seed} --maps {maps}: the ink model fits on seeds from {INK_SEED} "
              "(the map read's bench and development views lie below), 1 to 5000 maps",
              file=sys.stderr)
        return 2
    from training.inks import fit, twin_samples
    samples = list(twin_samples(seed, maps))
    fit(samples, f"wide-twin maps, seeds {seed}-{seed + maps - 1}").save(out)
    print(f"{out}: {len(samples)} colour groups of {maps} maps")
    return 0


def _fit_confidence(seeds: list[int], turns: int, l2: float, threshold: float,
                    out: Path, cache: Path | None, second_view: float | None = None) -> int:
    from training.confidence import FIT_SEED, fit, rows_of
    from training.pairs import FRESH_GAMES_SEED, twin_turns
    from vision.confidence_fit import FEATURES
    if not (min(seeds) >= FIT_SEED and max(seeds) < FRESH_GAMES_SEED and 1 <= turns <= 5000
            and l2 > 0 and 0 < threshold < 1):
        print(f"--seed {seeds} --turns {turns} --l2 {l2} --threshold {threshold}: the "
              f"confidence fits on seeds {FIT_SEED} to {FRESH_GAMES_SEED - 1} (the "
              "development sets lie below, the fresh check's games above), 1 to 5000 "
              "turns a seed, a penalty above 0 (without one a feature that parts right "
              "from wrong pieces outright drives its weight without bound), a threshold "
              "in (0, 1)", file=sys.stderr)
        return 2
    import numpy as np
    named = ", ".join(map(str, seeds))
    seen = "" if second_view is None else f", also seen {second_view:g} degrees round"
    recipe = f"{turns} {named}{seen}; {' '.join(FEATURES)}"
    if cache is not None and cache.suffix != ".npz":
        cache = cache.with_name(cache.name + ".npz")  # where numpy writes it
    if cache is not None and cache.exists():
        kept = np.load(cache)
        if str(kept["recipe"]) != recipe:
            print(f"{cache}: recipe: rows of {kept['recipe']}, not of {recipe} (other turns "
                  "or another feature list: read them again into another file)",
                  file=sys.stderr)
            return 2
        rows, right = kept["rows"], kept["right"]
    else:
        parts = [rows_of(twin_turns(turns, seed=seed, second_view=second_view))
                 for seed in seeds]
        rows = np.vstack([r for r, _ in parts])
        right = np.concatenate([y for _, y in parts])
        if cache is not None:
            np.savez(cache, rows=rows, right=right, recipe=recipe)
    fitted = fit(rows, right, l2, threshold,
                 f"wide-twin turns, the first {turns} of the games from each of {named} on"
                 + ("" if second_view is None else
                    f", each read from its first view and from it with a second webcam "
                    f"{second_view:g} degrees round the table"))
    if not fitted.converged:
        print(f"warning: the fit did not converge in {fitted.steps} Newton steps (the last "
              f"moved a weight by {fitted.last_step:.2g}); a larger --l2 bounds it",
              file=sys.stderr)
    fitted.model.save(out)
    print(f"{out}: {len(right)} pieces read, {int((~right).sum())} wrong")
    return 0


FULL_HELD_OUT = ((1000, 1010), (2001, 2019))
"""Games full mode's bench reads (1000-1009), its settings are chosen on (2001-2010 and
2016-2018) and it reports on, never tuned (2011-2015)."""


def _create_full(games: int, seed: int, out: Path) -> int:
    held = [f"{a}-{b - 1}" for a, b in FULL_HELD_OUT if seed < b and a < seed + games]
    problem = _check_seed(seed) or (f"--games {games}: must be 1 to 5000"
                                    if not 1 <= games <= 5000 else None)
    if problem is None and held:
        problem = f"--seed {seed} --games {games}: games {held[0]} are held out"
    if problem:
        print(problem, file=sys.stderr)
        return 2
    from training.full_pairs import create_full_dataset
    print(f"{out}: {create_full_dataset(out, games, seed)} pairs")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.verb == "fit_inks":
        return _fit_inks(args.seed, args.maps, args.out)
    if args.verb == "fit_confidence":
        return _fit_confidence(args.seed, args.turns, args.l2, args.threshold, args.out,
                               args.rows, args.second_view)
    if args.verb == "create_full_dataset":
        return _create_full(args.games, args.seed, args.out)
    if args.verb == "create_dataset":
        problem = _check_seed(args.seed)
        if problem is None and args.pairs < 1:
            problem = f"--pairs {args.pairs}: must be at least 1"
        if problem is None and (args.width is None) != (args.height is None):
            problem = "--width and --height go together"
        if problem is None and not 0 <= args.blur <= 20:
            problem = f"--blur {args.blur}: must be between 0 and 20 pixels"
        if problem:
            print(problem, file=sys.stderr)
            return 2
        from training.dataset import create_dataset
        size = (args.width, args.height) if args.width else None
        if size and not (160 <= size[0] <= 4096 and 120 <= size[1] <= 4096):
            print(f"--width/--height {size}: outside 160x120..4096x4096", file=sys.stderr)
            return 2
        n = create_dataset(args.out, args.pairs, args.seed, look=args.look, size=size,
                           blur=args.blur, tint=args.tint, room_light=args.room_light,
                           deep_shadows=args.deep_shadows, seams=args.seams,
                           cards=args.cards, laid=args.laid)
        print(f"{args.out}: {n} pairs")
        return 0
    folders = args.data if isinstance(args.data, list) else [args.data]
    for folder in folders:
        if not folder.is_dir() or not any(folder.glob("pair_*.npz")):
            print(f"{folder}: no pair_*.npz files (make them with create_dataset)",
                  file=sys.stderr)
            return 2
    if args.verb == "train":
        problem = _check_seed(args.seed) or (
            f"--epochs {args.epochs}: must be at least 1" if args.epochs < 1 else None) or (
            f"--workers {args.workers}: must be 0 to 64" if not 0 <= args.workers <= 64
            else None)
        if problem:
            print(problem, file=sys.stderr)
            return 2
        try:
            from training.train import train
        except ImportError as exc:
            print(f"train needs torch (pip install -e .[train]): {exc}", file=sys.stderr)
            return 2
        try:
            result = train(folders, args.out, args.seed, args.epochs, args.minutes,
                           height_map=args.height_map, workers=args.workers,
                           geometry=args.geometry, device=args.device,
                           near_changed=args.near_changed,
                           widths=tuple(args.widths) if args.widths else None)
        except ValueError as exc:
            print(exc, file=sys.stderr)
            return 2
        print(f"{args.out}: {result['steps']} steps, loss {result['loss']:.4f}, "
              f"{result['seconds']:.0f} s")
        return 0
    from models import ModelError
    from training.evaluate import evaluate
    from vision.new_pieces import MODEL
    try:
        print(evaluate(args.data, args.model or MODEL))
    except (ModelError, ValueError) as exc:
        print(exc, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
