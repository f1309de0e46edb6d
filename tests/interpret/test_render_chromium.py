"""The explain page in a real browser: words are coloured by their attention.

Without a browser the test skips, except under CI (the environment variable CI
set, as .ci/run does), where it fails: CI must never skip it silently.
"""

import os

import numpy as np
import pytest

from kerasattn.interpret import Explanation
from kerasattn.interpret.plots import attention_html
from kerasattn.interpret.render import find_browser, screenshot


def require_browser():
    """The browser's path; skips without one, or fails under CI."""
    path = find_browser()
    if path is None:
        if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
            pytest.fail("CI is set but no Chromium was found: the browser test must run "
                        "(.ci/run installs it: apt-get install chromium)", pytrace=False)
        pytest.skip("no Chromium (apt-get install chromium)")
    return path


def test_without_a_browser_ci_fails_instead_of_skipping(monkeypatch):
    monkeypatch.setattr(f"{__name__}.find_browser", lambda: None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI is set but no Chromium"):
        require_browser()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception):
        require_browser()


def test_headless_chromium_shows_the_most_attended_word_in_full_red(tmp_path):
    import matplotlib.image

    browser = require_browser()

    a = np.zeros((4, 4))
    a[:, 3] = 1.0  # every word attends to the last word only
    ex = Explanation(tokens=["nothing", "to", "see", "TERRIBLE"],
                     probabilities=np.array([0.9, 0.1]), attention={"b": a},
                     axes={"b": ("query", "key")})
    page = attention_html([ex], str(tmp_path / "p.html"), ["neg", "pos"])
    png = screenshot(page, str(tmp_path / "p.png"), width=800, height=400,
                     browser=browser)
    img = matplotlib.image.imread(png)[..., :3]
    assert img.shape[:2] == (400, 800)
    # the attended word's background, rgba(220, 38, 38, .9) on white = (226, 59, 59)
    strong = np.all(np.abs(img * 255 - [226, 59, 59]) < 12, axis=-1)
    assert strong.sum() > 200
    # and the words themselves are drawn (dark text)
    assert (img.sum(axis=-1) < 0.6).sum() > 500
