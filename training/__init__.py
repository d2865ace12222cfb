"""Recipes that make and measure the vision models on twin frames (imports twin, vision,
models): seeded turns of bot games rendered as a webcam sees them before and after."""
