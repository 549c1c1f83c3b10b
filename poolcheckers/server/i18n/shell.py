"""The app's frame (``static/index.html``, a Jinja2 template) in each language:
its header, footer and "loading" words translated, its ``lang`` attribute set, and
the address of the front end's catalog (:func:`js_catalog`), which ``i18n.js``
loads before any page module runs.  The catalog is a file named by its digest,
cached by the browser for good: a page costs its words once, not on every load.
Each language's frame is rendered once, when the app is built: it is the same for
every request in a language, and the security policy hashes its ``<style>``
(equal in every language)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from poolcheckers.server.i18n import DEFAULT, LOCALES, NAMES, js_catalog, tag, translator

TEMPLATE = "index.html"
#: where the front end's catalogs are served (``/i18n/pt-BR.<digest>.json``)
CATALOG_PATH = "/i18n/"


@dataclass(frozen=True)
class Shells:
    """The frame per language (empty: no front end installed) and the front end's
    catalogs by file name."""

    pages: dict[str, str] = field(default_factory=dict)
    catalogs: dict[str, bytes] = field(default_factory=dict)


def catalog_file(locale: str) -> tuple[str, bytes]:
    """The name and the JSON text of ``locale``'s front-end catalog."""
    body = {"locale": tag(locale), "messages": dict(js_catalog(locale))}
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
    return f"{tag(locale)}.{hashlib.sha256(text).hexdigest()[:16]}.json", text


def render_shells(static_dir: Path) -> Shells:
    """The frame in every language of :data:`LOCALES`, and their catalogs."""
    if not (static_dir / TEMPLATE).is_file():
        return Shells()
    env = Environment(
        loader=FileSystemLoader(static_dir),
        autoescape=select_autoescape(["html"]),
        extensions=["jinja2.ext.i18n"],
    )
    shells = Shells()
    for locale in LOCALES:
        words = translator(locale)
        env.install_gettext_translations(words.catalog, newstyle=True)  # type: ignore[attr-defined]
        url = None
        if locale != DEFAULT:  # English is the words of the modules themselves
            name, text = catalog_file(locale)
            shells.catalogs[name] = text
            url = CATALOG_PATH + name
        shells.pages[locale] = env.get_template(TEMPLATE).render(
            lang=tag(locale),
            locale=locale,
            languages=[(code, tag(code), NAMES[code]) for code in LOCALES],
            catalog_url=url,
        )
    return shells
