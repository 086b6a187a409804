"""MkDocs hook: the site's home page is README.md, the repository's front page.

docs/index.md holds the line ``<!-- README.md -->``; at build time it is replaced by
the README, its links into ``docs/`` made relative to the site, so the front page has
one home.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

PLACEHOLDER = "<!-- README.md -->"
README = Path(__file__).resolve().parents[2] / "README.md"


def front_page() -> str:
    """The README as a page of the site: ``](docs/x.md)`` becomes ``](x.md)``."""
    return README.read_text(encoding="utf-8").replace("](docs/", "](")


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """MkDocs' hook: fill the home page's placeholder; leave other pages alone."""
    if page.file.src_uri != "index.md":
        return markdown
    return markdown.replace(PLACEHOLDER, front_page())
