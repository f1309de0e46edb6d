"""Notebook fragments stay in their place: fragments side by side on one page restyle
nothing outside themselves and share no element id (issue 79, item 2)."""

import html.parser
import re

import numpy as np
import pytest

from kerasattn import explanation_pages as pages
from kerasattn.interpret import Explanation, TokenAttribution

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
         "source", "track", "wbr"}


class _Page(html.parser.HTMLParser):
    """Every element's id and every <style>'s text, each with its fragment: the index of
    the element directly under <body> that holds it (None: outside every fragment, e.g.
    in <head>)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.fragment, self.count = [], None, 0
        self.ids, self.styles = [], []  # (id, fragment), [fragment, text]

    def handle_starttag(self, tag, attrs):
        if self.stack == ["html", "body"]:
            self.fragment, self.count = self.count, self.count + 1
        inside = self.fragment if "body" in self.stack else None
        for name, value in attrs:
            if name == "id":
                self.ids.append((value, inside))
        if tag == "style":
            self.styles.append([inside, ""])
        if tag not in _VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in _VOID:
            return
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack}"
        self.stack.pop()

    def handle_data(self, data):
        if self.stack and self.stack[-1] == "style":
            self.styles[-1][1] += data


def _selectors(css):
    """Every selector of a stylesheet: its rules' selector lists split at the commas,
    inside @media / @supports blocks too (a tokeniser of its own, not the library's)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    found, prelude, depth, groups = [], "", 0, []
    for ch in css:
        if ch == "{":
            head = " ".join(prelude.split())
            if depth == len(groups) and head.startswith(("@media", "@supports")):
                groups.append(depth)
            elif depth == len(groups):
                found.extend(s.strip() for s in head.split(","))
            depth, prelude = depth + 1, ""
        elif ch == "}":
            depth -= 1
            if groups and groups[-1] == depth:
                groups.pop()
            prelude = ""
        elif depth == len(groups):
            prelude += ch
    assert depth == 0 and not prelude.strip(), f"unbalanced stylesheet: {css!r}"
    return found


def _reaches_outside(selector, roots):
    """Whether ``selector`` may match an element outside the element with one of the ids
    ``roots``: it must start with ``#root`` (that element or its descendants), never
    followed by a sibling combinator."""
    for root in roots:
        m = re.match(rf"#{re.escape(root)}(?![\w-])[^\s>~+]*", selector)
        if m and not selector[m.end():].lstrip().startswith(("~", "+")):
            return False
    return True


def page_problems(page):
    """What lets a page's fragments reach each other: a duplicate id, a style rule
    outside every fragment, or a selector not under an id of its own fragment."""
    parser = _Page()
    parser.feed(page)
    parser.close()
    problems = []
    seen = set()
    for element_id, _ in parser.ids:
        if element_id in seen:
            problems.append(f"duplicate id {element_id}")
        seen.add(element_id)
    for fragment, css in parser.styles:
        roots = [i for i, f in parser.ids if f is not None and f == fragment]
        problems += [f"global rule {s}" for s in _selectors(css)
                     if fragment is None or _reaches_outside(s, roots)]
    return problems


def _page(*fragments):
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>t</title></head><body>"
            "<p class='note'>the notebook's own text</p>" + "".join(fragments)
            + "</body></html>")


def _explanations():
    a = np.array([[0.0, 1.0], [0.0, 1.0]])
    flat = Explanation(tokens=["dull", "film"], probabilities=np.array([0.9, 0.1]),
                       attention={"block": a}, axes={"block": ("query", "key")},
                       class_names=["neg", "pos"])
    steps = Explanation(tokens=["a", "b"], probabilities=np.array([0.2, 0.8]),
                        attention={"iram": np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])},
                        axes={"iram": ("step", "memory")})
    scores = TokenAttribution(tokens=["dull", "film"], scores=np.array([-0.5, 0.25]),
                              probabilities=np.array([0.9, 0.1]), target=0,
                              method="integrated_gradients", ids=[5, 6],
                              class_names=["neg", "pos"])
    return flat, steps, scores


def test_two_explanations_and_an_attribution_share_a_page_without_reaching_out():
    flat, steps, scores = _explanations()
    fragments = [flat._repr_html_(), steps._repr_html_(), scores._repr_html_(),
                 flat._repr_html_(), pages.explanation_html(flat, attribution=scores)]
    page = _page(*fragments)
    assert page_problems(page) == []
    # every fragment has its own root, every rule of its style under it
    parser = _Page()
    parser.feed(page)
    roots = [re.search(r"<div class='kerasattn-root' id='(kerasattn-[0-9a-f]{32})'>", f)[1]
             for f in fragments]
    assert len(set(roots)) == len(fragments)
    for (fragment, css), root in zip(parser.styles, roots):
        selectors = _selectors(css)
        assert f"#{root}" in selectors and f"#{root} img" in selectors  # body, img: scoped
        assert all(s == f"#{root}" or s.startswith(f"#{root} ") for s in selectors)
    # ids inside a fragment start with its root: no fixed doc-0
    assert "doc-0" not in page
    assert [i for i, _ in parser.ids if not i.startswith("kerasattn-")] == []


def test_the_checker_catches_a_rule_or_an_id_that_reaches_outside_its_fragment():
    flat, _, scores = _explanations()
    good = pages.explanation_html(flat, root_id="one")
    other = pages.attribution_html(scores, root_id="two")
    assert page_problems(_page(good, other)) == []
    # the old fragment: global rules, and the same id in both explanations
    old = ("<div class='kerasattn-explanation'><style>.kerasattn-explanation { color: red }"
           ".doc, img { display: block } @media (max-width: 5em) { .note { x: y } }</style>"
           "<div class='doc' id='doc-0'>a</div></div>")
    assert page_problems(_page(old, old)) == [
        "duplicate id doc-0"] + ["global rule .kerasattn-explanation", "global rule .doc",
                                 "global rule img", "global rule .note"] * 2
    # a rule under another fragment's root, a sibling combinator, a longer id, the head
    sneaky = ("<div><style>#two .doc { x: y } #one ~ p { x: y } #one-x p { x: y }"
              "#one.kerasattn-root > p, #one { x: y }</style><div id='one'></div></div>")
    assert page_problems(_page(sneaky, other)) == [
        "global rule #two .doc", "global rule #one ~ p", "global rule #one-x p"]
    head = _page(good).replace("</head>", "<style>#one p { x: y }</style></head>")
    assert page_problems(head) == ["global rule #one p"]
    # an id used twice across fragments
    assert page_problems(_page(good, pages.explanation_html(flat, root_id="one"))) == [
        "duplicate id one", "duplicate id one-doc"]


def test_a_fragments_stylesheet_is_scoped_rule_by_rule():
    css = ("/* c */ body { margin: 0 }\n.doc, img { a: b }\nbody.dark p { c: d }\n"
           "html > body > .x { e: f }\n@media (max-width: 50em) { .panels { g: h } }\n"
           ":root{ i: j }\n.a:is(.b, .c) { k: l }")
    assert pages._scope_css(css, "r") == (
        "#r { margin: 0 }\n#r .doc, #r img { a: b }\n#r.dark p { c: d }\n"
        "#r > .x { e: f }\n@media (max-width: 50em) {\n#r .panels { g: h }\n}\n"
        "#r { i: j }\n#r .a:is(.b, .c) { k: l }")
    for bad, message in [("body ~ p { x: y }", "sibling of the page"),
                         ("@import url(x.css); .a { x: y }", "statement outside a rule"),
                         ("@page { margin: 0 }", "at-rule @page"),
                         (".a { x: y", "braces do not close")]:
        with pytest.raises(pages.FragmentError, match=re.escape(message)):
            pages._scope_css(bad, "r")


def test_a_root_id_of_ones_own_gives_the_same_fragment_twice():
    flat, _, scores = _explanations()
    one = pages.explanation_html(flat, root_id="cell-3")
    assert one == pages.explanation_html(flat, root_id="cell-3")
    assert one.startswith("<div class='kerasattn-explanation'><style>#cell-3 { ")
    assert "<div class='kerasattn-root' id='cell-3'><div class='doc' id='cell-3-doc'>" in one
    # without one, each rendering has a fresh root and is otherwise the same
    a, b = flat._repr_html_(), flat._repr_html_()
    root_a = re.search(r"id='(kerasattn-[0-9a-f]{32})'", a)[1]
    root_b = re.search(r"id='(kerasattn-[0-9a-f]{32})'", b)[1]
    assert root_a != root_b and a.replace(root_a, "cell-3") == one
    for bad in ("3cell", "a b", "x'><script>", "", 7):
        with pytest.raises(pages.FragmentError, match="^root_id must be a letter"):
            pages.attribution_html(scores, root_id=bad)


def test_the_standalone_page_keeps_its_page_wide_styles_and_ids(tmp_path):
    flat, steps, _ = _explanations()
    page = pages.attention_html([flat, steps], None, ["neg", "pos"])
    assert f"<style>{pages._STYLE}</style>" in page and "kerasattn-root" not in page
    assert re.findall(r"<div class='doc' id='([^']+)'>", page) == ["doc-0", "doc-1"]
    path = pages.attention_html([flat, steps], str(tmp_path / "p.html"), ["neg", "pos"])
    assert open(path, encoding="utf-8").read() == page
    # the page's rules are page-wide: the checker says so
    assert "global rule body" in page_problems(page)


def test_a_classifiers_view_shares_the_page_too():
    from kerasattn import TextClassifier

    clf = TextClassifier.from_preset("mlp", num_classes=2)
    flat, _, scores = _explanations()
    views = [clf._repr_html_(), flat._repr_html_(), clf._repr_html_(), scores._repr_html_()]
    assert page_problems(_page(*views)) == []
    assert views[0].startswith("<div class='kerasattn-classifier'><style>#kerasattn-")
    # its own stylesheet, scoped: the root's box and its table, nothing of the explanation's
    one = pages.fragment("c1", "<table></table>", "body { a: b }\nth, td { c: d }", "w")
    assert one == ("<div class='w'><style>#c1 { a: b }\n#c1 th, #c1 td { c: d }</style>"
                   "<div class='kerasattn-root' id='c1'><table></table></div></div>")
    with pytest.raises(pages.FragmentError, match="root_id must be"):
        pages.fragment_root("1 bad")

