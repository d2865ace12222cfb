"""Training the new-piece network on region pairs (needs torch: training only).

Crops are drawn around new pieces more often than not (a turn adds a few hundred pixels
in a region of two hundred thousand), flipped and turned, and both frames are developed
anew as different webcams and rooms would: a coloured light over both, exposure, white
balance, gamma and a slow light gradient that drift between the two, sensor noise, blur
and JPEG. The normalisation (:func:`vision.new_pieces.model_input`) is then the one the
reader uses, so training and use see the same numbers.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from training.dataset import RegionPair, load_dataset
from training.network import WIDTHS, NewPieceNet, export_onnx
from vision.new_pieces import model_input
from vision.surface import GEOMETRY_CHANNELS

CROP = 192
BATCH = 12
CROPS_PER_PAIR = 4
"""Crops drawn from each pair in one epoch."""
NEAR_NEW = 0.65
"""Share of crops centred near a pixel of a new piece."""
CHANGED_LOG = 0.3
"""A pixel's log brightness change (less the region's median change) past which it counts
as changed for :func:`_changed_not_new`."""
POS_WEIGHT = 2.0
HEIGHT_WEIGHT = 0.1
"""What one brick level of height error weighs against the new-piece loss (about 0.2-0.4
once trained): enough to learn heights, too little to pull the mask's features away."""
UPRIGHT = 0.5
"""Share of crops left upright. Only upright crops teach height: which way is up (sides
below tops, a piece standing on what is under it) is most of what a height is read by."""


def _develop(image: NDArray[np.float32], rng: np.random.Generator,
             light: NDArray[np.float32], drift: float) -> NDArray[np.float32]:
    """One webcam exposure of ``image``: the room's light, then this frame's own drift."""
    h, w = image.shape[:2]
    out = image * light
    out = out * (rng.uniform(1 - drift, 1 + drift) * rng.uniform(1 - drift / 2, 1 + drift / 2, 3))
    # A slow gradient: the lamp or the window light moved a little between the frames.
    gx, gy = rng.normal(0, drift / 2, 2)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    out *= (1 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5))[..., None]
    gamma = rng.uniform(1 - drift, 1 + drift)
    out = 255.0 * (np.clip(out, 0, 255) / 255.0) ** gamma
    out += rng.normal(0, rng.uniform(0, 4.0), out.shape[:2])[..., None]
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        quality = int(rng.integers(55, 96))
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if ok:
            out = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return out.astype(np.float32)


def turned_geometry(geometry: NDArray[np.float32], k: int, flip: bool
                    ) -> NDArray[np.float32]:
    """Geometry channels (``(2, h, w)``, an x and a y shift per pixel) of a crop turned as
    ``np.rot90(..., k, axes=(1, 2))`` and then, with ``flip``, mirrored left to right:
    the map moves with the pixels and each shift turns with them, so that a raised
    point still lies along its pixel's shift."""
    g = np.rot90(geometry, k, axes=(1, 2))
    dx, dy = g[0], g[1]
    for _ in range(k % 4):
        dx, dy = dy, -dx
    if flip:
        return np.stack([-dx[:, ::-1], dy[:, ::-1]])
    return np.stack([dx, dy])


def _changed_not_new(pair: RegionPair) -> NDArray[np.bool_]:
    """Pixels whose brightness changed between the pictures though no new piece shows
    there: a card laid or picked up, a new piece's shadow. Crops centred on them teach the
    model what a change that is not a piece looks like, which random crops seldom show."""
    def light(image: NDArray[np.uint8]) -> NDArray[np.float32]:
        soft = cv2.GaussianBlur(image.astype(np.float32), (0, 0), 1.5)
        return np.log(soft.sum(axis=2) + 6.0)
    step = light(pair.after) - light(pair.before)
    return (np.abs(step - np.median(step)) > CHANGED_LOG) & (pair.mask < 0.05)


def sample(pair: RegionPair, rng: np.random.Generator, height_map: bool = False,
           geometry: bool = False, near_changed: float = 0.0
           ) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.float32]]:
    """One augmented training crop: the network's input, the mask (0..1) and the height
    (levels; NaN where there is none to learn, everywhere on a turned crop, and
    everywhere without ``height_map``, whose crops are turned as the one-map model's
    always were). With ``geometry`` the pair's geometry channels follow the image's
    (turned with it by :func:`turned_geometry`); it draws nothing more from ``rng``.
    ``near_changed``: the share of crops centred near a pixel that changed but shows no
    new piece (:func:`_changed_not_new`), where there is one; at 0 nothing more is drawn
    from ``rng``, so the models made before it repeat."""
    if geometry and pair.geometry is None:
        raise ValueError("--geometry: the pairs carry no geometry (make them with "
                         "create_full_dataset)")
    h, w = pair.mask.shape
    ph, pw = max(CROP - h, 0), max(CROP - w, 0)
    before, after, mask = pair.before, pair.after, pair.mask
    height = (pair.height if pair.height is not None and height_map
              else np.full(mask.shape, np.nan, np.float32))
    where = pair.geometry if geometry else None
    if ph or pw:
        pad = ((0, ph), (0, pw))
        before = np.pad(before, (*pad, (0, 0)), mode="edge")
        after = np.pad(after, (*pad, (0, 0)), mode="edge")
        mask = np.pad(mask, pad)
        height = np.pad(height, pad, constant_values=np.nan)
        if where is not None:
            where = np.pad(where, (*pad, (0, 0)), mode="edge")
        h, w = mask.shape
    ys, xs = np.nonzero(mask > 0.5)
    if near_changed > 0 and rng.random() < near_changed:
        ys, xs = np.nonzero(np.pad(_changed_not_new(pair), ((0, ph), (0, pw))))
        centred = 1.0
    else:
        centred = NEAR_NEW
    if len(ys) and rng.random() < centred:
        i = rng.integers(len(ys))
        cy = ys[i] + rng.integers(-CROP // 3, CROP // 3 + 1)
        cx = xs[i] + rng.integers(-CROP // 3, CROP // 3 + 1)
        y0 = int(np.clip(cy - CROP // 2, 0, h - CROP))
        x0 = int(np.clip(cx - CROP // 2, 0, w - CROP))
    else:
        y0, x0 = int(rng.integers(h - CROP + 1)), int(rng.integers(w - CROP + 1))
    win = (slice(y0, y0 + CROP), slice(x0, x0 + CROP))
    b = before[win].astype(np.float32)
    a = after[win].astype(np.float32)
    m = mask[win]
    ht = np.where(m >= 0.5, height[win], np.nan).astype(np.float32)
    blur = rng.uniform(0, 1.6) if rng.random() < 0.4 else 0.0
    if blur > 0.2:
        b, a = (cv2.GaussianBlur(f, (0, 0), blur) for f in (b, a))
    tint = (rng.uniform(0.65, 1.35, 3) * rng.uniform(0.6, 1.4)).astype(np.float32)
    drift = rng.uniform(0.02, 0.12)
    b, a = _develop(b, rng, tint, drift), _develop(a, rng, tint, drift)
    x = model_input(a, b)
    # The reader centres on the whole region's median, a crop on its own: shift both
    # frames alike so the network does not lean on where the centre falls.
    shift = rng.normal(0, 0.15, 3).astype(np.float32)
    x[:6] += np.tile(shift, 2)[:, None, None]
    if height_map:
        k = 0 if rng.random() < UPRIGHT else int(rng.integers(1, 4))
    else:
        k = int(rng.integers(4))
    x, m = np.rot90(x, k, axes=(1, 2)), np.rot90(m, k)
    if k:
        ht = np.full_like(ht, np.nan)
    flip = rng.random() < 0.5
    if flip:
        x, m, ht = x[:, :, ::-1], m[:, ::-1], ht[:, ::-1]
    if where is not None:
        shift = np.moveaxis(where[win], 2, 0).astype(np.float32)
        x = np.concatenate([x, turned_geometry(shift, k, flip)], axis=0)
    return np.ascontiguousarray(x), np.ascontiguousarray(m), np.ascontiguousarray(ht)


def _loss(output: torch.Tensor, target: torch.Tensor, height: torch.Tensor
          ) -> torch.Tensor:
    """Weighted cross entropy, plus soft Dice so that the few new pixels are not drowned;
    plus the height's smooth L1 (levels) on the new pixels that have one."""
    logits = output[:, :1]
    bce = nn.functional.binary_cross_entropy_with_logits(
        logits, target, pos_weight=torch.tensor(POS_WEIGHT, device=logits.device))
    p = torch.sigmoid(logits)
    dice = 1 - (2 * (p * target).sum() + 1) / (p.sum() + target.sum() + 1)
    known = torch.isfinite(height)
    if not bool(known.any()):
        return bce + 0.5 * dice
    err = nn.functional.smooth_l1_loss(output[:, 1:][known], height[known], beta=0.25)
    return bce + 0.5 * dice + HEIGHT_WEIGHT * err


def _learning_rate(done: float, peak: float = 3e-3) -> float:
    """A short warm-up, then a cosine to nothing over the planned steps or minutes, so a
    run cut short by time still ends annealed."""
    if done < 0.05:
        return peak * (0.1 + 0.9 * done / 0.05)
    return peak * 0.5 * (1 + math.cos(math.pi * min(done, 1.0)))


def _batches(pairs: list[RegionPair], rng: np.random.Generator, height_map: bool,
             geometry: bool = False, near_changed: float = 0.0
             ) -> Iterator[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """Training batches without end, each of :data:`BATCH` crops of pairs drawn at
    random."""
    while True:
        batch = [sample(pairs[int(rng.integers(len(pairs)))], rng, height_map, geometry,
                        near_changed)
                 for _ in range(BATCH)]
        yield (torch.from_numpy(np.stack([b[0] for b in batch])),
               torch.from_numpy(np.stack([b[1] for b in batch]))[:, None],
               torch.from_numpy(np.stack([b[2] for b in batch]))[:, None])


class _Crops(torch.utils.data.IterableDataset):  # type: ignore[type-arg]
    """The batches of :func:`_batches` made in worker processes: the crops' augmentation,
    not the network, is most of a step's work once a GPU runs the network. Worker ``i``
    draws from its own generator, seeded by (seed, i), so a run is repeated by the same
    seed and the same number of workers."""

    def __init__(self, pairs: list[RegionPair], seed: int, height_map: bool,
                 geometry: bool, near_changed: float) -> None:
        self.pairs, self.seed, self.height_map = pairs, seed, height_map
        self.geometry, self.near_changed = geometry, near_changed

    def __iter__(self) -> Iterator[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng([self.seed, 0 if info is None else info.id])
        return _batches(self.pairs, rng, self.height_map, self.geometry, self.near_changed)


def train(data: Sequence[Path], out: Path, seed: int, epochs: int = 8,
          minutes: float | None = None, log: bool = True,
          threads: int = 2, height_map: bool = False, workers: int = 0,
          device: str = "cpu", geometry: bool = False, near_changed: float = 0.0,
          widths: tuple[int, int, int, int] | None = None) -> dict[str, float]:
    """Train on the pairs under the folders ``data`` and write the ONNX model to ``out``.

    Stops after ``epochs`` or ``minutes`` of wall time, whichever comes first.
    ``height_map`` adds the second map (the pairs must carry heights to teach it).
    ``geometry`` feeds the pairs' geometry channels as extra inputs (full mode's pairs
    carry them; the reader feeds them to a model whose input has them).
    ``workers`` above 0 makes the crops in that many processes (see :class:`_Crops`);
    0 makes them in this one, from one generator seeded by ``seed``, as the committed
    models were made. ``device`` is torch's ("cpu", "cuda"). ``near_changed``: the
    share of crops centred on a change that is no new piece (:func:`sample`).
    ``widths``: the network's channels at its four levels; None for
    :data:`training.network.WIDTHS`, the committed model's.
    """
    try:
        where = torch.device(device)
        torch.empty(0, device=where)  # a device torch names but this machine lacks
    except (RuntimeError, AssertionError, NotImplementedError) as exc:
        raise ValueError(f"--device {device}: {' '.join(str(exc).split())[:120]}") from None
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    pairs = [p for folder in data for p in load_dataset(folder)]
    if not pairs:
        raise ValueError(f"{', '.join(map(str, data))}: no pair_*.npz files")
    extra = 0
    if geometry:
        if any(p.geometry is None for p in pairs):
            raise ValueError("--geometry: some pairs carry no geometry (make them with "
                             "create_full_dataset)")
        extra = GEOMETRY_CHANNELS
    if workers > 0:
        batches = iter(torch.utils.data.DataLoader(
            _Crops(pairs, seed, height_map, geometry, near_changed), batch_size=None,
            num_workers=workers,
            prefetch_factor=4))
    else:
        batches = _batches(pairs, np.random.default_rng(seed), height_map, geometry,
                           near_changed)
    net = NewPieceNet(widths or WIDTHS, height_map=height_map,
                      extra_channels=extra).to(where)
    opt = torch.optim.AdamW(net.parameters(), weight_decay=1e-4)
    steps_per_epoch = max(1, math.ceil(len(pairs) * CROPS_PER_PAIR / BATCH))
    total = steps_per_epoch * epochs
    started = time.monotonic()
    step, running = 0, 0.0
    net.train()
    for epoch in range(epochs):
        for _ in range(steps_per_epoch):
            done = step / total
            if minutes is not None:
                done = max(done, (time.monotonic() - started) / (minutes * 60))
            for group in opt.param_groups:
                group["lr"] = _learning_rate(done)
            x, y, z = (t.to(where) for t in next(batches))
            loss = _loss(net(x), y, z)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            value = loss.item()
            running = 0.95 * running + 0.05 * value if step > 1 else value
            if log and step % 25 == 0:
                print(f"epoch {epoch} step {step}/{total} loss {running:.4f} "
                      f"{time.monotonic() - started:.0f}s", flush=True)
            if minutes is not None and time.monotonic() - started > minutes * 60:
                break
        else:
            continue
        break
    out.parent.mkdir(parents=True, exist_ok=True)
    export_onnx(net.to("cpu"), str(out))
    return {"steps": step, "loss": running, "seconds": time.monotonic() - started}
