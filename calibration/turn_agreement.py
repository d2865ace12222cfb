"""What a map's agreement under its own four turns settles: the turn where its scores'
margin is short, and its trust where unrelated layouts nearly match it.

The turn's margin (:func:`calibration.turn.winning_turn`, the winning turn's score over
the runner-up's) stays short on maps whose regions look much alike after a quarter or half
turn: large regions overlap themselves when turned. The agreement (Cohen's kappa of naming
each cell after its nearest region, :func:`calibration.turn.agreements`) under each of the
four turns says the same thing more plainly: a map that names 0.9 of the card's cells
under one turn and 0.6 under the next has chosen its turn, whatever the ratio of scores.

The same comparison of a map with its own other turns vouches for a map that unrelated
layouts nearly match (:func:`own_turns_vouch`): a card mostly of one ink, or seen in a few
hundred cells, lets the best of 64 unrelated layouts reach an agreement of 0.4 to 0.65.
And the map's mirror images, layouts of its own inks and shapes that no turn of the board
shows, tell a mirrored or transposed map from the right one (:func:`beats_own_nulls`).
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import NDArray

from calibration.camera import Camera, FloatArray, Pose
from calibration.evidence import map_problem
from calibration.ink_bounds import keeps_ink_order
from calibration.ink_model import signed_lab
from calibration.map_place import map_peaks_here
from calibration.turn import (
    MIN_AGREEMENT,
    UNTURN,
    TurnEvidence,
    agreements,
    map_explains,
    map_labels,
    weigh_turn,
)
from calibration.vouching import TRUSTED_GRID_BLOCKS
from rules.maps import GroundMap
from rules.pieces import BOARD_STUDS

STRONG_AGREEMENT = 0.8
"""The agreement a map must reach under its winning turn before its agreement may settle
the turn: above every wrong map's measured on 271 development frames at the found pose
(24 unrelated layouts and map 1 on each, 6,775 in all: at most 0.71). Right maps whose
margin fell short had 0.69 to 0.96."""
TURN_AGREEMENT_GAP = 0.25
"""By how much the winning turn's agreement must beat every other turn's. Right maps with
a short margin on the development frames: 0.26 to 0.42 where the agreement is strong
(0.08 where a half turn named 0.64 of the cells against 0.72: left unresolved)."""


def turn_stands_out(evidence: TurnEvidence, ground: GroundMap) -> bool:
    """Whether the map explains the card so much better under its winning turn than under
    any other that the turn is settled even though the scores' margin is short."""
    if evidence.colours is None or evidence.agreement < STRONG_AGREEMENT:
        return False
    return _own_turns_gap(evidence, map_labels(ground)[UNTURN]) >= TURN_AGREEMENT_GAP


def _own_turns_gap(evidence: TurnEvidence, labels: np.ndarray) -> float:
    """How far the map's agreement under its winning turn beats its best other turn's
    (``labels``: the map's cells under each of its four turns)."""
    assert evidence.colours is not None
    return _over_other_turns(evidence, agreements(evidence.colours, labels))


def _over_other_turns(evidence: TurnEvidence, kappas: FloatArray) -> float:
    """The winning turn's agreement less the best of the other three (``kappas``: the
    map's agreement under each of its four turns)."""
    return evidence.agreement - float(np.delete(kappas, evidence.turn).max())


def turn_settled(evidence: TurnEvidence, ground: GroundMap | None, blocks: int) -> bool:
    """Whether the map says which way round: it is trusted at all (:func:`map_trusted`)
    and settles the turn by its scores' margin (:func:`calibration.evidence.map_problem`),
    or, where that margin is short on a pose resting on a trusted lattice, by its
    agreement under each turn (:func:`turn_stands_out`), and beats the layouts drawn from
    the map itself (:func:`beats_own_nulls`). The one rule the first detection and the
    tracker both ask."""
    if ground is None or not map_trusted(evidence, ground):
        return False
    by_turns = not map_problem(evidence.margin, evidence.score, blocks) or (
        blocks >= TRUSTED_GRID_BLOCKS and turn_stands_out(evidence, ground))
    return by_turns and beats_own_nulls(evidence, ground)


MIRROR_GAP = 0.08
"""By how much a map's winning turn must agree better than the best of its mirror images
(:func:`beats_own_nulls`). At the found poses of 141 development boards (seeds 3000 to
3149): right maps that settled their turn beat them by 0.11 to 0.88 (2 of 137 under
0.15), mirrored and transposed maps that settled a turn fell 0.20 to 0.48 short, and the
random layouts that settled one (8 of 14,100) beat them by 0.005 to 0.24: 0.08 refuses
five of those (three a wrong turn) and every mirrored map, and no right map
(docs/real-tables-log.md, "Mirrored maps: a null drawn from the map itself")."""
OWN_TURNS_FLOOR = 0.1
"""By how much a map's winning turn must agree better than each of its other turns
however far its scores' margin puts it ahead. Right maps that settled their turn on 229
development boards (seeds 3000 to 3149, 20000 to 20099): 0.26 or more; a random layout
settled a quarter turn off on a margin of 35 with its other turns within 0.02."""


def beats_own_nulls(evidence: TurnEvidence, ground: GroundMap) -> bool:
    """Whether the map fits the card clearly better under its winning turn than the
    layouts drawn from the map itself: its other turns (:data:`OWN_TURNS_FLOOR`) and its
    mirror images under any turn (:data:`MIRROR_GAP`). Eight agreements on the colours
    already read.

    A mirrored or transposed map keeps the inks, the regions' sizes and their shapes, so
    neither the inks' order nor unrelated layouts tell it from the right one, and it can
    settle a wrong turn. No turn of the board can show one of the map's mirror images
    unless the map is the board's mirror: with the right map they are layouts of its
    own inks and shapes unrelated to the card; with a mirrored map one of them is the
    board's own and fits better. A map whose other turns agree about as well as its
    winning one has not chosen a turn, whatever its scores' margin says."""
    if evidence.colours is None:
        return True
    images = mirror_labelings(ground)
    own = map_labels(ground)[UNTURN]
    kappas = agreements(evidence.colours, np.vstack([own, images]))
    if _over_other_turns(evidence, kappas[:4]) < OWN_TURNS_FLOOR:
        return False
    return not len(images) or evidence.agreement - float(kappas[4:].max()) >= MIRROR_GAP


def mirror_labelings(ground: GroundMap) -> NDArray[np.int32]:
    """The map's cells mirrored, under each of the four turns (rows as
    :func:`calibration.turn.map_labels`), leaving out any that equals one of the map's
    own turns (a mirror-symmetric map: that image is the map itself)."""
    return _mirror_labelings(ground.ground)


@functools.lru_cache(maxsize=16)
def _mirror_labelings(rows: tuple[str, ...]) -> NDArray[np.int32]:
    """Made once per map: a tracked frame should not mirror the map again."""
    own = map_labels(GroundMap(name="", ground=rows))[UNTURN]
    mirrored = own[0].reshape(-1, BOARD_STUDS)[:, ::-1].ravel()[UNTURN]
    kept = [image for image in mirrored if not (image[None] == own).all(axis=1).any()]
    out = np.array(kept, dtype=np.int32).reshape(len(kept), own.shape[1])
    out.setflags(write=False)
    return out


OWN_TURNS_GAP = 0.4
"""By how much a map's winning turn must beat each of its other turns' agreement to vouch
for a map that unrelated layouts nearly match. On 133 found development boards (seeds 3000
to 3149) against 30 random wrong maps each (3,990): right maps whose unrelated layouts
came within 0.15 had 0.45 and 0.46; no wrong map of agreement 0.5 or more that beat
the unrelated layouts and kept the inks' order reached it (0.3 let 1 through)."""
INK_CELLS = 5
"""A region's ink is compared with the others' only when at least this many of its cells
are seen: its median colour is then not one stray cell's."""


def own_turns_vouch(evidence: TurnEvidence, ground: GroundMap) -> bool:
    """Whether a map that explains the card (agreement :data:`MIN_AGREEMENT` or more) and
    beats the unrelated layouts, but by less than ``map_explains`` asks, still explains it:
    under its winning turn it agrees far better than under any other
    (:data:`OWN_TURNS_GAP`) and its regions' colours keep the order the inks keep under
    any light (dark green darker than light green, gold redder: a wrong map that happens
    to fall along the card's own pattern names its inks at random, and breaks that order
    about three times in five)."""
    if (evidence.colours is None or evidence.agreement < MIN_AGREEMENT
            or evidence.agreement < evidence.null):
        return False
    labels = map_labels(ground)[UNTURN]
    if _own_turns_gap(evidence, labels) < OWN_TURNS_GAP:
        return False
    return inks_in_order(evidence.colours, labels[evidence.turn])


def inks_in_order(colours: np.ndarray, labels: np.ndarray) -> bool:
    """Whether the map's light green, dark green and gold regions, as the card shows them
    under ``labels``, keep the inks' order (:func:`calibration.ink_bounds.keeps_ink_order`)."""
    seen = np.isfinite(colours).all(axis=1)
    lab = signed_lab(colours[seen])
    ids = labels[seen]
    centres, names = [], []
    for code, ink in enumerate("LDG"):  # the classes of calibration.turn.map_labels
        cells = ids == code
        if cells.sum() >= INK_CELLS:
            centres.append(np.median(lab[cells], axis=0))
            names.append(ink)
    return len(names) < 2 or keeps_ink_order(np.array(centres), tuple(names))


def map_trusted(evidence: TurnEvidence, ground: GroundMap | None) -> bool:
    """Whether the map may say which way round at all: it explains the card far better
    than unrelated layouts, or its own turns vouch for it, and its regions' colours keep
    the inks' order (:func:`inks_in_order`). A wrong map that falls along the card's own
    pattern names its inks at random: on 150 dev frames the order halved the random
    layouts that settled a wrong turn (10 to 5 of 13,800) and refused most maps with their
    inks swapped, and no right map lost its turn (docs/real-tables-log.md, "Wrong maps through
    the whole detection")."""
    if ground is None or not evidence.mapped:
        return False
    if not (map_explains(evidence.agreement, evidence.null) or own_turns_vouch(evidence, ground)):
        return False
    return evidence.colours is None or inks_in_order(
        evidence.colours, map_labels(ground)[UNTURN][evidence.turn])


OFF_A_STUD = "the ground map fits the card better a stud away from where the sides put it"


def judge_turn(
    image: NDArray[np.uint8],
    camera: Camera,
    pose: Pose,
    ground: GroundMap | None,
    studs: FloatArray | None,
    blocks: int,
    standing: bool = True,
) -> tuple[TurnEvidence, bool, str]:
    """The first detection's word on the turn of ``pose``: the map's evidence, whether it
    settles the turn, and a reason to refuse the pose (a map trusted here that fits the
    card better a stud away says the pose is a stud off) or "".

    Only a map that explains the card far better than unrelated layouts, or that its own
    turns vouch for (:func:`map_trusted`), says which way round (a wrong map's own turns
    can differ by 15 times); the unrelated layouts cost the most, so they are asked only
    once the geometry has accepted the pose (``standing``). A map whose regions look
    alike turned keeps its scores' margin short; its agreement under each turn can still
    settle it (:func:`turn_settled` asks the trust again, cheaply, so that the rule is
    written once)."""
    turn = weigh_turn(image, camera, pose, ground, studs, null=False)
    if not standing or ground is None or not turn.mapped:
        return turn, False, ""
    trusted = map_explains(turn.agreement, 0.0) and map_trusted(turn := turn.with_null(), ground)
    settled = trusted and turn_settled(turn, ground, blocks)
    if not settled:
        # Uneven light lowers the agreement itself, or keeps a trusted map's margin short;
        # a map that agrees 0.5 or more yet no better than unrelated layouts is not the
        # light's doing (a mirrored map has been trusted evened that way).
        evened = None
        if trusted or turn.agreement < MIN_AGREEMENT:
            evened = _evened_turn(image, camera, pose, ground, studs, blocks, turn.turn)
        if evened is not None:
            turn, settled = evened, True  # the evened view is kept only where it settles
        elif not trusted:
            return turn, False, ""
    if not map_peaks_here(image, camera, pose, ground, turn.turn, studs):
        return turn, False, OFF_A_STUD
    return turn, settled, ""


def _evened_turn(
    image: NDArray[np.uint8],
    camera: Camera,
    pose: Pose,
    ground: GroundMap,
    studs: FloatArray | None,
    blocks: int,
    raw_turn: int,
) -> TurnEvidence | None:
    """The map's evidence on the colours with the light's fall taken out by the stud tops
    (:func:`calibration.stud_tops.even_light`), where it settles the turn the colours as
    seen already picked by their scores (``raw_turn``), else None.

    Asked only where the colours as seen do not settle the turn: under a lamp to one side
    or a shadow, lit dark green looks like shaded light green and a right map agrees 0.39
    to 0.44 at its right turn; evened, 0.54 to 0.79 (docs/real-tables-log.md, "The turn
    under uneven light"). Every rule a map must pass is asked again on the evened colours, the
    unrelated layouts' best among them; the two views must pick the same turn."""
    evened = weigh_turn(image, camera, pose, ground, studs, null=False, evened=True)
    if evened.turn != raw_turn or not map_explains(evened.agreement, 0.0):
        return None
    evened = evened.with_null()
    return evened if turn_settled(evened, ground, blocks) else None
