"""Debian's chromium for playwright: the browser tests never use Playwright's own download."""

from __future__ import annotations

import shutil

CHROMIUM = "/usr/bin/chromium"
#: Headless, sandbox off (tests run as root in containers), and nothing that calls home.
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def require_chromium() -> None:
    """A missing browser is a failure, not a skip: `make test` installs it (deploy/system-deps.sh)."""
    if not shutil.which(CHROMIUM):
        raise RuntimeError(f"{CHROMIUM} is missing: run deploy/system-deps.sh (apt-get install chromium fonts-noto-cjk)")
