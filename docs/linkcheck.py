"""The documentation site's link check (a MkDocs hook beside ``docs/hooks.py``, listed
under ``hooks:`` in ``mkdocs.yml``): after the build, every internal link of the written
HTML must lead to a file of the site, and an anchor to an id of its page. MkDocs' own
``validation`` sees only Markdown links, not the HTML that the directives and
mkdocstrings write (the home page's game links once pointed at pages that did not
exist, and the strict build passed)."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _Refs(HTMLParser):
    """The ``href``/``src`` targets and the anchors (``id``, ``<a name>``) of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.anchors: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if value and (key == "id" or key == "name" and tag == "a"):
                self.anchors.add(value)
            elif value and key in ("href", "src"):
                self.links.append(value)


def broken_links(site: Path) -> list[str]:
    """Every internal link of the built site that leads nowhere, as ``page: link
    (why)``: a relative (or root-relative) ``href``/``src`` to a file the site lacks, or
    with an anchor its target page lacks. Web addresses are not followed."""
    site = site.resolve()
    pages = {}
    for path in sorted(site.rglob("*.html")):
        refs = _Refs()
        refs.feed(path.read_text(encoding="utf-8"))
        pages[path] = refs
    out = []
    for path, refs in pages.items():
        for link in dict.fromkeys(refs.links):
            parts = urlsplit(link)
            if parts.scheme or parts.netloc:
                continue
            target = path
            if parts.path:
                base = site if parts.path.startswith("/") else path.parent
                target = (base / unquote(parts.path).lstrip("/")).resolve()
                if target.is_dir():
                    target = target / "index.html"
                if not target.is_file():
                    out.append(f"{path.relative_to(site)}: {link} (no such file)")
                    continue
            anchor = unquote(parts.fragment)
            if anchor and target in pages and anchor not in pages[target].anchors:
                out.append(f"{path.relative_to(site)}: {link} (no anchor #{anchor})")
    return out


def on_post_build(config):
    """The build fails on a broken internal link (:func:`broken_links`): MkDocs'
    ``validation`` sees only Markdown links, not the HTML that the directives and
    mkdocstrings write."""
    from mkdocs.exceptions import PluginError

    broken = broken_links(Path(config["site_dir"]))
    if broken:
        raise PluginError(f"{len(broken)} broken internal link(s):\n  " + "\n  ".join(broken))
