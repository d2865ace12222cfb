"""Frames in, palace out: capture, change detection, reconstruction (the renderer that
makes frames lives in :mod:`twin`)."""
