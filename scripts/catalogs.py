"""The site's words: extract them from the sources into the catalog templates
(``poolcheckers/server/i18n/locale/<domain>.pot``) and merge the templates into each
language's catalog (``<lang>/LC_MESSAGES/<domain>.po``), for its translators.

    .venv/bin/python scripts/catalogs.py          # make catalogs
    .venv/bin/python scripts/catalogs.py js       # one domain

Two domains: ``messages`` (the server's Python, marked with ``N_``, ``M_`` or a
translator's ``gettext``, and the app's frame, a Jinja2 template; babel.cfg) and
``js`` (the front end's ``t()`` and ``tn()``; babel-js.cfg).  tests/server/test_i18n.py
extracts the same way and fails while a word is missing from a catalog or left
untranslated.  The ``.mo`` files are compiled by setup.py when the package is built.
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
LOCALE_DIR = ROOT / "poolcheckers" / "server" / "i18n" / "locale"
LANGUAGES = ("pt_BR", "es")
#: two plural forms, "one" and "other", chosen as the page's Intl.PluralRules chooses
#: them (i18n.js): Portuguese says 0 and 1 in the singular, Spanish 1 only (CLDR's
#: Spanish "many", for millions, is written as "other")
PLURALS = {"pt_BR": (2, "(n > 1)"), "es": (2, "(n != 1)")}
#: each domain: its mapping file and the functions whose first argument(s) are words
DOMAINS: dict[str, tuple[str, dict[str, tuple[int, ...] | None]]] = {
    "messages": (
        "babel.cfg",
        {"N_": None, "M_": None, "gettext": None, "ngettext": (1, 2), "_": None, "beside": (2,)},
    ),
    "js": ("babel-js.cfg", {"t": None, "tn": (1, 2)}),
}


def extract(domain: str) -> Catalog:
    """The domain's words as found in the sources now (a template catalog)."""
    config, keywords = DOMAINS[domain]
    with (ROOT / config).open() as handle:
        method_map, options_map = parse_mapping_cfg(handle)  # type: ignore[no-untyped-call]
    catalog = Catalog(project="poolcheckers", domain=domain, fuzzy=False)
    for filename, lineno, message, comments, context in extract_from_dir(
        str(ROOT), method_map, options_map, keywords=keywords, strip_comment_tags=True
    ):
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return catalog


def untranslated(catalog: Catalog) -> list[str]:
    """The messages of ``catalog`` without a translation, or with a fuzzy one."""
    return [
        str(m.id if isinstance(m.id, str) else m.id[0])
        for m in catalog
        if m.id and (m.fuzzy or not all(m.string if isinstance(m.string, tuple) else [m.string]))
    ]


def load(language: str, domain: str) -> Catalog | None:
    """A language's catalog of ``domain`` as kept in the repository (None: none yet)."""
    path = LOCALE_DIR / language / "LC_MESSAGES" / f"{domain}.po"
    if not path.is_file():
        return None
    with path.open("rb") as handle:
        return read_po(handle, locale=language, domain=domain)


def update(domains: list[str] | None = None) -> None:
    """Write the templates of ``domains`` (None: all) and merge each into every
    language's catalog."""
    for domain in domains or list(DOMAINS):
        template = extract(domain)
        with (LOCALE_DIR / f"{domain}.pot").open("wb") as handle:
            write_po(handle, template, sort_output=True, omit_header=False, width=100)
        for language in LANGUAGES:
            catalog = load(language, domain) or Catalog(
                locale=language, domain=domain, project="poolcheckers", fuzzy=False
            )
            catalog.update(template, no_fuzzy_matching=True)
            catalog.obsolete.clear()
            catalog.fuzzy = False
            # the header's Plural-Forms (Babel has no public setter; read_po sets the same)
            count, expression = PLURALS[language]
            setattr(catalog, "_num_plurals", count)  # noqa: B010
            setattr(catalog, "_plural_expr", expression)  # noqa: B010
            path = LOCALE_DIR / language / "LC_MESSAGES" / f"{domain}.po"
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("wb") as handle:
                write_po(handle, catalog, sort_output=True, width=100)
            missing = len(untranslated(catalog))
            print(f"{language}/{domain}.po: {len(catalog)} messages, {missing} untranslated")


if __name__ == "__main__":
    update(sys.argv[1:] or None)
    sys.exit(0)
