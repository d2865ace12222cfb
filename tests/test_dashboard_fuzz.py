"""Property-based fuzzing of the whole API from its OpenAPI description: whatever a
client sends, the server answers without a 5xx (refusals are 4xx with a reason)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402

from palace.server import create_app  # noqa: E402
from palace.session import TableSession  # noqa: E402

_DIR = tempfile.TemporaryDirectory(prefix="palace-fuzz-")
SESSION = TableSession.open(Path(_DIR.name) / "games.sqlite", resume=False)
APP = create_app(SESSION)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@schema.exclude(path="/api/events").parametrize()
@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_no_server_errors(case):
    case.call_and_validate(checks=[not_a_server_error])
