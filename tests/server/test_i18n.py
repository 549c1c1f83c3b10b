"""The site in English, Brazilian Portuguese and Spanish (server/i18n): every word a
player reads is in each language's catalog and translated there, the language comes
from the browser or the player's choice (kept per account), and the server's own
words (the frame, the rule book, lessons, errors) arrive in that language."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
from starlette.testclient import TestClient

from poolcheckers.server.i18n import COOKIE, LOCALES, js_catalog, negotiate, translator
from poolcheckers.server.i18n.shell import render_shells
from poolcheckers.server.settings import STATIC_DIR

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "correct horse battery staple"
HOLE = re.compile(r"\{(\w+)[^{}]*\}")


def _catalogs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("catalogs", ROOT / "scripts" / "catalogs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("catalogs", module)
    spec.loader.exec_module(module)
    return module


catalogs = _catalogs()


@pytest.mark.parametrize("domain", sorted(catalogs.DOMAINS))
def test_every_word_shown_is_translated_in_every_language(domain: str) -> None:
    """A word marked in the sources (t(), tn(), N_, M_, gettext, the frame's _()) that
    a catalog lacks, or has untranslated or fuzzy, fails here: run `make catalogs`,
    then translate what it reports."""
    wanted = {m.id if isinstance(m.id, str) else m.id[0] for m in catalogs.extract(domain) if m.id}
    assert wanted, f"no words found for {domain}"
    for language in catalogs.LANGUAGES:
        catalog = catalogs.load(language, domain)
        assert catalog is not None, f"no {language} catalog for {domain}: run make catalogs"
        have = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}
        missing = sorted(wanted - have)
        assert not missing, f"{language}/{domain}.po lacks {len(missing)}: {missing[:10]}"
        left = sorted(set(catalogs.untranslated(catalog)) & wanted)
        assert not left, f"{language}/{domain}.po leaves {len(left)} untranslated: {left[:10]}"


def test_every_t_call_of_the_front_end_reaches_the_catalogs() -> None:
    """The extractor must read every t() and tn() of the modules: one written where it
    cannot (inside another call's words) would be shown in English forever."""
    extracted = {m.id if isinstance(m.id, str) else m.id[0] for m in catalogs.extract("js")}
    called = re.compile(r'\btn?\(\s*"((?:[^"\\]|\\.)*)"')
    lost = []
    for path in sorted((ROOT / "poolcheckers" / "server" / "static").glob("*.js")):
        for line in path.read_text("utf-8").splitlines():
            if line.lstrip().startswith(("//", "*", "/*")):
                continue  # comments show how to call t(), they call nothing
            lost += [f"{path.name}: {m}" for m in called.findall(line) if m not in extracted]
    assert not lost, lost


@pytest.mark.parametrize("domain", sorted(catalogs.DOMAINS))
def test_translations_keep_every_hole_of_their_message(domain: str) -> None:
    """ "{name} wins" must name {name} in every language, or the page shows a hole."""
    for language in catalogs.LANGUAGES:
        catalog = catalogs.load(language, domain)
        assert catalog is not None
        for m in catalog:
            if not m.id:
                continue
            ids = [m.id] if isinstance(m.id, str) else list(m.id)
            texts = [m.string] if isinstance(m.string, str) else list(m.string)
            holes = set(HOLE.findall(ids[0])) | set(HOLE.findall(ids[-1]))
            for text in texts:
                if text:
                    assert set(HOLE.findall(text)) <= holes | {"n"}, (language, m.id, text)
                    assert set(HOLE.findall(ids[0])) - {"n"} <= set(HOLE.findall(text)), (
                        language,
                        m.id,
                        text,
                    )


def test_the_language_is_the_cookie_then_the_browser_then_english() -> None:
    assert negotiate("pt-BR,pt;q=0.9,en;q=0.8") == "pt_BR"
    assert negotiate("pt-PT") == "pt_BR"  # the Portuguese we have
    assert negotiate("es-419,es;q=0.9") == "es"
    assert negotiate("de-DE,es;q=0.5,en;q=0.7") == "en"  # English is wanted more
    assert negotiate("es;q=0, pt") == "pt_BR"  # q=0: not Spanish
    assert negotiate("fr-FR, de") == "en"
    assert negotiate(None) == "en"
    assert negotiate("es", cookie="pt-BR") == "pt_BR"
    assert negotiate("es", cookie="klingon") == "es"  # a cookie we cannot read


def test_numbers_and_dates_follow_the_language() -> None:
    import datetime

    day = datetime.date(2026, 12, 4)
    assert translator("en").number(1500.5) == "1,500.5"
    assert translator("pt_BR").number(1500.5) == "1.500,5"
    assert translator("es").number(1500.5) == "1.500,5"
    assert translator("en").date(day) == "Dec 4, 2026"
    assert translator("pt_BR").date(day) == "4 de dez. de 2026"
    assert translator("es").date(day, "long") == "4 de diciembre de 2026"


def test_the_front_end_gets_its_words_from_a_catalog_file_cached_for_good(
    client: TestClient,
) -> None:
    """The frame names its language's catalog; the file holds the js catalog's words,
    is named by its digest and kept by the browser; English needs none."""
    shells = render_shells(STATIC_DIR)
    assert sorted(shells.pages) == sorted(LOCALES)
    assert "i18n-catalog" not in shells.pages["en"]
    for locale in ("pt_BR", "es"):
        page = client.get("/", headers={"Accept-Language": locale.replace("_", "-")}).text
        named = re.search(r'<meta name="i18n-catalog" content="([^"]+)">', page)
        assert named, locale
        answer = client.get(named.group(1))
        assert answer.status_code == 200
        assert "immutable" in answer.headers["cache-control"]
        data = answer.json()
        assert data["locale"] == locale.replace("_", "-")
        assert data["messages"] == dict(js_catalog(locale))
        assert data["messages"]["Resign"] not in ("", "Resign")
    assert client.get("/i18n/pt-BR.0000000000000000.json").status_code == 404
    assert shells.pages["en"].count('id="language"') == 1


def test_each_page_comes_in_the_browsers_language(client: TestClient) -> None:
    pt = client.get("/lobby", headers={"Accept-Language": "pt-BR,pt;q=0.9"})
    assert pt.status_code == 200
    assert '<html lang="pt-BR">' in pt.text
    assert translator("pt_BR").gettext("Puzzles") in pt.text
    assert "Accept-Language" in pt.headers["vary"]
    es = client.get("/no-such-page", headers={"Accept-Language": "es", "Accept": "text/html"})
    assert es.status_code == 404 and '<html lang="es">' in es.text
    en = client.get("/", headers={"Accept-Language": "de"})
    assert '<html lang="en">' in en.text and ">New game<" in en.text


def test_the_language_menu_is_remembered_by_the_browser_and_the_account(
    client: TestClient,
) -> None:
    r = client.post("/api/language", json={"locale": "es"})
    assert r.status_code == 204
    assert client.cookies[COOKIE] == "es"
    assert '<html lang="es">' in client.get("/", headers={"Accept-Language": "en"}).text
    refused = client.post("/api/language", json={"locale": "fr"})
    assert refused.status_code == 400 and "fr" in refused.json()["error"]["message"]
    assert client.cookies[COOKIE] == "es"  # unchanged

    signup = client.post("/api/account/signup", json={"username": "Rosa", "password": PASSWORD})
    assert signup.status_code == 200, signup.text
    csrf = {"X-CSRF-Token": client.get("/api/account").json()["csrf_token"]}
    chosen = client.post("/api/language", json={"locale": "pt-BR"}, headers=csrf)
    assert chosen.status_code == 204
    # another browser: no cookie, an English browser; signing in brings Portuguese back
    client.cookies.clear()
    login = client.post("/api/account/login", json={"username": "rosa", "password": PASSWORD})
    assert login.status_code == 200
    assert client.cookies[COOKIE] == "pt-BR"
    assert '<html lang="pt-BR">' in client.get("/", headers={"Accept-Language": "en"}).text


def test_errors_are_said_in_the_players_language(client: TestClient) -> None:
    for language, locale in (("es", "es"), ("pt-BR", "pt_BR")):
        r = client.post(
            "/api/account/signup",
            json={"username": "Ana", "password": "short"},
            headers={"Accept-Language": language},
        )
        assert r.status_code == 400
        expected = translator(locale).gettext(
            "password must be at least {low} characters, not {count}", low=8, count=5
        )
        assert r.json()["error"]["message"] == expected
        assert "password" not in expected  # translated, with the numbers in place
        assert "8" in expected and "5" in expected
    english = client.post("/api/account/signup", json={"username": "Ana", "password": "short"})
    assert english.json()["error"]["message"] == "password must be at least 8 characters, not 5"


def test_the_rule_book_lessons_and_practice_come_in_the_players_language(
    client: TestClient,
) -> None:
    words = translator("es")
    es = {"Accept-Language": "es"}
    rules = client.get("/api/rulebook", headers=es).json()["rules"]
    board = next(r for r in rules if r["id"] == "R1")
    assert board["title"] == words.gettext("The board") != "The board"
    assert board["moves"] == client.get("/api/rulebook").json()["rules"][0]["moves"]
    lessons = client.get("/api/lessons", headers=es).json()
    assert lessons[0]["title"] == words.gettext("How men move") != "How men move"
    answer = client.post(
        "/api/lessons/men/answer", json={"step": 0, "move": "22-18"}, headers=es
    ).json()
    assert answer["why"] == words.gettext("Men move one square forward, on the dark squares.")
    exercises = client.get("/api/practice", headers=es).json()
    assert exercises[0]["title"] == words.gettext("Three kings against one")


def test_token_scopes_and_decline_reasons_are_said_in_the_players_language(
    client: TestClient,
) -> None:
    from poolcheckers.server.accounts.tokens import SCOPES
    from poolcheckers.server.challenges.model import DECLINE_REASONS

    words = translator("pt_BR")
    for english in (*SCOPES.values(), *DECLINE_REASONS.values()):
        assert words.gettext(english) != english, english
    signup = client.post("/api/account/signup", json={"username": "Iara", "password": PASSWORD})
    assert signup.status_code == 200
    scopes = client.get("/api/account/tokens", headers={"Accept-Language": "pt-BR"}).json()
    assert scopes["scopes"]["challenge:write"] == words.gettext(SCOPES["challenge:write"])


def test_a_refused_move_names_its_rule_in_the_players_language(client: TestClient) -> None:
    """The rules library's refusal stays its English for English (and API clients);
    Spanish names the rule by its title on the rules page, and its id for the link."""
    created = client.post("/api/games", json={"mode": "local"}).json()
    gid, token = created["game"]["id"], created["token"]
    body = {"move": "11-18", "ply": 0, "token": token}
    english = client.post(f"/api/games/{gid}/move", json=body)
    assert english.status_code == 400
    assert english.json()["error"]["message"].endswith("(R6)")
    es = client.post(f"/api/games/{gid}/move", json=body, headers={"Accept-Language": "es"})
    said = es.json()["error"]["message"]
    title = translator("es").gettext("How men move")
    assert said.startswith("11-18 ") and title in said and said.endswith("(R6)")
    assert es.json()["error"]["code"] == "illegal_move"


def test_a_request_the_schema_refuses_is_said_in_the_players_language(
    client: TestClient,
) -> None:
    """pydantic's words stay as they are for English (API clients); a player reading
    Portuguese reads the common kinds in Portuguese, the field by its JSON name."""
    early = {"move": "11-15", "ply": -1}
    english = client.post("/api/games/x/move", json=early)
    pt = client.post("/api/games/x/move", json=early, headers={"Accept-Language": "pt-BR"})
    assert english.status_code == pt.status_code == 400
    assert english.json()["error"]["message"].startswith("ply: Input should be greater")
    assert pt.json()["error"]["message"] == "ply: pequeno demais (o mínimo é 0)"
    missing = client.post("/api/games/x/move", json={}, headers={"Accept-Language": "es"})
    assert "obligatorio" in missing.json()["error"]["message"]
