"""Headless Chromium for the inspector's browser tests: the system's Chromium (nothing is downloaded), a
screenshot folder, and a helper that remembers through the API. Without a browser a test is skipped,
unless the CI variable is set, where a missing browser is a failure."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from .conftest import RunningService

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 30_000


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set, so the browser test must run)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    if not CHROMIUM.exists() and shutil.which("chromium") is None:
        _unavailable(f"no Chromium at {CHROMIUM}: install the distribution's chromium package")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("the playwright package is not installed (pip install -e '.[dev]')")
    executable = str(CHROMIUM) if CHROMIUM.exists() else shutil.which("chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, headless=True, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def artifacts(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("TINYMEMORY_ARTIFACTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def remember(service: RunningService, token: str, content: str) -> dict[str, Any]:
    with service.client(token) as api:
        got = api.post(
            "/api/v1/memory/remember",
            json={"content": content, "about_kind": "preference", "about_key": "seat"},
        )
    assert got.status_code == 200, got.text
    out: dict[str, Any] = got.json()
    return out


@contextmanager
def watched_page(
    chromium: Any, **context_options: Any
) -> Iterator[tuple[Any, list[str], list[str], list[str]]]:
    """A page in a fresh browser context, with what it did: every URL it requested, its console lines
    (page errors included) and the URLs that answered 400 or more. The context closes on the way out."""
    context = chromium.new_context(**context_options)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    requested: list[str] = []
    console: list[str] = []
    failed: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
    try:
        yield page, requested, console, failed
    finally:
        context.close()


def sign_in(page: Any, service: RunningService, token: str, who: str) -> None:
    """Sign in through the inspector's own form and wait for the bar to name `who`."""
    page.goto(service.url + "/")
    page.fill("#token", token)
    page.click("button[type=submit]")
    page.wait_for_selector(f"text={who}")
