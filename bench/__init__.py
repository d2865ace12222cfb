"""Benchmarks: each script prints its figures (see the README's table).

Timings are on one core. OpenCV is told so by each script; numpy's BLAS reads its thread
count when numpy is first imported, so it is set here, before any script imports it:
spread over threads, the small matrix products of a frame cost more, not less.
"""

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
