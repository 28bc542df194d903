"""Shutdown stops the periodic jobs before it closes the engine they use: a tick that falls during
shutdown must not run on a closed engine (a CI run logged "the retention job failed ... the engine is
closed" as two workers stopped)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from tinymemory.service.app import create_app
from tinymemory.service.settings import ServiceSettings

from .conftest import SECRET


async def test_no_periodic_job_runs_on_a_closed_engine_at_shutdown(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="tinymemory.service")
    (tmp_path / "policy.yaml").write_text("retention: {categories: {memory:health: 30d}}\n")
    for round_ in range(10):
        settings = ServiceSettings(
            db=str(tmp_path / f"m{round_}.db"),
            jwt_secret=SECRET,
            policy=tmp_path / "policy.yaml",
            gate_seconds=0.001,
            retention_seconds=0.001,
        )
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            await asyncio.sleep(0.05)  # a few ticks of each job
    failed = [r.getMessage() for r in caplog.records if "failed" in r.getMessage()]
    assert failed == []
