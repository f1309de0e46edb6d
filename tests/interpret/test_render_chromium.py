"""The explain page in a real browser: words are coloured by their attention.

Without a browser the test skips, except under CI (the environment variable CI
set, as .ci/run does), where it fails: CI must never skip it silently.
"""

import numpy as np
import pytest

from kerasattn.interpret import Explanation
from kerasattn.interpret.plots import attention_html
from tests.render import screenshot
from tests.conftest import require_browser


def test_without_a_browser_ci_fails_instead_of_skipping(monkeypatch):
    monkeypatch.setattr("tests.render.find_browser", lambda: None)
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


def test_headless_chromium_draws_attention_and_attribution_side_by_side(tmp_path):
    """Both colour maps over the same words: the attention in red on the left, the
    signed attribution on the right, green for the class and purple against it."""
    import matplotlib.image

    from kerasattn.interpret import TokenAttribution
    from kerasattn.explanation_pages import NEGATIVE_RGB, POSITIVE_RGB

    browser = require_browser()
    words = ["nothing", "to", "see", "TERRIBLE"]
    a = np.zeros((4, 4))
    a[:, 3] = 1.0  # every word attends to the last word only
    ex = Explanation(tokens=words, probabilities=np.array([0.9, 0.1]), attention={"b": a},
                     axes={"b": ("query", "key")})
    attribution = TokenAttribution(tokens=words, scores=np.array([-1.0, 0.0, 0.05, 1.0]),
                                   probabilities=np.array([0.9, 0.1]), target=0,
                                   method="integrated_gradients", ids=[2, 3, 4, 5])
    page = attention_html([ex], str(tmp_path / "p.html"), ["neg", "pos"],
                          attributions=[attribution])
    html_text = open(page, encoding="utf-8").read()
    assert "integrated gradients for class neg" in html_text
    assert "purple" in html_text and "green" in html_text  # the legend says what they mean

    def on_white(rgb, alpha=0.9):
        return np.array(rgb) * alpha + 255 * (1 - alpha)

    def shot(path, name):
        png = screenshot(path, str(tmp_path / name), width=1000, height=500, browser=browser)
        img = matplotlib.image.imread(png)[..., :3] * 255
        assert img.shape[:2] == (500, 1000)
        return lambda rgb: np.all(np.abs(img - on_white(rgb)) < 12, axis=-1)

    # the legend draws both scales (their strong ends at the top of the page)
    where = shot(page, "p.png")
    for rgb in ((220, 38, 38), POSITIVE_RGB, NEGATIVE_RGB):
        assert where(rgb).sum() > 20
    # the words, with the legend's colour bars hidden
    bare = tmp_path / "bare.html"
    bare.write_text(html_text.replace("</head>", "<style>.legend, .legend-signed "
                                      "{ visibility: hidden; }</style></head>"),
                    encoding="utf-8")
    where = shot(str(bare), "bare.png")
    red, green, purple = where((220, 38, 38)), where(POSITIVE_RGB), where(NEGATIVE_RGB)
    # each map's strongest word is drawn in full colour ...
    for mask in (red, green, purple):
        assert mask.sum() > 200
    # ... the attention on the left half of the document, the attribution on the right
    columns = lambda mask: np.nonzero(mask.any(axis=0))[0]  # noqa: E731
    assert columns(red).max() < 500 <= columns(green).min()
    assert columns(purple).min() >= 500
    # the most attended word and the most positive one are the same word, on the same line
    rows = lambda mask: np.nonzero(mask.any(axis=1))[0]  # noqa: E731
    assert abs(np.median(rows(red)) - np.median(rows(green))) < 40
    # and purple (negative) comes first on its line, green (positive) last
    assert columns(purple).max() < columns(green).min()
