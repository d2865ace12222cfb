"""Trained ONNX models and the one loader for them (imports nothing of the project).

The files sit beside this module and ship as package data; the recipes that make them
are in ``training`` (see ``python3 -m training --help``). A session is built once per
file and shared: building one costs tens of milliseconds, and the camera loop reads a
turn every few seconds. One intra-op thread on the CPU provider, because the reader runs
beside the camera loop and the dashboard on small machines and must not take every core.
"""

from __future__ import annotations

import functools
from pathlib import Path

import onnxruntime as ort

__all__ = ["MODEL_DIR", "ModelError", "load", "model_path"]

MODEL_DIR = Path(__file__).resolve().parent


class ModelError(RuntimeError):
    """A model file is missing or not a usable ONNX model (the message is one line)."""


def model_path(name: str) -> Path:
    """Where the model ``name`` (without ``.onnx``, or a path to any ``.onnx``) lives."""
    if name.endswith(".onnx") or "/" in name:
        return Path(name)
    return MODEL_DIR / f"{name}.onnx"


@functools.lru_cache(maxsize=8)
def load(name: str) -> ort.InferenceSession:
    """The inference session of the model ``name``, built once and cached.

    Raises :class:`ModelError` with a one-line message naming the file when it is
    missing or cannot be read as an ONNX model.
    """
    path = model_path(name)
    if not path.is_file():
        raise ModelError(f"{path}: model file missing (run the training recipe to make it)")
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 4
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:
        detail = " ".join(str(exc).split())[:200]
        raise ModelError(f"{path}: not a usable ONNX model ({detail})") from None
