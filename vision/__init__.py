"""Frames in, palace out: frame sources, when the board has settled, change evidence,
decoding a turn, confidence (the renderer that makes frames lives in :mod:`twin`)."""

from vision.capture import CaptureError, FrameSource, TimedFrame, open_source
from vision.look import TableLook
from vision.reading import PieceReading, TurnReading
from vision.settle import SettleDetector, SettleSettings
from vision.turn import read_turn

__all__ = [
    "CaptureError",
    "FrameSource",
    "PieceReading",
    "SettleDetector",
    "SettleSettings",
    "TableLook",
    "TimedFrame",
    "TurnReading",
    "open_source",
    "read_turn",
]
