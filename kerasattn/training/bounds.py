"""The rule for one kind of number, the same for a command-line flag and a library
argument (:class:`Bounds`), and the limits the zoo's numbers share. Standard library
only: the command line's parsing loads it before anything heavy."""

import argparse
import math
import numbers


def shown(value, limit=40):
    """A value as an error line quotes it: ``repr``, cut short."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 4] + "...'"


INT32_MAX = 2 ** 31 - 1  # a count TensorFlow holds in an int32 (a shape, a token id)
SEED_MAX = 2 ** 32 - 1  # seeds are 32-bit (NumPy's legacy seeding, Keras's seed generators)
LENGTH_MAX = 2 ** 20  # tokens (sentences, words) of a text, texts in a batch: over a million
#                       is a typo, not a setting, and would be allocated before it failed


class Bounds:
    """The rule for one kind of number, the same for a command-line flag and a library
    argument: an integer (``integer=True``) or a finite float, within ``low`` and ``high``
    (either absent; ``low_open``/``high_open``: excluded).

    ``check(value, name)`` checks a Python value (what
    :meth:`kerasattn.training.RunConfig.create` is given) and returns it, or raises
    ``ValueError("NAME must be ..., got VALUE")``; ``bool`` is no number here. Called
    with a command line's text, the rule is an argparse ``type``: the text must be an
    integer (for a float rule, a number; not ``inf`` or ``nan``), without a sign on zero
    (``-0``), and its value within the bounds, or argparse reports
    ``error: argument --FLAG: must be ..., got VALUE`` (one line, exit status 2) before
    the command does anything. ``unit`` is said after the bound (``>= 1 (tokens)``);
    ``span`` words two bounds as ``in LOW..HIGH``; ``wording`` (``"... {value}"``)
    replaces every refusal's words."""

    def __init__(self, integer, low=None, high=None, low_open=False, high_open=False,
                 unit="", span=False, wording=None, name=None):
        self.integer, self.low, self.high = integer, low, high
        self.low_open, self.high_open = low_open, high_open
        self.unit, self.span, self.wording = unit, span, wording
        self.__name__ = name or ("integer" if integer else "number")  # argparse's word

    def _words(self, default, value):
        return self.wording.format(value=value) if self.wording else default

    def problem(self, value):
        """Why ``value`` breaks the rule (``"must be >= 1, got 0"``), or None."""
        if isinstance(value, bool) or not isinstance(
                value, numbers.Integral if self.integer else numbers.Real):
            return self._words(f"must be {'an integer' if self.integer else 'a number'}, "
                               f"got {shown(value)}", shown(value))
        if not self.integer and not math.isfinite(value):
            return self._words(f"must be a finite number, got {value}", value)
        unit = f" ({self.unit})" if self.unit else ""
        below = self.low is not None and (value < self.low or self.low_open and value == self.low)
        above = self.high is not None and (value > self.high or
                                           self.high_open and value == self.high)
        if (below or above) and self.span:
            return self._words(f"must be in {self.low}..{self.high}{unit}, got {value}", value)
        if below:
            return self._words(f"must be {'>' if self.low_open else '>='} {self.low}{unit}, "
                               f"got {value}", value)
        if above:
            return self._words(f"must be {'<' if self.high_open else '<='} {self.high}{unit}, "
                               f"got {value}", value)
        if not self.integer and value == 0 and math.copysign(1.0, value) < 0:
            return self._words(f"must not be a negative zero, got {value}", value)
        return None

    def check(self, value, name="value"):
        """``value``, or ``ValueError`` ``"NAME must be ..., got VALUE"``."""
        problem = self.problem(value)
        if problem is not None:
            raise ValueError(f"{name} {problem}")
        return value

    def __call__(self, text):
        """The argparse ``type``: ``text`` read as this rule's number, or
        ``argparse.ArgumentTypeError``."""
        written = str(text).strip()
        try:
            value = int(written, 10) if self.integer else float(written)
        except ValueError:  # not a number, or an integer of more than 4300 digits
            raise argparse.ArgumentTypeError(self._words(
                f"must be {'an integer' if self.integer else 'a number'}, got "
                f"{shown(text)}", shown(text))) from None
        if not self.integer and not math.isfinite(value):  # inf, nan, 1e999
            raise argparse.ArgumentTypeError(self._words(
                f"must be a finite number, got {shown(text)}", shown(text)))
        problem = self.problem(value)
        if problem is None and value == 0 and written.startswith("-"):  # an integer's -0
            problem = self._words(f"must not be a negative zero, got {shown(text)}",
                                  shown(text))
        if problem is not None:
            raise argparse.ArgumentTypeError(problem)
        return value

    def __repr__(self):
        return f"<number rule {self.__name__}>"
