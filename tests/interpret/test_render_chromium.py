"""The explain page in a real browser: words are coloured by their attention."""

import numpy as np
import pytest

from kerasattn.interpret import Explanation
from kerasattn.interpret.plots import attention_html
from kerasattn.interpret.render import find_browser, screenshot

pytestmark = pytest.mark.skipif(find_browser() is None,
                                reason="no Chromium (apt-get install chromium)")


def test_headless_chromium_shows_the_most_attended_word_in_full_red(tmp_path):
    import matplotlib.image

    a = np.zeros((4, 4))
    a[:, 3] = 1.0  # every word attends to the last word only
    ex = Explanation(tokens=["nothing", "to", "see", "TERRIBLE"],
                     probabilities=np.array([0.9, 0.1]), attention={"b": a},
                     axes={"b": ("query", "key")})
    page = attention_html([ex], str(tmp_path / "p.html"), ["neg", "pos"])
    png = screenshot(page, str(tmp_path / "p.png"), width=800, height=400)
    img = matplotlib.image.imread(png)[..., :3]
    assert img.shape[:2] == (400, 800)
    # the attended word's background, rgba(220, 38, 38, .9) on white = (226, 59, 59)
    strong = np.all(np.abs(img * 255 - [226, 59, 59]) < 12, axis=-1)
    assert strong.sum() > 200
    # and the words themselves are drawn (dark text)
    assert (img.sum(axis=-1) < 0.6).sum() > 500
