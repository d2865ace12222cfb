"""Frames in, palace out: capture, the rendered twin, reconstruction."""
