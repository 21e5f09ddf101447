"""Debian's Chromium driven by Playwright, for the console's browser tests: one launch per
module, with the flags a closed network needs (no background requests to refuse)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip

needs_chromium = pytest.mark.skipif(
    not os.path.exists(CHROMIUM), reason="no /usr/bin/chromium (apt-get install chromium)"
)


@pytest.fixture(scope="module", name="browser")
def launched_browser() -> Iterator[Any]:
    """The ``browser`` fixture: import this name into a test module to use it."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()
