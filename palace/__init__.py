"""The Palace Eye application: the `palace` command, the dashboard and the game log.

numpy's BLAS reads its thread count when numpy is first imported, so it is set here,
before anything of the application imports it: a frame's matrix products are small
(a pose's rotation times tens of thousands of points), and spread over threads they cost
more CPU, not less, while the camera loop and the dashboard want the other cores. A
count the user set in the environment stands.
"""

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
