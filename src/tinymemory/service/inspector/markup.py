"""A tiny, escape-by-default template helper: the inspector's pages are f-string-free HTML.

`fill` substitutes `$name` placeholders and escapes every value that is not already `Html`; `join`
concatenates fragments. A value reaches a page unescaped only by being built here, so user content
(memory text, titles, search queries, error messages) cannot inject markup.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from string import Template
from urllib.parse import quote, urlencode


class Html(str):
    """Markup that is already safe to place in a page."""

    __slots__ = ()


EMPTY = Html("")


def escape(value: object) -> Html:
    if isinstance(value, Html):
        return value
    return Html(html.escape("" if value is None else str(value), quote=True))


def fill(template: str, **values: object) -> Html:
    """`template` with each `$name` replaced by its value, escaped unless it is `Html`."""
    return Html(Template(template).substitute({k: escape(v) for k, v in values.items()}))


def join(parts: Iterable[object], sep: str = "") -> Html:
    return Html(sep.join(escape(p) for p in parts))


def url(path: str, **query: str | None) -> str:
    """A same-site URL; query values that are None are left out (the caller's `fill` escapes it)."""
    given = {k: v for k, v in query.items() if v is not None}
    return path + ("?" + urlencode(given) if given else "")


def item_url(memory_id: str, **query: str | None) -> str:
    return url("/items/" + quote(memory_id, safe=""), **query)
