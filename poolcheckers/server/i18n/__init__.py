"""The site's languages: English (the source), Brazilian Portuguese and Spanish.

The words live in gettext catalogs under ``locale/`` (Babel extracts them, the
``.po`` files are kept in the repository, ``setup.py`` compiles them to ``.mo`` when
the package is built).  Two domains: ``messages`` holds the server's words (pages'
frame, errors, the rule book, lessons, practice, puzzle themes), ``js`` the words of
the front end's modules, which the page receives with the app's frame
(:func:`js_catalog`) instead of keeping copies of its own.

The language of a request is, in order: the ``lang`` cookie (set by the language
menu, and at sign-in from the account's choice), then ``Accept-Language``, then
English.

>>> negotiate("pt-PT,pt;q=0.9,en;q=0.5")
'pt_BR'
>>> negotiate("fr-CA, es-MX;q=0.8", cookie=None)
'es'
>>> negotiate("es", cookie="en")
'en'
>>> tag("pt_BR")
'pt-BR'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from babel.dates import format_date as _format_date
from babel.numbers import format_decimal
from babel.support import NullTranslations, Translations

#: where the catalogs are: ``<locale>/LC_MESSAGES/<domain>.mo``
LOCALE_DIR = Path(__file__).with_name("locale")
#: the languages offered, by their gettext names; the first is the source
LOCALES = ("en", "pt_BR", "es")
DEFAULT = "en"
#: the cookie that remembers a choice made on the site
COOKIE = "lang"
#: each language's own name, as its menu shows it
NAMES = {"en": "English", "pt_BR": "Português (Brasil)", "es": "Español"}

_WEIGHTED = re.compile(
    r"^\s*([A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*|\*)\s*(?:;\s*q\s*=\s*([0-9.]+))?\s*$"
)


def N_(message: str) -> str:
    """Marks ``message`` for the catalogs where it is written; it is translated where
    it is shown (a rule's words are defined once and read in every language)."""
    return message


class Message(str):
    """Words that are English text (for logs, tests and API clients that read
    English) and keep their template and values, so that an answer can say them in
    the request's language: ``raise UsernameError(M_("username {name} is reserved",
    name=...))``.  Being text, a :class:`Message` goes wherever an error's words went.

    >>> m = M_("username {name} is reserved", name="'admin'")
    >>> m, m.template, m.params
    ("username 'admin' is reserved", 'username {name} is reserved', {'name': "'admin'"})
    """

    template: str
    params: dict[str, Any]

    def __new__(cls, template: str, /, **params: Any) -> Message:
        made = super().__new__(cls, template.format(**params) if params else template)
        made.template = template
        made.params = params
        return made

    @classmethod
    def beside(cls, english: str, template: str, /, **params: Any) -> Message:
        """Words whose English is ``english`` as it is (another layer's, such as the
        rules library's), said in other languages from ``template``."""
        made = super().__new__(cls, english)
        made.template = template
        made.params = params
        return made


def M_(template: str, /, **params: Any) -> Message:
    """Words of an error for the catalogs, said in each request's language."""
    return Message(template, **params)


def parse_locale(value: str | None) -> str | None:
    """``value`` (``pt-BR``, ``pt_br``, ``es-419``, ``es``) as one of :data:`LOCALES`,
    or None.  A language we have in another country's form counts (pt-PT reads the
    Brazilian catalog, es-MX the Spanish one).

    >>> parse_locale("PT-br"), parse_locale("es-419"), parse_locale("de"), parse_locale("")
    ('pt_BR', 'es', None, None)
    """
    if not value:
        return None
    language = re.split(r"[-_]", value.strip(), maxsplit=1)[0].lower()
    for code in LOCALES:
        if code.split("_")[0] == language:
            return code
    return None


def accepted(header: str) -> list[str]:
    """The languages of an ``Accept-Language`` header, most wanted first (RFC 9110
    §12.5.4: a missing weight is 1; weight 0 means "not this one").

    >>> accepted("fr;q=0.2, es-MX, pt;q=0.8, de;q=0")
    ['es-MX', 'pt', 'fr']
    """
    weighted: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")[:32]):
        match = _WEIGHTED.match(part)
        if not match:
            continue
        try:
            weight = float(match.group(2)) if match.group(2) else 1.0
        except ValueError:
            continue
        if weight > 0:
            weighted.append((-weight, index, match.group(1)))
    return [name for _w, _i, name in sorted(weighted)]


def negotiate(accept_language: str | None, cookie: str | None = None) -> str:
    """The language of a request: the site's cookie, else the browser's first
    language that we have, else English."""
    chosen = parse_locale(cookie)
    if chosen:
        return chosen
    for name in accepted(accept_language or ""):
        found = parse_locale(name)
        if found:
            return found
    return DEFAULT


def tag(locale: str) -> str:
    """The BCP 47 tag of a gettext name (``lang`` attributes, ``Intl`` in the page)."""
    return locale.replace("_", "-")


@dataclass(frozen=True)
class Translator:
    """The words and number and date formats of one language."""

    locale: str
    catalog: NullTranslations

    def gettext(self, message: str, /, **params: Any) -> str:
        """``message`` in this language, with ``{name}`` filled from ``params``."""
        text = self.catalog.gettext(message) if message else message
        return text.format(**params) if params else text

    def say(self, words: str) -> str:
        """An error's words in this language: a :class:`Message` from its template,
        other text as it is when the catalogs do not have it."""
        if isinstance(words, Message) and self.locale == DEFAULT:
            return str.__str__(words)  # the English as it was made
        if isinstance(words, Message):
            # words within words ("{what}; try again in {value} s") are said too
            params = {k: self._said(v) for k, v in words.params.items()}
            return self.gettext(words.template, **params)
        return self.gettext(words)

    def _said(self, value: Any) -> Any:
        """A value within words: a message said too, a list of them joined as "; "."""
        if isinstance(value, Message):
            return self.say(value)
        if isinstance(value, list) and all(isinstance(v, Message) for v in value):
            return "; ".join(self.say(v) for v in value)
        return value

    def ngettext(self, singular: str, plural: str, n: int, /, **params: Any) -> str:
        """The form for ``n`` of a message that has a plural; ``{n}`` is filled too."""
        return self.catalog.ngettext(singular, plural, n).format(n=self.number(n), **params)

    def localize(self, data: Any, keys: frozenset[str]) -> Any:
        """A copy of JSON-like ``data`` whose text under any of ``keys`` (at any depth)
        is translated: the words a domain marked with :func:`N_` and sends as data.

        >>> translator("en").localize({"title": "Jumping", "steps": [{"task": "Go"}]},
        ...                           frozenset({"title", "task"}))
        {'title': 'Jumping', 'steps': [{'task': 'Go'}]}
        """
        if isinstance(data, dict):
            return {
                k: self.gettext(v) if k in keys and isinstance(v, str) else self.localize(v, keys)
                for k, v in data.items()
            }
        if isinstance(data, list):
            return [self.localize(v, keys) for v in data]
        return data

    def number(self, value: float) -> str:
        """``value`` as this language writes numbers (``1,500.5``; ``1.500,5``)."""
        return format_decimal(value, locale=self.locale)

    def date(self, value: Any, form: str = "medium") -> str:
        """A date (``datetime.date`` or ``datetime``) as this language writes it."""
        return _format_date(value, format=form, locale=self.locale)


@cache
def translator(locale: str) -> Translator:
    """The translator of ``locale`` (English for a language we do not have)."""
    code = locale if locale in LOCALES else DEFAULT
    catalog = NullTranslations() if code == DEFAULT else _load(code, "messages")
    return Translator(code, catalog)


def _load(locale: str, domain: str) -> Translations:
    """The compiled catalog of ``locale`` and ``domain``; a missing one is a broken
    build (the ``.mo`` files are made by ``setup.py``), said as such."""
    path = LOCALE_DIR / locale / "LC_MESSAGES" / f"{domain}.mo"
    if not path.is_file():
        raise RuntimeError(
            f"the {locale} catalog {path} is not compiled: reinstall poolcheckers "
            "(pip install -e '.[web]' compiles the catalogs), or run "
            "python setup.py compile_catalog"
        )
    with path.open("rb") as handle:
        return Translations(handle, domain=domain)


@cache
def js_catalog(locale: str) -> Mapping[str, str | list[str]]:
    """The front end's words in ``locale``: each English message to its translation
    (a message with a plural to its forms, one per plural category of the language in
    ``Intl.PluralRules`` order "one", "other").  English needs none: the page shows
    its own source words."""
    if locale not in LOCALES or locale == DEFAULT:
        return {}
    table: dict[str, str | list[str]] = {}
    catalog = _load(locale, "js")
    for key, text in catalog._catalog.items():
        if isinstance(key, tuple):  # (msgid, plural index)
            forms = table.setdefault(key[0], [])
            assert isinstance(forms, list)
            forms.extend([""] * (key[1] + 1 - len(forms)))
            forms[key[1]] = text
        elif key and text:
            table[key] = text
    return table


__all__ = [
    "COOKIE",
    "DEFAULT",
    "LOCALES",
    "LOCALE_DIR",
    "M_",
    "NAMES",
    "N_",
    "Message",
    "Translator",
    "accepted",
    "js_catalog",
    "negotiate",
    "parse_locale",
    "tag",
    "translator",
]
