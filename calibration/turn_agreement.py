"""A turn the map's agreement alone settles, where its scores' margin is short.

The turn's margin (:func:`calibration.turn.winning_turn`, the winning turn's score over
the runner-up's) stays short on maps whose regions look much alike after a quarter or half
turn: large regions overlap themselves when turned. The agreement (Cohen's kappa of naming
each cell after its nearest region, :func:`calibration.turn.agreements`) under each of the
four turns says the same thing more plainly: a map that names 0.9 of the card's cells
under one turn and 0.6 under the next has chosen its turn, whatever the ratio of scores.
"""

from __future__ import annotations

import numpy as np

from calibration.evidence import TRUSTED_GRID_BLOCKS, map_problem
from calibration.turn import UNTURN, TurnEvidence, agreements, map_labels
from rules.maps import GroundMap

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
    kappas = agreements(evidence.colours, map_labels(ground)[UNTURN])
    others = np.delete(kappas, evidence.turn)
    return bool(evidence.agreement - float(others.max()) >= TURN_AGREEMENT_GAP)


def turn_settled(evidence: TurnEvidence, ground: GroundMap, blocks: int) -> bool:
    """Whether a map the card already trusts (:func:`calibration.turn.map_explains`)
    settles the turn: by its scores' margin (:func:`calibration.evidence.map_problem`),
    or, where that margin is short on a pose resting on a trusted lattice, by its
    agreement under each turn (:func:`turn_stands_out`). The first detection and the
    tracker ask alike."""
    return not map_problem(evidence.margin, evidence.score, blocks) or (
        blocks >= TRUSTED_GRID_BLOCKS and turn_stands_out(evidence, ground))
