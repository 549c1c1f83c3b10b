"""The app's frame (``static/index.html``, a Jinja2 template) in each language:
its header, footer and "loading" words translated, its ``lang`` attribute set, and
the front end's catalog (:func:`js_catalog`) in a JSON data block that ``i18n.js``
reads.  Each language's page is rendered once, when the app is built: the frame is
the same for every request in a language, and the security policy hashes its
``<style>`` (equal in every language)."""

from __future__ import annotations

import json
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from poolcheckers.server.i18n import LOCALES, NAMES, js_catalog, tag, translator

TEMPLATE = "index.html"


def _json_block(value: object) -> str:
    """JSON safe inside a ``<script type="application/json">`` element: no ``<``
    can close it."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_shells(static_dir: Path) -> dict[str, str]:
    """The frame in every language of :data:`LOCALES` (empty: no front end)."""
    if not (static_dir / TEMPLATE).is_file():
        return {}
    env = Environment(
        loader=FileSystemLoader(static_dir),
        autoescape=select_autoescape(["html"]),
        extensions=["jinja2.ext.i18n"],
    )
    shells: dict[str, str] = {}
    for locale in LOCALES:
        words = translator(locale)
        env.install_gettext_translations(words.catalog, newstyle=True)  # type: ignore[attr-defined]
        catalog = {"locale": tag(locale), "messages": dict(js_catalog(locale))}
        shells[locale] = env.get_template(TEMPLATE).render(
            lang=tag(locale),
            locale=locale,
            languages=[(code, tag(code), NAMES[code]) for code in LOCALES],
            catalog=_json_block(catalog),
        )
    return shells
