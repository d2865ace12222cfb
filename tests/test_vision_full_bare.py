"""The bare board's grouped medians are numpy's medians, to the bit."""

import numpy as np
import pytest

from vision.bare import group_medians


@pytest.mark.parametrize("n", [1, 2, 3, 10, 2000])
def test_group_medians_are_numpys_medians_of_each_group(n: int) -> None:
    rng = np.random.default_rng(n)
    values = (rng.normal(size=(n, 3)) * 100).astype(np.float32)
    values[0, 0] = -0.0
    values[n // 2:, 2] = np.round(values[n // 2:, 2] / 50)  # ties and zeros of both signs
    group = rng.integers(0, 9, n) * 7
    keys, medians = group_medians(values, group)
    assert keys.tolist() == np.unique(group).tolist()
    want = np.array([np.median(values[group == k].astype(np.float64), axis=0) for k in keys])
    assert medians.tobytes() == want.tobytes()
