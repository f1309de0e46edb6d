"""Render an explain page in headless Chromium (a screenshot), to check it looks right.

Needs a Chromium or Chrome binary (Debian: ``apt-get install chromium``); the
zoo itself never needs one. The flags keep Chromium off the network.
"""

import os
import shutil
import subprocess
import tempfile

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser():
    """Path of a Chromium/Chrome binary, or None."""
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def screenshot(html_path, png_path, width=1000, height=900, browser=None, timeout=60):
    """Render ``html_path`` headless and save a ``width``×``height`` PNG; returns its path.

    Raises:
        FileNotFoundError: no browser found.
        RuntimeError: the browser failed or wrote no image.
    """
    browser = browser or find_browser()
    if browser is None:
        raise FileNotFoundError(f"no headless browser found (looked for {', '.join(BROWSERS)})")
    png_path = os.path.abspath(png_path)
    with tempfile.TemporaryDirectory() as profile:
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
               "--no-first-run", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}",
               "--hide-scrollbars", f"--window-size={width},{height}",
               f"--screenshot={png_path}", "file://" + os.path.abspath(html_path)]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0 or not os.path.exists(png_path):
        raise RuntimeError(f"{browser} failed ({done.returncode}): {done.stderr[-2000:]}")
    return png_path
