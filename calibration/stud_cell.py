"""One stud cell of the stud-top plane: how to tell that a stud shows, and where it sits.

The stud lattice (:mod:`calibration.lattice_view`) resamples the board onto the plane of
the stud tops at :data:`PX_PER_MM`, so that every stud is the same small picture in a
cell of :data:`CELL_PX` pixels: a top of 2.4 mm radius, its foot and the card's hole
around it 1.7 mm lower (seen shifted by the parallax of that height). This module holds
that picture: the masks that say whether a cell shows a stud (:func:`stud_scores`) and
the correlation templates, as spectra, that say where in the cell it sits
(:func:`template_stack`).
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import NDArray

from calibration.camera import FloatArray
from rules.pieces import STUD_DIAMETER_MM, STUD_MM

PX_PER_MM = 2
CELL_PX = int(STUD_MM * PX_PER_MM)
HOLE_RADIUS_MM = 2.95
"""The ground map card's holes are a little wider than the studs."""


def _stud_weights() -> NDArray[np.float32]:
    """Two cell-sized weightings: a stud top's rim, and the flat top inside it (each sums to 1).

    A cell whose rim is several times as sharp as the top inside shows its stud; an arm,
    a hand, a card or a piece standing on the cell shows no such ring there.
    """
    radius = np.hypot(_CELL_XX - CELL_PX / PX_PER_MM / 2, _CELL_YY - CELL_PX / PX_PER_MM / 2)
    rim = np.abs(radius - STUD_DIAMETER_MM / 2) < 0.6
    top = radius < STUD_DIAMETER_MM / 2 - 1.0
    return np.stack([rim / rim.sum(), top / top.sum()]).astype(np.float32)


_CELL_YY, _CELL_XX = np.mgrid[0:CELL_PX, 0:CELL_PX].astype(np.float64) / PX_PER_MM
_STUD_WEIGHTS = _stud_weights()
_STUD_WEIGHTS_BY_PIXEL = np.ascontiguousarray(_STUD_WEIGHTS.reshape(2, -1).T)


def stud_scores(mag: NDArray[np.float32]) -> FloatArray:
    """Per cell of a rectified edge-strength image, its rim's edge strength over its top's."""
    span = mag.shape[0] // CELL_PX
    cells = mag.reshape(span, CELL_PX, span, CELL_PX).transpose(0, 2, 1, 3)
    # One matrix product over all cells: half the time of the equivalent einsum.
    rim_top = cells.reshape(span * span, CELL_PX * CELL_PX) @ _STUD_WEIGHTS_BY_PIXEL
    return (rim_top[:, 0] / (rim_top[:, 1] + 1.0)).astype(np.float64)


def _torus_distance(centres_mm: FloatArray) -> NDArray[np.float64]:
    """Distance (mm) of every cell pixel from each of ``centres_mm`` (N x 2) on the cell's
    torus: N x cell x cell."""
    size = CELL_PX / PX_PER_MM
    dx = (_CELL_XX - centres_mm[:, 0, None, None] + size / 2) % size - size / 2
    dy = (_CELL_YY - centres_mm[:, 1, None, None] + size / 2) % size - size / 2
    return np.hypot(dx, dy)


def _ring(distance_mm: NDArray[np.float64], radius_mm: float) -> NDArray[np.float64]:
    """Thin rings on the cell's torus, from each pixel's torus distance to their centre."""
    return np.exp(-0.5 * ((distance_mm - radius_mm) / 0.35) ** 2)


def _disc(distance_mm: NDArray[np.float64], radius_mm: float) -> NDArray[np.float64]:
    """Soft-edged discs on the cell's torus, from each pixel's distance to their centre."""
    return np.clip((radius_mm - distance_mm) * PX_PER_MM + 0.5, 0.0, 1.0)


_AT_ORIGIN = _torus_distance(np.zeros((1, 2)))
_TOP_RIM = _ring(_AT_ORIGIN, STUD_DIAMETER_MM / 2)
_TOP = _disc(_AT_ORIGIN, STUD_DIAMETER_MM / 2)
_SPECTRA: dict[
    tuple[tuple[int, int], bool], tuple[NDArray[np.complex128], NDArray[np.complex128]]
] = {}
LIT_TOP_WEIGHT = 0.5
"""The top's share of a stud's bright side in the usual shade template."""
MAX_CACHED_SPECTRA = 4096
"""Parallaxes (in tenths of a mm) whose two spectra are kept: a board seen from one
camera needs a few hundred, and each pair is 8 kB."""


def _quarter_turned_spectra() -> NDArray[np.int64]:
    """Row m: where each entry of a spectrum goes when its parallax turns m quarter turns.

    A parallax turned by a quarter turn, (x, y) to (-y, x), turns the whole template
    about the cell's origin pixel (the cell is square and its distances wrap around), and
    a template turned turns its spectrum the same way: a quarter-turned board's blocks
    see the parallaxes of the unturned board's blocks turned, so their spectra need not
    be made again.
    """
    index = np.arange(CELL_PX * CELL_PX).reshape(CELL_PX, CELL_PX)
    rows = [index.ravel()]
    for _ in range(3):
        index = np.roll(np.rot90(index, 3), 1, axis=1)
        rows.append(index.ravel())
    return np.array(rows)


_TURNED = _quarter_turned_spectra()


def _canonical(key: tuple[int, int]) -> tuple[tuple[int, int], int]:
    """The smallest of a parallax key's four quarter turns, and how many quarter turns
    take that one back to ``key``."""
    turns = [key]
    for _ in range(3):
        a, b = turns[-1]
        turns.append((-b, a))
    k = min(range(4), key=turns.__getitem__)
    return turns[k], (4 - k) % 4


@functools.lru_cache(maxsize=16)
def template_stack(
    parallaxes: tuple[tuple[int, int], ...], top_blind: bool = False
) -> NDArray[np.complex128]:
    """Edge spectra of all blocks, then their shade spectra, for parallaxes in tenths of a mm.

    With ``top_blind`` the shade spectra leave the stud's top out (see
    :func:`shade_spectra`).

    A tracked board barely moves, so from one frame to the next its blocks' parallaxes,
    rounded this coarsely, repeat and the stack is built once. Each stack is 130 kB, so
    only the last few are kept. Spectra are kept per parallax up to a quarter turn (a
    board found again after a turn needs no new ones), and those not yet known are made
    in one batch: a new pose brings sixteen of them, and one at a time they cost more
    than the whole lattice look.
    """
    canonical = [_canonical(p) for p in parallaxes]
    wanted = list(dict.fromkeys(c for c, _ in canonical))
    if len(_SPECTRA) + len(wanted) > MAX_CACHED_SPECTRA:
        _SPECTRA.clear()
    # What this look uses is gathered on the side, so that another thread emptying the
    # shared cache meanwhile cannot take a spectrum from under it.
    known = {c: pair for c in wanted if (pair := _SPECTRA.get((c, top_blind))) is not None}
    missing = [c for c in wanted if c not in known]
    if missing:
        distance = _torus_distance(np.array(missing, dtype=np.float64) / 10)
        top_weight = 0.0 if top_blind else LIT_TOP_WEIGHT
        edges, shades = stud_spectra(distance), shade_spectra(distance, top_weight)
        for key, edge, shade in zip(missing, edges, shades, strict=True):
            known[key] = _SPECTRA[key, top_blind] = (edge.ravel(), shade.ravel())
    size = (CELL_PX, CELL_PX)
    pairs = [[s[_TURNED[m]].reshape(size) for s in known[c]] for c, m in canonical]
    stack = np.stack([p[0] for p in pairs] + [p[1] for p in pairs])
    stack.setflags(write=False)
    return stack


def shade_spectra(
    shifted_mm: NDArray[np.float64], top_weight: float = 0.5
) -> NDArray[np.complex128]:
    """Conjugate spectra of a stud's brightness: a top ringed by a dark hole in the card.

    Whatever colour the card is, the shadowed plate showing through the card's hole is
    darker than both the plastic top inside it and the card outside it; this is what
    tells a stud's centre from the gap between four studs, where edges look alike. One
    spectrum per parallax, given as each pixel's torus distance to the point of the
    plate that the parallax shows at the cell's centre (N x cell x cell, mm).

    ``top_weight`` is the share of the bright side that the top takes (the card has the
    rest). A top darker than the card, blurred into the hole, turns the stud into one
    dark blob and the gap between four studs into a bright one ringed by dark: with the
    top counted as bright, the template then fits the gaps (dev frames settled half a
    stud off from the truth, over the whole board). With ``top_weight`` 0 it asks only
    that the card be brighter than the hole, whatever the top.
    """
    inner = _disc(shifted_mm, HOLE_RADIUS_MM)
    hole = np.clip(inner - _TOP, 0, 1)
    card = np.clip(_disc(shifted_mm, HOLE_RADIUS_MM + 0.9) - inner - _TOP, 0, 1)
    # The hole is a dark valley between the top and the card, whichever of them is
    # brighter; between four studs there is no such valley.
    sums = (1, 2)
    template = (
        top_weight * _TOP / _TOP.sum(axis=sums, keepdims=True)
        + (1.0 - top_weight) * card / card.sum(axis=sums, keepdims=True)
        - hole / np.maximum(hole.sum(axis=sums, keepdims=True), 1e-6)
    )
    template -= template.mean(axis=sums, keepdims=True)
    return np.conj(np.fft.fft2(template))


def stud_spectra(shifted_mm: NDArray[np.float64]) -> NDArray[np.complex128]:
    """Conjugate spectra of what a stud's edges look like on the stud-top plane.

    The top's rim is a circle at the origin; the stud's foot and the card's hole around
    it lie 1.7 mm lower, so on this plane they appear shifted by the parallax of that
    height as the camera sees it. Modelling them keeps them from pulling the match.
    ``shifted_mm`` as for :func:`shade_spectra`.
    """
    template = (
        _TOP_RIM
        + 0.5 * _ring(shifted_mm, STUD_DIAMETER_MM / 2)
        + 0.5 * _ring(shifted_mm, HOLE_RADIUS_MM)
    )
    template -= template.mean(axis=(1, 2), keepdims=True)
    return np.conj(np.fft.fft2(template))

