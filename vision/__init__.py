"""Frames in, palace out: change evidence, decoding a turn, confidence (the renderer that
makes frames lives in :mod:`twin`)."""

from vision.look import TableLook
from vision.reading import PieceReading, TurnReading
from vision.turn import read_turn

__all__ = ["PieceReading", "TableLook", "TurnReading", "read_turn"]
