"""Trained ONNX models and the recipe that reproduces them."""
