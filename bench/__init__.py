"""Benchmarks: each script prints its figures (see the README's table).

Timings are on one core. OpenCV is told so by each script; numpy's BLAS gets the one
thread the application gives it (:mod:`palace`, imported here before any script imports
numpy), so the benches time what the application runs.
"""

import palace  # noqa: F401  (sets the BLAS thread count before numpy loads)
