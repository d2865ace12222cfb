"""Fuzzing in the suite: bad files of every format, bad pictures and bad command lines.

Bounded and in-process so that the suite stays quick; ``bench/fuzz.py`` runs the same
strategies thousands of times, each in its own process under time and memory limits.
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from fuzz_strategies import (
    FUZZED_COMMANDS,
    broken_promises,
    cli_case,
    json_file,
    materialise,
    picture_file,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calibration.camera import Camera, CameraFileError, Pose
from calibration.image_file import MAX_PIXELS, MIN_SIDE, ImageFileError, load_image
from calibration.profile import Profile
from palace.cli import COMMANDS, main
from rules.maps import MapError, load_map
from rules.scene import SceneError, load_scene

LOADERS: dict[str, tuple[Callable[[Path], Any], type[ValueError]]] = {
    "scene": (load_scene, SceneError),
    "map": (load_map, MapError),
    "camera": (Camera.load, CameraFileError),
    "pose": (Pose.load, CameraFileError),
    "profile": (Profile.load, CameraFileError),
}
FAST = settings(max_examples=40, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def written(data: bytes, name: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="fuzz"))
    path = folder / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("role", sorted(LOADERS))
def test_any_file_in_any_role_loads_or_is_refused_in_one_line(role):
    load, error = LOADERS[role]

    @FAST
    @given(json_file(role))
    def check(data: bytes) -> None:
        path = written(data, f"{role}.json")
        try:
            load(path)
        except error as exc:
            message = str(exc)
            assert message.startswith(f"{path}: ") and "\n" not in message, message

    check()


@FAST
@given(picture_file())
def test_any_picture_loads_within_the_limits_or_is_refused_in_one_line(data):
    path = written(data, "photo.png")
    try:
        image = load_image(path)
    except ImageFileError as exc:
        assert str(exc).startswith(f"{path}: ") and "\n" not in str(exc)
    else:
        height, width = image.shape[:2]
        assert min(height, width) >= MIN_SIDE and height * width <= MAX_PIXELS


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.sampled_from(FUZZED_COMMANDS).flatmap(lambda c: st.tuples(st.just(c), cli_case(c))))
def test_any_command_line_keeps_the_cli_promise(drawn):
    command, case = drawn
    argv = materialise(case, tempfile.mkdtemp(prefix="fuzz"))
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's own exit
            code = exc.code if isinstance(exc.code, int) else 2
    assert not broken_promises(command, code, err.getvalue()), (argv, err.getvalue())


def test_every_command_of_the_cli_is_fuzzed():
    assert sorted(FUZZED_COMMANDS) == sorted(COMMANDS)
