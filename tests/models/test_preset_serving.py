"""Every registered Keras preset as a new user meets it (tests/models/harness.py):
``TextClassifier.from_preset`` (small) -> ``fit`` on strings, every weight drawn at
random starting apart -> ``predict`` -> ``export``: the SavedModel serves raw text with
the same probabilities. One preset a family by default (its test file's ``SERVED``),
the others with -m slow (tests/test_export.py serves one preset of every builder in a
fresh process that never imports kerasattn)."""

import pytest

from tests.models import harness

ZOO = harness.zoo()


@pytest.mark.parametrize("name", [pytest.param(n, marks=harness.slow_unless(n in ZOO.served))
                                  for n in ZOO.presets])
def test_from_preset_fits_on_strings_and_the_export_serves_raw_text(name, tmp_path):
    harness.check_from_preset_and_serve(name, tmp_path, harness.small_options(name))
