"""A griffe extension: the Sphinx roles of the package's docstrings become links.

The docstrings name other objects the Sphinx way (``:class:`~kerasattn.training.RunConfig```,
``:func:`train```), which mkdocstrings would show literally. Each role becomes an
optional cross-reference (an ``<autoref optional>`` element of mkdocs-autorefs): a link
to the object's entry in the API reference where the site has one, its name in code
type otherwise (an object the reference does not list, or one outside the package),
never a broken link. Relative names resolve as Python would read them from the
docstring's object: its class, its module, the names its module imports, then the
package. Loaded by mkdocs.yml (``mkdocstrings`` → ``extensions``).
"""

import html
import re

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const):"
                  r"`(?P<tilde>~?)(?P<target>[\w.]+?)(?P<call>\(\))?`")


def _objects(obj):
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _objects(member)


def _exists(collection, path):
    try:
        collection.get_member(path)
    except (KeyError, ValueError, AttributeError, griffe.AliasResolutionError,
            griffe.CyclicAliasError):
        return False
    return True


def _resolve(obj, target, collection):
    """The full path ``target`` names, seen from ``obj``'s docstring (best guess when
    nothing matches: autorefs then shows the name without a link)."""
    if target.startswith("kerasattn.") and _exists(collection, target):
        return target
    scopes = [obj if obj.is_class or obj.is_module else obj.parent]
    while scopes[-1] is not None and scopes[-1].parent is not None:
        scopes.append(scopes[-1].parent)
    head, _, rest = target.partition(".")
    for scope in scopes:
        if scope is None:
            continue
        if head in scope.members:
            member = scope.members[head]
            base = member.target_path if member.is_alias else member.path
            path = f"{base}.{rest}" if rest else base
            if _exists(collection, path):
                return path
    for path in (f"kerasattn.{target}", target):
        if _exists(collection, path):
            return path
    return target


def _link(match, obj, collection):
    target = match.group("target")
    identifier = _resolve(obj, target, collection)
    title = (target.rsplit(".", 1)[-1] if match.group("tilde") else target) \
        + (match.group("call") or "")
    return (f'<autoref identifier="{html.escape(identifier)}" optional>'
            f"<code>{html.escape(title)}</code></autoref>")


class SphinxRoles(griffe.Extension):
    """Rewrite every Sphinx role of the package's docstrings once it is loaded."""

    def on_package(self, *, pkg, loader, **kwargs):
        if pkg.name != "kerasattn":
            return
        for obj in _objects(pkg):
            if obj.docstring is not None and ":" in obj.docstring.value:
                obj.docstring.value = ROLE.sub(
                    lambda m, o=obj: _link(m, o, loader.modules_collection),
                    obj.docstring.value)
