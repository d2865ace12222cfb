"""The set-up bench's tally: a staircase found is right only on the truth's studs, kind by
kind, in the truth's frame; one found on a board without a staircase is a claim."""

from __future__ import annotations

import numpy as np

from bench.setup_staircase import SetupPicture, Tally
from calibration.camera import Camera, Pose
from rules.maps import SETUP_PIECES
from rules.pieces import BOARD_STUDS

SAME = np.arange(BOARD_STUDS * BOARD_STUDS)
"""Each cell of the reading's frame as the same cell of the truth's."""


def _picture(standing: bool, grown: bool = False) -> SetupPicture:
    camera = Camera.default_for(1280, 720)
    pose = Pose(np.zeros(3), np.array([0.0, 0.0, 500.0]))
    return SetupPicture("p", np.zeros((720, 1280, 3), np.uint8), camera, pose,
                        SETUP_PIECES if standing else (), grown)


def test_the_tally_tells_right_wrong_none_and_claims() -> None:
    tally = Tally()
    tally.add(_picture(True), SETUP_PIECES, SAME)
    # The same studs seen from a frame turned a half turn: the truth's cells elsewhere.
    turned = np.rot90(SAME.reshape(BOARD_STUDS, BOARD_STUDS), 2).reshape(-1)
    tally.add(_picture(True), SETUP_PIECES, turned)
    moved = tuple(p.moved(x=p.x + 1) for p in SETUP_PIECES)
    tally.add(_picture(True), moved, SAME)
    tally.add(_picture(True), (), SAME)
    tally.add(_picture(False), SETUP_PIECES, SAME)
    tally.add(_picture(False), (), SAME)
    tally.add(_picture(True, grown=True), SETUP_PIECES, SAME)
    assert tally.line("standing") == "the staircase standing: 4 pictures, right 1, wrong 2, none 1"
    assert tally.line("empty") == "no staircase: 2 pictures, claimed 1, none 1"
    assert tally.line("grown").endswith("1 pictures, right 1, wrong 0, none 0")
