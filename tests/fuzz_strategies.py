"""Hypothesis strategies for bad input: every file format, pictures and the CLI's arguments.

Shared by the suite (a bounded number of examples, in-process) and ``bench/fuzz.py``
(thousands, each in its own process under a time and memory limit). Files are drawn
three ways: garbage (text, bytes, deep nesting, numbers JSON cannot hold), JSON of the
wrong shape, and mutations of a valid file (a value swapped for an edge value, a key
dropped, a list blown up), since the last reach the checks deepest.

A CLI case is ``(argv, files)``: ``argv`` may hold ``{dir}``, a fresh folder the runner
creates, and ``files`` maps names inside it to their bytes.
"""

from __future__ import annotations

import copy
import json
import struct
import zlib
from typing import Any

import cv2
import numpy as np
from hypothesis import strategies as st

from rules.maps import SETUP_PIECES, load_map, piece_to_json

Case = tuple[list[str], dict[str, bytes]]

CAMERA = {
    "width": 320,
    "height": 180,
    "camera_matrix": [[250.0, 0, 160.0], [0, 250.0, 90.0], [0, 0, 1]],
    "dist_coeffs": [-0.08, 0.01, 0, 0, 0],
}
POSE = {"rvec": [2.2, 0.0, 0.0], "tvec": [-128.0, 100.0, 420.0]}
SCENE = {"format": "palace-scene/1", "map": "1", "pieces": [piece_to_json(p) for p in SETUP_PIECES]}
PROFILE = {"format": "palace-profile/1", "camera": CAMERA,
           "tables": {"default": {"pose": POSE, "rotation": 1}}}
VALID = {"scene": SCENE, "map": load_map("1").to_json(), "camera": CAMERA, "pose": POSE,
         "profile": PROFILE}
"""One valid file per format: what the mutations start from."""

EDGE_VALUES: list[Any] = [
    None, True, False, 0, -1, 1, 3.5, -0.0, 1e308, -1e308, 1e-308, 10**30, -(10**30),
    float("nan"), float("inf"), "", "x", "\u0000", "1", [], {}, [[]], [1, 2], {"a": {}},
    [0] * 300, "L" * 32, [[0, 0, 0]] * 3,
]
"""Values that have broken parsers before: wrong types, NaN, huge, tiny, empty, long."""

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                 max_size=4),
    max_leaves=12,
)


def _slots(doc: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside ``doc`` (dict keys and list indices)."""
    found = [path]
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += _slots(value, (*path, key))
    elif isinstance(doc, list):
        for index, value in enumerate(doc[:40]):  # a map's 32 rows are plenty
            found += _slots(value, (*path, index))
    return found


@st.composite
def mutated(draw: st.DrawFn, doc: Any) -> Any:
    """``doc`` with one to three values replaced or dropped, or one blown up into a list."""
    doc = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, 3))):
        slots = [s for s in _slots(doc) if s]
        if not slots:
            return copy.deepcopy(draw(st.sampled_from(EDGE_VALUES)))
        path = draw(st.sampled_from(slots))
        parent = doc
        for part in path[:-1]:
            parent = parent[part]
        key = path[-1]
        action = draw(st.sampled_from(["edge", "edge", "drop", "blow up", "random"]))
        if action == "drop":
            del parent[key]
        elif action == "blow up":  # once only: three in a row would be 3000 ** 3 values
            parent[key] = [parent[key]] * draw(st.sampled_from([5, 300, 3000]))
            return doc
        elif action == "random":
            parent[key] = draw(json_values)
        else:
            parent[key] = copy.deepcopy(draw(st.sampled_from(EDGE_VALUES)))
    return doc


def _dumps(value: Any) -> bytes:
    return json.dumps(value).encode()  # NaN and Infinity come out as JS literals


garbage_text = st.one_of(
    st.sampled_from([
        b"", b"{", b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 5000, b"NaN", b"1e400",
        b"9" * 5000, b"\xff\xfe\x00", b"null", b"[]", b"{}", b'"palace-scene/1"',
        b'{"format": "palace-scene/1", "pieces": [' + b"[" * 50_000,
    ]),
    st.binary(max_size=60),
    st.text(max_size=60).map(str.encode),
)


def json_file(role: str) -> st.SearchStrategy[bytes]:
    """The bytes of a file in ``role`` (scene, map, camera, pose, profile), mostly bad."""
    good = VALID[role]
    return st.one_of(
        mutated(good).map(_dumps),
        mutated(good).map(_dumps),
        json_values.map(_dumps),
        garbage_text,
        mutated(good).map(lambda d: _dumps(d)[: max(1, len(_dumps(d)) // 2)]),  # cut short
    )


def _png_claiming(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr
            + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr)) + b"\0" * 32)


def _encoded(height: int, width: int, suffix: str) -> bytes:
    pixels = np.random.default_rng(height * 7 + width).integers(0, 255, (height, width, 3))
    ok, data = cv2.imencode(suffix, pixels.astype(np.uint8))
    assert ok
    return data.tobytes()


SIDES = [0, 1, 5, 7, 63, 64, 100, 10_000, 30_000, 60_000, 2**31 - 1, 2**32 - 1]


@st.composite
def picture_file(draw: st.DrawFn, large: bool = False) -> bytes:
    """A picture that lies about its size, is too small, cut short, or not a picture; or
    a real one with no board in it, up to 1920 x 1080 when ``large`` (slow searches)."""
    kinds = ["claims", "tiny", "cut", "flipped", "garbage", "jpeg", "noise"]
    kind = draw(st.sampled_from(kinds))
    if kind == "noise":
        sizes = [(120, 160), (1080, 1920), (2160, 3840)] if large else [(120, 160)]
        return _encoded(*draw(st.sampled_from(sizes)), draw(st.sampled_from([".png", ".jpg"])))
    if kind == "claims":
        return _png_claiming(draw(st.sampled_from(SIDES)), draw(st.sampled_from(SIDES)))
    if kind == "tiny":
        size = draw(st.sampled_from([(1, 1), (1, 100), (5, 7), (100, 1), (63, 200)]))
        return _encoded(*size, draw(st.sampled_from([".png", ".jpg"])))
    good = _encoded(80, 120, draw(st.sampled_from([".png", ".jpg"])))
    if kind == "cut":
        return good[: draw(st.integers(0, len(good) - 1))]
    if kind == "flipped":
        at = draw(st.integers(0, len(good) - 1))
        return good[:at] + bytes([good[at] ^ 0xFF]) + good[at + 1:]
    if kind == "jpeg":  # a JPEG whose frame header claims another size
        at = good.find(b"\xff\xc0")
        if at < 0:
            return good
        side = st.sampled_from(SIDES[:9])
        dims = struct.pack(">HH", draw(side), draw(side))
        return good[: at + 5] + dims + good[at + 9:]
    return draw(garbage_text)


# -- the CLI --------------------------------------------------------------------------------

BAD_NUMBERS = ["-1", "0", "x", "", "99999999999", "1e9", "nan", "3.5", "-99999999999", " "]
BAD_OUTPUTS = ["{dir}", "{dir}/missing/out.png", "{dir}/out.bmp", "{dir}/file.txt/out.png",
               "/proc/out.png", "", "{dir}/out.png/"]
MAPS = ["0", "5", "-1", "", "{dir}/map.json", "{dir}/nope.json", "{dir}", "1"]
PATTERNS = ["chessboard:99999999999x6:25", "chessboard:9x6:0", "chessboard:9x6:1e400", "x", "",
            "chessboard:2x2:1", "chessboard:9x6:25", "chessboard:101x6:25"]


BAD_PORTS = ["0", "-1", "65536", "99999999999", "x", "", "8000.5"]
BAD_HOSTS = ["256.1.1.1", "no such host!", "::1::", "999.0.0.0"]
BAD_DBS = ["{dir}", "{dir}/file.txt/games.sqlite", "{dir}/file.txt"]
"""A folder, a file's path used as a folder, and a file that is not SQLite."""


def _refused_server_options(draw: st.DrawFn) -> list[str]:
    """Server options of which at least one is refused before anything is served."""
    bad = draw(st.sampled_from(["--port", "--host", "--seed", "--turns"]))
    if bad == "--port":
        return ["--port", draw(st.sampled_from(BAD_PORTS))]
    if bad == "--host":
        return ["--host", draw(st.sampled_from(BAD_HOSTS)), "--port", "1"]
    # Options only `palace demo` has: elsewhere argparse refuses them just as well.
    return [bad, draw(st.sampled_from(["x", "", "1.5", "0", "-3"] if bad == "--turns"
                                      else ["x", "", "1.5", "nan"]))]


@st.composite
def board_free_picture(draw: st.DrawFn, large: bool) -> bytes:
    """A readable picture with no board in it: what reaches the searches themselves."""
    sizes = [(120, 160), (480, 640), (1080, 1920)] if large else [(120, 160)]
    return _encoded(*draw(st.sampled_from(sizes)), draw(st.sampled_from([".png", ".jpg"])))


def _watch_source(draw: st.DrawFn, files: dict[str, bytes], large: bool) -> list[str]:
    """A folder of bad pictures, a missing or bad video, or a camera that is not there."""
    kind = draw(st.sampled_from(["--frames", "--frames", "--video", "--camera"]))
    if kind == "--frames":
        for i in range(draw(st.integers(0, 3))):
            files[f"frames/f{i}.png"] = draw(picture_file(large))
        return ["--frames", draw(st.sampled_from(["{dir}/frames", "{dir}/file.txt",
                                                  "{dir}/none", "{dir}/frames"]))]
    if kind == "--video":
        files["clip.mp4"] = draw(garbage_text)
        return ["--video", draw(st.sampled_from(["{dir}/clip.mp4", "{dir}/none.mp4", "{dir}",
                                                 "{dir}/file.txt"]))]
    return ["--camera", draw(st.sampled_from(["99", "-1", "x", "", "{dir}/none",
                                              "{dir}/file.txt", "1e9"]))]


def _maybe(draw: st.DrawFn, *options: str) -> list[str]:
    return list(options) if draw(st.booleans()) else []


@st.composite
def cli_case(draw: st.DrawFn, command: str, large: bool = False) -> Case:
    """One bad run of ``palace COMMAND``: files drawn bad, arguments at their edges
    (``large``: pictures up to 4K, for the bench's time limits)."""
    files: dict[str, bytes] = {"file.txt": b"not a folder"}
    if draw(st.booleans()):
        files["map.json"] = draw(json_file("map"))

    def scene(name: str) -> str:
        files[name] = draw(json_file("scene"))
        return "{dir}/" + name

    def valid(name: str, role: str) -> str:
        files[name] = _dumps(VALID[role])
        return "{dir}/" + name

    if command in ("score", "check"):
        argv = [command, scene("a.json")] + ([scene("b.json")] if command == "score" else [])
        argv += _maybe(draw, "--map", draw(st.sampled_from(MAPS)))
        argv += _maybe(draw, "--json") + _maybe(draw, "--frog-taken")
        if command == "check":
            argv = [a for a in argv if a not in ("--json", "--frog-taken")]
    elif command == "demo":
        # Refusals only: a valid run plays a whole simulated game (and may serve a page).
        argv = ["demo", *_refused_server_options(draw)]
        argv += _maybe(draw, "--db", draw(st.sampled_from(BAD_DBS)))
        argv += _maybe(draw, "--exit") + _maybe(draw, "--no-browser-needed")
    elif command == "render":
        camera_bad = draw(st.booleans())
        camera = "{dir}/cam.json"
        files["cam.json"] = draw(json_file("camera")) if camera_bad else _dumps(CAMERA)
        argv = ["render", scene("s.json") if draw(st.booleans()) else valid("s.json", "scene"),
                "--camera", camera]
        argv += _maybe(draw, "--pose", "{dir}/pose.json")
        files["pose.json"] = draw(json_file("pose"))
        argv += _maybe(draw, "--seed", draw(st.sampled_from(BAD_NUMBERS)))
        argv += ["--out", draw(st.sampled_from([*BAD_OUTPUTS, "{dir}/ok.png"]))]
        argv += _maybe(draw, "--clean") + _maybe(draw, "--allow-impossible")
    elif command == "dataset":
        # Always at least one bad argument: a valid run renders a whole game.
        bad = draw(st.sampled_from(["--games", "--views", "--seed", "--players", "--width",
                                    "--height", "--map", "OUT_DIR"]))
        out = draw(st.sampled_from(["{dir}/file.txt", "{dir}/missing/set"])) \
            if bad == "OUT_DIR" else "{dir}/set"
        argv = ["dataset", out, "--width", "64", "--height", "48"]
        if bad == "--map":
            argv += ["--map", draw(st.sampled_from([m for m in MAPS if m != "1"]))]
        elif bad != "OUT_DIR":
            argv += [bad, draw(st.sampled_from([n for n in BAD_NUMBERS if n != "0"]))]
    elif command == "calibrate":
        images = [f"{{dir}}/v{i}.png" for i in range(draw(st.integers(1, 3)))]
        for i in range(len(images)):
            files[f"v{i}.png"] = draw(picture_file(large))
        argv = ["calibrate", "camera", *images, "--pattern", draw(st.sampled_from(PATTERNS)),
                "--out", draw(st.sampled_from([*BAD_OUTPUTS, "{dir}/cam.json"]))]
        if draw(st.booleans()):
            files["profile.json"] = draw(json_file("profile"))
            argv += ["--profile", draw(st.sampled_from(["{dir}/profile.json",
                                                        "{dir}/missing/p.json", "{dir}"]))]
    elif command == "locate":
        files["photo.png"] = draw(picture_file(large))
        argv = ["locate", "{dir}/photo.png"]
        if draw(st.booleans()):
            files["cam.json"] = draw(json_file("camera"))
            argv += ["--camera", "{dir}/cam.json"]
        if draw(st.booleans()):
            files["profile.json"] = draw(json_file("profile"))
            argv += ["--profile", draw(st.sampled_from(["{dir}/profile.json",
                                                        "{dir}/missing/p.json"]))]
        argv += _maybe(draw, "--map", draw(st.sampled_from(MAPS))) + _maybe(draw, "--json")
    elif command == "schemas":
        argv = ["schemas", "--out", draw(st.sampled_from(["{dir}/file.txt", "{dir}/missing/s",
                                                          "/proc/schemas", ""]))]
    elif command == "map":
        images = [f"{{dir}}/v{i}.png" for i in range(draw(st.integers(1, 2)))]
        for i in range(len(images)):
            files[f"v{i}.png"] = draw(picture_file(large))
        argv = ["map", "read", *images]
        if draw(st.booleans()):  # everything else sound: the pictures reach the search
            files["v0.png"] = draw(board_free_picture(large))
            files["cam.json"] = _dumps(CAMERA)
            return [*argv, "--camera", "{dir}/cam.json", "--out", "{dir}/m.json"], files
        if draw(st.booleans()):
            files["cam.json"] = draw(json_file("camera")) if draw(st.booleans()) \
                else _dumps(CAMERA)
            # One camera file for all, one per picture, or a count that is neither.
            argv += ["--camera", "{dir}/cam.json"] * draw(st.integers(1, 3))
        argv += _maybe(draw, "--out", draw(st.sampled_from([*BAD_OUTPUTS, "{dir}/m.json"])))
        argv += _maybe(draw, "--png", draw(st.sampled_from([*BAD_OUTPUTS, "{dir}/m.png"])))
        if draw(st.booleans()):
            files["profile.json"] = draw(json_file("profile"))
            argv += ["--profile", draw(st.sampled_from(["{dir}/profile.json", "{dir}",
                                                        "{dir}/missing/p.json"]))]
        argv += _maybe(draw, "--json")
    elif command == "reconstruct":

        images = [f"{{dir}}/v{i}.png" for i in range(draw(st.integers(1, 2)))]
        for i in range(len(images)):
            files[f"v{i}.png"] = draw(picture_file(large))
        files["cam.json"] = draw(json_file("camera")) if draw(st.booleans()) \
            else _dumps(CAMERA)
        if draw(st.booleans()):  # everything else sound: the pictures reach the reading
            files["v0.png"] = draw(board_free_picture(large))
            return ["reconstruct", *images, "--camera", valid("cam.json", "camera"),
                    "--before", valid("b.json", "scene"), "--out", "{dir}/s.json"], files
        argv = ["reconstruct", *images, "--camera",
                draw(st.sampled_from(["{dir}/cam.json", "{dir}/none.json", "{dir}"])),
                "--out", draw(st.sampled_from([*BAD_OUTPUTS, "{dir}/s.json"]))]
        if draw(st.integers(0, 5)):  # without --before the command refuses at once
            argv += ["--before",
                     scene("b.json") if draw(st.booleans()) else valid("b.json", "scene")]
        if draw(st.booleans()):
            files["before.png"] = draw(picture_file(large))
            argv += ["--before-image", "{dir}/before.png"]
        argv += _maybe(draw, "--map", draw(st.sampled_from(MAPS))) + _maybe(draw, "--json")
    elif command == "watch":
        # A page is served only in the bench (``large``), on a port of its own; the
        # suite runs in-process, where a served page would outlive the test.
        if large and draw(st.booleans()):  # all sound: the loop reads every frame
            for i in range(draw(st.integers(1, 4))):
                files[f"frames/f{i}.png"] = draw(board_free_picture(large))
            return ["watch", "--exit", "--frames", "{dir}/frames", "--port",
                    str(draw(st.integers(20_000, 60_000))), "--db", "{dir}/log/g.sqlite"], files
        argv = ["watch", "--exit", *_watch_source(draw, files, large)]
        argv += _maybe(draw, "--fps", draw(st.sampled_from(["0", "-1", "nan", "x", "1e9"])))
        if draw(st.booleans()):
            files["cam.json"] = draw(json_file("camera"))
            argv += ["--intrinsics", "{dir}/cam.json"]
        argv += _refused_server_options(draw)
        argv += ["--db", draw(st.sampled_from([*BAD_DBS, "{dir}/log/games.sqlite"]))]
    elif command == "serve":
        # Refusals only: a valid run serves until Ctrl-C.
        argv = ["serve"]
        if draw(st.booleans()):
            argv += _refused_server_options(draw)
            argv += _maybe(draw, "--db", draw(st.sampled_from(BAD_DBS)))
        else:
            argv += ["--db", draw(st.sampled_from(BAD_DBS)), "--port", "1"]
        argv += _maybe(draw, "--resume")
    elif command == "replay":
        files["game/turn_00.json"] = draw(json_file("scene")) if draw(st.booleans()) \
            else _dumps(SCENE)
        for turn in range(1, draw(st.integers(1, 3)) + 1):
            files[f"game/turn_{turn:02d}.json"] = draw(json_file("scene"))
        argv = ["replay", draw(st.sampled_from(["{dir}/game", "{dir}/file.txt", "{dir}/none",
                                                "{dir}"]))]
        argv += _maybe(draw, "--players", draw(st.sampled_from(BAD_NUMBERS)))
        argv += _maybe(draw, "--map", draw(st.sampled_from(MAPS)))
    else:
        raise ValueError(f"no strategy for the command {command!r}")
    return argv, files


def materialise(case: Case, folder: str) -> list[str]:
    """Writes the case's files into ``folder`` and returns its arguments pointing there."""
    import os

    argv, files = case
    for name, data in files.items():
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(data)
    return [a.replace("{dir}", folder) for a in argv]


def broken_promises(command: str, code: int | None, err: str) -> list[str]:
    """How a run broke the CLI's promise: exit 0, 1 or 2, never a traceback, and bad input
    told in one line (``check`` lists one problem a line)."""
    problems = []
    if code not in (0, 1, 2):
        problems.append(f"exit code {code}")
    if "Traceback" in err:
        problems.append("traceback")
    if code == 2:
        lines = err.strip().splitlines()
        if not lines:
            problems.append("exit 2 without a message")
        elif len(lines) > 1 and command != "check":
            problems.append(f"{len(lines)}-line message")
    return problems


FUZZED_COMMANDS = ("demo", "watch", "serve", "replay", "score", "check", "render", "dataset",
                   "calibrate", "locate", "reconstruct", "map", "schemas")
"""Every command of ``palace.cli.COMMANDS`` (a test checks that none is left out)."""
