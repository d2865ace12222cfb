"""Frames in, palace out: frame sources, change evidence, decoding a turn, confidence (the
renderer that makes frames lives in :mod:`twin`). When the board has settled is
:mod:`vision.settle`'s, kept out of this face so that it runs alone as a module
(``python3 -m vision.settle``)."""

from vision.capture import CaptureError, FrameSource, TimedFrame, open_source
from vision.full import read_palace
from vision.look import TableLook
from vision.reading import PieceReading, TurnReading
from vision.turn import read_turn

__all__ = [
    "CaptureError",
    "FrameSource",
    "PieceReading",
    "TableLook",
    "TimedFrame",
    "TurnReading",
    "open_source",
    "read_palace",
    "read_turn",
]
