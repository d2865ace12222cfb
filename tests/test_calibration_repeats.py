"""A start near one whose lattice fit read soft is a new start: a soft lattice's plane is
chosen by where its fit began, not by its studs."""

from __future__ import annotations

import cv2

from bench.calibration import twin_frame
from calibration.corners import search_plate
from calibration.evidence import gray_float
from calibration.fit import BLIND_RETRY_CLARITY, finish
from calibration.outline_pose import (
    REPEAT_PX,
    SOFT_REPEAT_PX,
    Tried,
    initial_pose,
    rim_fit,
    same_outline,
)
from tests.calibration_frames import found_right
from tests.test_calibration_rim_soft import SOFT_TEN_SEED


def test_outlines_near_a_soft_fit_are_finished_and_one_finds_the_board() -> None:
    # Dev 20118, 7 px a stud: two of the full search's outlines, 3.1 px apart, pulled onto
    # the rim 1.3 and 1.7 px off the truth; the first one's top-blind fit settles 2.7 px
    # off (refused by the rim), the second one's 0.96 px off (taken).
    frame = twin_frame(SOFT_TEN_SEED).frame
    gray = gray_float(frame.image)
    h, w = gray.shape
    half = cv2.resize(gray, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    quick = search_plate(frame.image, frame.camera, quick=True)
    outlines = search_plate(frame.image, frame.camera, prior=quick)
    poses = [initial_pose(q, frame.camera) for q in outlines.quads[:8]]
    tried = Tried()
    results = []
    for pose in poses:
        if pose is None or tried.repeats(frame.camera, pose):
            continue
        tried.add(pose)
        result = finish(frame.image, gray, frame.camera, rim_fit(half, frame.camera, pose).pose,
                        None, False)
        tried.judged(pose, result.lattice_clarity)
        results.append(result)
        if result.found:
            break
    assert results[-1].found
    soft = [r for r in results[:-1] if 0 < r.lattice_clarity < BLIND_RETRY_CLARITY]
    assert soft, "the right outline lay near a soft one"
    # Within REPEAT_PX of a finished start it would have been skipped as its repeat.
    found_at = next(p for p in poses if p is not None and tried.starts[-1][0] is p)
    assert any(same_outline(frame.camera, found_at, p, REPEAT_PX)
               for p, _ in tried.starts[:-1])
    assert not any(same_outline(frame.camera, found_at, p, SOFT_REPEAT_PX)
                   for p, _ in tried.starts[:-1])
    found_right(frame)
