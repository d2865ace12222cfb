"""Recipes that make and measure the vision models on twin frames (imports twin, vision,
models): seeded turns of bot games rendered as a webcam sees them before and after.

``python3 -m training create_dataset | train | evaluate`` makes the new-piece model
(``models/new_pieces.onnx``); the reproducing commands are in ``training/__main__.py``.
``fit_inks`` fits the map read's ink model (``calibration/ink_model.json``) on the
colour groups of random twin maps; ``fit_confidence`` fits the pieces' confidence
(``vision/confidence_model.json``) on read twin turns. Only ``train`` needs torch (the
``train`` extra); the rest runs on the runtime deps.
"""
