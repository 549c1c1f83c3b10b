"""A round robin in the browser, the APCA way: three people sign up, one makes a
division with two games a pairing, the others join from the event page, the creator
starts it; the paired players' event pages open their games by themselves; every
game is played (moves by clicking, then a resignation); the crosstable, the
standings and the winner are right and the event's PDN downloads.  On a phone and
on a 1366x768 laptop.  And the invitations of an imported TRF file: the players it
names accept or decline on the event's page, in their language; an arena player who
did not make a first move is paused, and told why on the event's page."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pytest
from caissify_pairings.trf import write_trf

from .conftest import PageFactory, Server
from .helpers import SCREENSHOTS, click_path, shot, wait_moves
from .test_community import SIZES, sign_up

if TYPE_CHECKING:
    from playwright.sync_api import FilePayload, Page

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def event(page: Page, tid: str) -> Any:
    """The event as the page's account reads it (by the browser context's requests, not
    in the page: an event page may be on its way to a game that just started)."""
    return page.request.get(f"{origin(page)}/api/tournaments/{tid}").json()


def origin(page: Page) -> str:
    match = re.match(r"https?://[^/]+", page.url)
    assert match is not None
    return match.group(0)


def post(page: Page, path: str, body: dict[str, Any]) -> int:
    """A POST by the page's account, from the site's origin (as the page's own would be)."""
    base = origin(page)
    r = page.request.post(base + path, data=body, headers={"Origin": base})
    return r.status


def make_and_join(
    server: Server,
    creator: Page,
    pages: dict[str, Page],
    name: str,
    system: str,
    fields: dict[str, str],
) -> str:
    """The creator makes an event from the form (``fields``: inputs and selects by
    name), then every page joins it from the event page; the event's id."""
    creator.goto(server.url("/tournaments"))
    form = creator.locator('form[aria-label="New tournament"]')
    form.locator('input[name="name"]').fill(name)
    form.locator('select[name="system"]').select_option(system)
    for field, value in fields.items():
        control = form.locator(f'[name="{field}"]')
        if control.evaluate("e => e.tagName") == "SELECT":
            control.select_option(value)
        else:
            control.fill(value)
    form.locator('button[type="submit"]').click()
    creator.wait_for_url(re.compile(r"/tournaments/[^/]+$"))
    for page in pages.values():
        if page is not creator:
            page.goto(creator.url)
        page.locator('.actions button:text-is("Join")').click()
        page.wait_for_selector('.actions button:text-is("Withdraw")')
    return creator.url.rsplit("/", 1)[1]


def play(
    pages: dict[str, Page],
    server: Server,
    pairing: dict[str, Any],
    winner: str,
    *,
    resign_at_once: bool = False,
) -> None:
    """Both players open the game, make a move each by clicking, the loser resigns.
    ``resign_at_once``: Black first tries to resign before moving, and reads why not."""
    from playwright.sync_api import Error as PlaywrightError

    black, white = pages[pairing["black"]], pages[pairing["white"]]
    url = server.url(f"/play/{pairing['game']}")
    for page in (black, white):
        if page.url != url:
            try:
                page.goto(url)
            except PlaywrightError:
                # the player's event page was already on its way to this game by itself
                page.wait_for_url(url)
        page.wait_for_selector("svg.board .piece")
    black.wait_for_function("() => document.querySelector('#status').textContent.includes('your')")
    if resign_at_once:
        black.click("#resign")
        black.click("#resign")  # confirm: the server refuses, the game goes on
        black.wait_for_selector("#error:has-text('only once both sides have moved')")
        assert "forfeit" in black.inner_text("#error")
        assert black.is_hidden("#outcome")
    click_path(black, [11, 15])
    assert wait_moves(white, 1) == ["11-15"]
    white.wait_for_function("() => document.querySelector('#status').textContent.includes('your')")
    click_path(white, [23, 19])
    wait_moves(black, 2)
    loser = white if winner == pairing["black"] else black
    loser.click("#resign")
    loser.click("#resign")  # confirm
    for page in (black, white):
        page.wait_for_selector("#outcome:not([hidden])")


@pytest.mark.parametrize("size", list(SIZES))
def test_a_round_robin_of_two_game_matches_in_the_browser(
    server: Server, new_page: PageFactory, size: str
) -> None:
    names = [f"Ann_rr_{size}", f"Bob_rr_{size}", f"Cid_rr_{size}"]
    pages = {name: new_page(**SIZES[size]) for name in names}
    for name, page in pages.items():
        sign_up(page, server, name)
    ann = pages[names[0]]
    tid = make_and_join(server, ann, pages, f"Division {size}", "round_robin", {"games": "2"})
    shot(ann, f"tournament-joined-{size}", full_page=True)
    ann.locator('.actions button:text-is("Start now")').click()
    # the two players of round 1 are taken to their game by their event page
    for _ in range(100):  # the round is paired in the background
        if event(ann, tid)["pairings"]:
            break
        ann.wait_for_timeout(100)
    first = next(p for p in event(ann, tid)["pairings"] if p["game"] is not None)
    for name in (first["black"], first["white"]):
        pages[name].wait_for_url(re.compile(r"/play/[^/?]+$"), timeout=15_000)
    played: set[str] = set()
    while True:
        state = event(ann, tid)
        if state["status"] == "finished":
            break
        todo = [p for p in state["pairings"] if p["game"] and not p["result"]]
        todo = [p for p in todo if p["game"] not in played]
        for pairing in todo:
            # Ann wins every game; between the others, the side that began wins
            winner = (
                names[0] if names[0] in (pairing["black"], pairing["white"]) else pairing["black"]
            )
            play(pages, server, pairing, winner, resign_at_once=not played)
            played.add(pairing["game"])
        if not todo:
            ann.wait_for_timeout(200)
    assert len(played) == 6
    ann.goto(server.url(f"/tournaments/{tid}"))
    ann.wait_for_selector(".podium h2")
    assert ann.inner_text(".podium h2") == f"Winner: {names[0]}"
    rows = ann.locator("table.standings tbody tr")
    assert rows.nth(0).get_attribute("data-player") == names[0]
    assert "6" in rows.nth(0).locator("td.score").inner_text()  # 4 games won + a bye
    cross = ann.locator("table.crosstable")
    cross_text = cross.inner_text()
    assert "2" in cross_text and "1" in cross_text
    (SCREENSHOTS.parent / f"tournament-crosstable-{size}.txt").write_text(
        cross_text + "\n", encoding="utf-8"
    )
    shot(ann, f"tournament-finished-{size}", full_page=True)
    with ann.expect_download() as download:
        ann.click("text=All games (PDN)")
    pdn = download.value.path().read_text(encoding="utf-8")
    assert pdn.count(f'[Event "Division {size}"]') == 6


@pytest.mark.parametrize("size", list(SIZES))
def test_a_direct_challenge_declined_then_accepted(
    server: Server, new_page: PageFactory, size: str
) -> None:
    ann_name, bob_name = f"Ann_ch_{size}", f"Bob_ch_{size}"
    ann, bob = new_page(**SIZES[size]), new_page(**SIZES[size])
    sign_up(ann, server, ann_name)
    sign_up(bob, server, bob_name)  # Bob waits in the lobby
    bob.wait_for_selector('section[aria-label="Challenges"] li')
    ann.goto(server.url(f"/players/{bob_name}"))
    form = ann.locator('section[aria-label="Challenge"]')
    form.locator('select[name="challenge-clock"]').select_option(label="3+2")
    form.locator('button:text-is("Challenge")').click()
    ann.wait_for_selector(f"text=Challenge sent to {bob_name}")
    received = bob.locator('section[aria-label="Challenges"] li', has_text=ann_name)
    received.locator('button:text-is("Accept")').wait_for()  # live, by the lobby socket
    shot(bob, f"challenge-received-{size}")
    received.locator('select[aria-label="Reason"]').select_option("too_fast")
    received.locator('button:text-is("Decline")').click()
    ann.goto(server.url("/lobby"))
    declined = ann.locator('section[aria-label="Challenges"] li[data-status="declined"]')
    declined.wait_for()
    assert "too fast" in declined.inner_text()
    # a second challenge, typed in the lobby, casual with a §9 option: accepted, both go
    # to the game, which is played on the options chosen
    form = ann.locator('[aria-label="Challenge a player"]')
    form.locator('input[name="challenge-username"]').fill(bob_name)
    form.locator('input[name="challenge-rated"]').uncheck()
    form.locator("summary", has_text="Rule options").click()
    form.locator('select[name="crown_during_capture"]').select_option("stop")
    form.locator('button:text-is("Challenge")').click()
    ann.wait_for_selector(f"text=Challenge sent to {bob_name}")
    ann.wait_for_selector('section[aria-label="Challenges"] li[data-status="open"]')
    open_one = bob.locator('section[aria-label="Challenges"] li', has=bob.locator("button"))
    open_one.locator('button:text-is("Accept")').click()
    for page in (ann, bob):
        page.wait_for_url(re.compile(r"/play/[^/?]+$"))
        page.wait_for_selector("svg.board .piece")
    assert ann.url == bob.url
    game_id = ann.url.rsplit("/", 1)[1]
    game = ann.request.get(server.url(f"/api/games/{game_id}")).json()
    assert game["rules"]["crown_during_capture"] == "stop"
    sent = ann.request.get(server.url("/api/challenges")).json()["out"]
    assert [c["rated"] for c in sent if c["game"] == game_id] == [False]


@pytest.mark.parametrize("size", list(SIZES))
def test_an_arena_pairs_its_players_who_may_berserk(
    server: Server, new_page: PageFactory, size: str
) -> None:
    names = [f"Ann_ar_{size}", f"Bob_ar_{size}"]
    pages = {name: new_page(**SIZES[size]) for name in names}
    for name, page in pages.items():
        sign_up(page, server, name)
    ann = pages[names[0]]
    arena = {"minutes": "3", "increment": "2"}
    tid = make_and_join(server, ann, pages, f"Arena {size}", "arena", arena)
    ann.locator('.actions button:text-is("Start now")').click()
    for page in pages.values():  # paired at once, and taken to the game
        page.wait_for_url(re.compile(r"/play/[^/?]+$"), timeout=15_000)
        page.wait_for_selector("svg.board .piece")
    game_id = ann.url.rsplit("/", 1)[1]
    state = ann.evaluate("async (id) => (await fetch('/api/games/' + id)).json()", game_id)
    berserker = pages[names[0]] if state["your_color"] == "black" else pages[names[1]]
    berserker.click("#berserk")
    berserker.wait_for_selector("text=Berserk: your clock is halved")
    after = berserker.evaluate("async (id) => (await fetch('/api/games/' + id)).json()", game_id)
    mine = after["your_color"]
    assert after["clock"][mine] == pytest.approx(90, abs=1)
    shot(berserker, f"arena-berserk-{size}")
    pairing = event(ann, tid)["pairings"][0]
    assert pairing["berserk"]


def api_play(page: Page, game: str, moves: list[str], start: int) -> None:
    for ply, move in enumerate(moves, start=start):
        assert post(page, f"/api/games/{game}/move", {"move": move, "ply": ply}) == 200


def test_a_swiss_event_made_and_joined_in_the_browser_ends_with_its_standings(
    server: Server, new_page: PageFactory
) -> None:
    names = [f"Swiss{i}_e2e" for i in range(1, 6)]
    pages = {name: new_page(**SIZES["laptop"]) for name in names}
    for name, page in pages.items():
        sign_up(page, server, name)
    ann = pages[names[0]]
    swiss = {"games": "1", "rounds": "3"}
    tid = make_and_join(server, ann, pages, "Club Swiss e2e", "swiss", swiss)
    ann.locator('.actions button:text-is("Start now")').click()
    done: set[str] = set()
    while event(ann, tid)["status"] != "finished":
        for p in event(ann, tid)["pairings"]:
            if p["game"] and not p["result"] and p["game"] not in done:
                # both sides move (by the API, from their own browsers), then White resigns
                api_play(pages[p["black"]], p["game"], ["11-15"], 0)
                api_play(pages[p["white"]], p["game"], ["23-19"], 1)
                assert post(pages[p["white"]], f"/api/games/{p['game']}/resign", {}) == 200
                done.add(p["game"])
        ann.wait_for_timeout(200)
    assert len(done) == 6  # 3 rounds of 2 games, a bye each round
    ann.goto(server.url(f"/tournaments/{tid}"))
    ann.wait_for_selector(".podium h2")
    table = ann.locator("table.standings")
    rows = table.locator("tbody tr")
    assert rows.count() == 5
    text = table.inner_text()
    assert "Buchholz cut-1" in text and "Sonneborn–Berger" in text
    final = event(ann, tid)
    assert sum(s["score"] for s in final["standings"]) == 6 + 3  # games + byes
    shot(ann, "tournament-swiss-finished-laptop", full_page=True)
    artifacts = SCREENSHOTS.parent
    (artifacts / "tournament-swiss-standings.txt").write_text(text + "\n", encoding="utf-8")
    # its TRF file, imported from the tournaments page, is the same finished event
    trf = ann.request.get(server.url(f"/api/tournaments/{tid}/trf")).text()
    ann.goto(server.url("/tournaments"))
    form = ann.locator('form[aria-label="Import a Swiss event"]')
    upload: FilePayload = {"name": "club.trf", "mimeType": "text/plain", "buffer": trf.encode()}
    form.locator('input[name="trf"]').set_input_files(files=[upload])
    form.locator('button[type="submit"]').click()
    ann.wait_for_url(re.compile(r"/tournaments/(?!" + tid + r")[^/]+$"))
    ann.wait_for_selector(".podium h2")
    copy = event(ann, ann.url.rsplit("/", 1)[1])
    assert [(s["username"], s["score"]) for s in copy["standings"]] == [
        (s["username"], s["score"]) for s in final["standings"]
    ]


def test_a_swiss_of_two_game_matches_swaps_colours_and_scores_matches(
    server: Server, new_page: PageFactory
) -> None:
    """Four players, two rounds of two-game matches on a phone: each match's second
    game starts when the first ends, with colours swapped; a 2-0 is two match points, a
    1-1 one each; the page's standings show them."""
    names = [f"Match{i}_e2e" for i in range(1, 5)]
    pages = {name: new_page(**SIZES["phone"]) for name in names}
    for name, page in pages.items():
        sign_up(page, server, name)
    ann = pages[names[0]]
    tid = make_and_join(
        server, ann, pages, "Swiss matches e2e", "swiss", {"games": "2", "rounds": "2"}
    )
    ann.locator('.actions button:text-is("Start now")').click()
    done: set[str] = set()
    while event(ann, tid)["status"] != "finished":
        for p in event(ann, tid)["pairings"]:
            if p["game"] and not p["result"] and p["game"] not in done:
                api_play(pages[p["black"]], p["game"], ["11-15"], 0)
                api_play(pages[p["white"]], p["game"], ["23-19"], 1)
                # board 1's matches are split 1-1 (each game's White resigns); board 2's
                # are won 2-0 by the pairing's first player
                first_leg = p["leg"] == 1
                loser = p["white"] if p["board"] == 1 or first_leg else p["black"]
                assert post(pages[loser], f"/api/games/{p['game']}/resign", {}) == 200
                done.add(p["game"])
        ann.wait_for_timeout(200)
    final = event(ann, tid)
    assert len(done) == 8
    legs: dict[tuple[int, int], dict[int, tuple[str, str]]] = {}
    won: dict[tuple[int, int], dict[str, int]] = {}
    for p in final["pairings"]:
        key = (p["round"], p["board"])
        legs.setdefault(key, {})[p["leg"]] = (p["black"], p["white"])
        winner = p["black"] if p["result"] == "2-0" else p["white"]
        won.setdefault(key, {p["black"]: 0, p["white"]: 0})[winner] += 1
    assert len(legs) == 4
    for match in legs.values():
        assert match[2] == (match[1][1], match[1][0])  # colours swapped
    expected = dict.fromkeys(names, 0)
    for (_rnd, board), games in won.items():
        assert sorted(games.values()) == ([1, 1] if board == 1 else [0, 2])
        for player, wins in games.items():
            expected[player] += 2 if wins == 2 else 1 if wins == 1 else 0
    assert {s["username"]: s["match_points"] for s in final["standings"]} == expected
    assert sum(s["score"] for s in final["standings"]) == 8
    ann.goto(server.url(f"/tournaments/{tid}"))
    ann.wait_for_selector(".podium h2")
    table = ann.locator("table.standings")
    assert "Match points" in table.inner_text()
    assert table.locator("tbody tr").count() == 4
    shot(ann, "tournament-swiss-matches-phone", full_page=True)


#: the invitation's words, by the page's language
INVITATION_WORDS = {
    "en": {"accept": "Accept", "decline": "Decline", "invited": "(invited)",
           "declined": "(declined)", "withdraw": "Withdraw", "says": "invites you to play"},
    "pt-BR": {"accept": "Aceitar", "decline": "Recusar", "invited": "(convidado)",
              "declined": "(recusou)", "withdraw": "Retirar-se", "says": "convida você"},
}  # fmt: skip


def sign_up_by_api(page: Page, server: Server, name: str) -> None:
    """An account made by the page's browser context (signed in there), whatever the
    page's language."""
    base = server.url("/").rstrip("/")
    body = {"username": name, "password": "correct horse battery"}
    r = page.request.post(f"{base}/api/account/signup", data=body, headers={"Origin": base})
    assert r.ok, r.text()


def named_trf(names: list[str], rounds: int) -> str:
    """A TRF16 file of a Swiss event not begun, naming ``names``."""
    players = [
        {"starting_number": n, "name": name, "rating": 1500, "score": 0.0, "results": {}}
        for n, name in enumerate(names, start=1)
    ]
    text: str = write_trf({"name": "Over the board"}, players, rounds)
    return text


def standing(page: Page, name: str) -> str:
    return page.locator(f'table.standings tbody tr[data-player="{name}"]').inner_text()


@pytest.mark.parametrize(
    ("size", "language"), [("phone", "en"), ("laptop", "en"), ("phone", "pt-BR")]
)
def test_the_players_an_imported_trf_names_accept_or_decline_on_the_event_page(
    server: Server, new_page: PageFactory, size: str, language: str
) -> None:
    words = INVITATION_WORDS[language]
    tag = f"{size[0]}{language[:2]}"
    names = [f"Dir_iv_{tag}", f"Bob_iv_{tag}", f"Cid_iv_{tag}"]
    pages = {name: new_page(**SIZES[size], locale=language) for name in names}
    for name, page in pages.items():
        sign_up_by_api(page, server, name)
    director, bob, cid = (pages[n] for n in names)
    director.goto(server.url("/tournaments"))
    form = director.locator("form:has(input[name='trf'])")
    trf = named_trf(names, 3).encode()
    upload: FilePayload = {"name": "club.trf", "mimeType": "text/plain", "buffer": trf}
    form.locator('input[name="trf"]').set_input_files(files=[upload])
    form.locator('button[type="submit"]').click()
    director.wait_for_url(re.compile(r"/tournaments/[^/]+$"))
    director.wait_for_selector("table.standings tbody tr")
    url = director.url
    # the director is in; the others are listed as invited, on everybody's page
    assert words["invited"] not in standing(director, names[0])
    for name in names[1:]:
        assert words["invited"] in standing(director, name)
    # Bob sees the invitation with Accept and Decline, and accepts
    bob.goto(url)
    invitation = bob.locator('.invitation[data-invitation="invited"]')
    invitation.wait_for()
    assert words["says"] in invitation.inner_text() and names[0] in invitation.inner_text()
    accept = invitation.locator(f'button:text-is("{words["accept"]}")')
    decline = invitation.locator(f'button:text-is("{words["decline"]}")')
    assert accept.is_visible() and decline.is_visible()
    assert accept.bounding_box() is not None and decline.bounding_box() is not None
    shot(bob, f"tournament-invitation-{size}-{language}")
    accept.click()
    bob.locator(f'.actions button:text-is("{words["withdraw"]}")').wait_for()
    assert bob.locator(".invitation").count() == 0
    bob.wait_for_function(
        "([name, mark]) => !document.querySelector(`tr[data-player='${name}']`)"
        ".textContent.includes(mark)",
        arg=[names[1], words["invited"]],
    )
    assert event(bob, url.rsplit("/", 1)[1])["you"] == {
        "joined": True, "invitation": None, "creator": False, "game": None, "paused": None,
    }  # fmt: skip
    # Cid declines: listed as declined, and may still accept
    cid.goto(url)
    invitation = cid.locator('.invitation[data-invitation="invited"]')
    invitation.locator(f'button:text-is("{words["decline"]}")').click()
    declined = cid.locator('.invitation[data-invitation="declined"]')
    declined.wait_for()
    assert declined.locator(f'button:text-is("{words["decline"]}")').count() == 0
    assert words["declined"] in standing(cid, names[2])
    declined.locator(f'button:text-is("{words["accept"]}")').click()
    cid.locator(f'.actions button:text-is("{words["withdraw"]}")').wait_for()
    director.reload()
    director.wait_for_selector("table.standings tbody tr")
    for name in names:
        row = standing(director, name)
        assert words["invited"] not in row and words["declined"] not in row
    shot(director, f"tournament-invitations-accepted-{size}-{language}", full_page=True)


#: the pause's words, by the page's language
PAUSED_MARK = {"en": "(paused)", "pt-BR": "(em pausa)"}
PAUSED_GAME = {
    "en": "Aborted: Black did not make a first move (arena rule, ended by the director: no"
    " result, Black is paused)",
    "pt-BR": "Anulada: as pretas não fizeram o primeiro lance (regra da arena, decidido pelo"
    " organizador: sem resultado, as pretas ficam em pausa)",
}
PAUSED_WORDS = {
    "en": ("you did not make your first move in time", "Join"),
    "pt-BR": ("não fez seu primeiro lance a tempo", "Participar"),
}


@pytest.mark.parametrize(("size", "language"), [("laptop", "en"), ("phone", "pt-BR")])
def test_an_arena_player_who_did_not_move_is_paused_and_told_why(
    server: Server, new_page: PageFactory, size: str, language: str
) -> None:
    says, join = PAUSED_WORDS[language]
    tag = f"{size[0]}{language[:2]}"
    names = [f"Ann_ps_{tag}", f"Bob_ps_{tag}"]
    pages = {name: new_page(**SIZES[size], locale=language) for name in names}
    for name, page in pages.items():
        sign_up_by_api(page, server, name)
    ann = pages[names[0]]
    ann.goto(server.url("/tournaments"))
    base = origin(ann)
    body = {"name": f"Arena ps {tag}", "system": "arena", "clock": {"initial": 180,
            "increment": 2}, "duration_minutes": 30}  # fmt: skip
    r = ann.request.post(base + "/api/tournaments", data=body, headers={"Origin": base})
    assert r.ok, r.text()
    tid = r.json()["id"]
    url = server.url(f"/tournaments/{tid}")
    for page in pages.values():
        page.goto(url)
        page.locator(f'.actions button:text-is("{join}")').click()
        page.locator(
            f'.actions button:text-is("{INVITATION_WORDS[language]["withdraw"]}")'
        ).wait_for()
    assert post(ann, f"/api/tournaments/{tid}/start", {}) == 200
    for page in pages.values():  # paired at once, and taken to the game
        page.wait_for_url(re.compile(r"/play/[^/?]+$"), timeout=15_000)
    game = event(ann, tid)["pairings"][0]
    # the director ends it before Black's first move, as the no-show rule would
    assert post(ann, f"/api/tournaments/{tid}/forfeit", {"game": game["game"]}) == 200
    absent, there = pages[game["black"]], pages[game["white"]]
    absent.goto(url)
    paused = absent.locator(".actions .paused")
    paused.wait_for()
    assert says in paused.inner_text()
    assert "0-0" in absent.locator("main").inner_text()
    mark = PAUSED_MARK[language]
    row = f"table.standings tr[data-player='{game['black']}']"
    absent.wait_for_selector(f"{row}:has-text('{mark}')")
    shot(absent, f"arena-paused-{size}-{language}", full_page=True)
    # the game page says the game has no result and why, in the page's language
    there.goto(server.url(f"/play/{game['game']}"))
    there.wait_for_selector("#outcome:not([hidden])")
    assert PAUSED_GAME[language] in there.inner_text("#outcome")
    there.goto(url)
    there.wait_for_selector("table.standings tbody tr")
    assert there.locator(".actions .paused").count() == 0
    # pressing Join pairs them again: their page takes them to the new game
    absent.locator(f'.actions button:text-is("{join}")').click()
    absent.wait_for_url(re.compile(r"/play/(?!" + game["game"] + r")[^/?]+$"), timeout=15_000)


#: a round robin's forfeit, by the page's language: the game page's heading to each
#: player, its reason, the event's pairing and the loser's player page
FORFEIT_WORDS = {
    "en": {
        "won": "You win by forfeit (0-2)",
        "lost": "You lose by forfeit (0-2)",
        "why": "White wins by forfeit: Black did not make a first move (tournament rule,"
        " ended by the director)",
        "pairing": "0-2 (White wins by forfeit)",
        "player": "Lost by forfeit",
    },
    "pt-BR": {
        "won": "Você venceu por W.O. (0-2)",
        "lost": "Você perdeu por W.O. (0-2)",
        "why": "Vitória das brancas por W.O.: as pretas não fizeram o primeiro lance (regra"
        " do torneio, decidido pelo organizador)",
        "pairing": "0-2 (vitória das brancas por W.O.)",
        "player": "Derrota por W.O.",
    },
    "es": {
        "won": "Ganas por ausencia (0-2)",
        "lost": "Pierdes por ausencia (0-2)",
        "why": "Las blancas ganan por ausencia: las negras no hicieron su primera jugada"
        " (regla del torneo, decidido por el organizador)",
        "pairing": "0-2 (ganan las blancas por ausencia)",
        "player": "Perdida por ausencia",
    },
}


def started_by_api(pages: dict[str, Page], server: Server, body: dict[str, Any]) -> str:
    """An event made by the first page's account (``body``), joined by every page's
    account, started; its id."""
    first = next(iter(pages.values()))
    base = server.url("/").rstrip("/")
    r = first.request.post(base + "/api/tournaments", data=body, headers={"Origin": base})
    assert r.ok, r.text()
    tid: str = r.json()["id"]
    for page in pages.values():
        # not the event's page: it would take the player to their game by itself
        page.goto(server.url("/tournaments"))
        assert post(page, f"/api/tournaments/{tid}/join", {}) == 200
    assert post(first, f"/api/tournaments/{tid}/start", {}) == 200
    return tid


def paired(pages: dict[str, Page], tid: str, count: int) -> dict[str, Any]:
    """The ``count``-th game of the event, once it is on (every page's account reads
    the event meanwhile: present for an arena's pairings)."""
    for _ in range(150):  # paired in the background
        for page in pages.values():
            games = [p for p in event(page, tid)["pairings"] if p["game"]]
        if len(games) >= count:
            return games[count - 1]  # type: ignore[no-any-return]
        page.wait_for_timeout(100)
    raise AssertionError(f"game {count} of {tid} never began")


@pytest.mark.parametrize(
    ("size", "language"), [("laptop", "en"), ("phone", "pt-BR"), ("laptop", "es")]
)
def test_a_round_robin_forfeit_reads_the_same_on_the_game_event_and_player_pages(
    server: Server, new_page: PageFactory, size: str, language: str
) -> None:
    words = FORFEIT_WORDS[language]
    tag = f"{size[0]}{language[:2]}"
    names = [f"Ann_ff_{tag}", f"Bob_ff_{tag}"]
    pages = {name: new_page(**SIZES[size], locale=language) for name in names}
    for name, page in pages.items():
        sign_up_by_api(page, server, name)
    body = {"name": f"Division ff {tag}", "system": "round_robin",
            "clock": {"initial": 600, "increment": 5}}  # fmt: skip
    tid = started_by_api(pages, server, body)
    game = paired(pages, tid, 1)
    # the director ends it before Black's first move, as the no-show rule would
    assert post(pages[names[0]], f"/api/tournaments/{tid}/forfeit", {"game": game["game"]}) == 200
    black, white = pages[game["black"]], pages[game["white"]]
    for page, head in ((white, words["won"]), (black, words["lost"])):
        page.goto(server.url(f"/play/{game['game']}"))
        page.wait_for_selector("#outcome:not([hidden])")
        said = page.inner_text("#outcome")
        assert head in said and words["why"] in said
        assert page.inner_text("#move-list li.result") == "0-2"
    shot(black, f"forfeit-game-{size}-{language}", full_page=True)
    # the event's page: the pairing says who won by forfeit, the standings count it
    white.goto(server.url(f"/tournaments/{tid}"))
    white.wait_for_selector(".podium h2")
    pairing = white.locator(".round li").first.inner_text()
    assert words["pairing"] in pairing
    row = f"table.standings tr[data-player='{game['white']}']"
    assert white.inner_text(f"{row} td.score") == "1"
    assert "1/0/0" in white.inner_text(row)
    shot(white, f"forfeit-event-{size}-{language}", full_page=True)
    # the loser's page lists the game as lost by forfeit
    black.goto(server.url(f"/players/{game['black']}"))
    line = black.locator(f"tr[data-game='{game['game']}']")
    line.wait_for()
    assert "0-2" in line.inner_text() and words["player"] in line.inner_text()


def column(page: Page, header: str) -> int:
    """The index of the standings' column headed ``header``."""
    heads = page.locator("table.standings thead th").all_inner_texts()
    return heads.index(header)


def cell(page: Page, player: str, index: int) -> str:
    row = page.locator(f"table.standings tbody tr[data-player='{player}']")
    return row.locator("td, th").nth(index).inner_text()


#: an arena's standings columns, by the page's language
ARENA_COLUMNS = {"en": ("Games", "Points by game"), "pt-BR": ("Partidas", "Pontos por partida")}


@pytest.mark.parametrize(("size", "language"), [("laptop", "en"), ("phone", "pt-BR")])
def test_an_arenas_games_column_counts_the_games_that_count(
    server: Server, new_page: PageFactory, size: str, language: str
) -> None:
    """One game won by resignation, one a side never moved in (which counts for
    nobody): each player has 1 game, and beside it their points game by game."""
    games_head, sheet_head = ARENA_COLUMNS[language]
    tag = f"{size[0]}{language[:2]}"
    names = [f"Ann_ag_{tag}", f"Bob_ag_{tag}"]
    pages = {name: new_page(**SIZES[size], locale=language) for name in names}
    for name, page in pages.items():
        sign_up_by_api(page, server, name)
    body = {"name": f"Arena ag {tag}", "system": "arena",
            "clock": {"initial": 180, "increment": 2}, "duration_minutes": 30}  # fmt: skip
    tid = started_by_api(pages, server, body)
    first = paired(pages, tid, 1)
    api_play(pages[first["black"]], first["game"], ["11-15"], 0)
    api_play(pages[first["white"]], first["game"], ["23-19"], 1)
    assert post(pages[first["white"]], f"/api/games/{first['game']}/resign", {}) == 200
    second = paired(pages, tid, 2)
    assert post(pages[names[0]], f"/api/tournaments/{tid}/forfeit", {"game": second["game"]}) == 200
    page = pages[first["white"]]
    page.goto(server.url(f"/tournaments/{tid}"))
    page.wait_for_selector(f"table.standings tbody tr[data-player='{second['black']}']")
    page.wait_for_function(
        "() => document.querySelector('main').innerText.includes('0-0')"
    )  # the second game, no result
    games = column(page, games_head)
    assert [cell(page, name, games) for name in (first["black"], first["white"])] == ["1", "1"]
    sheet = column(page, sheet_head)
    assert [cell(page, name, sheet) for name in (first["black"], first["white"])] == ["2", "0"]
    shot(page, f"arena-games-{size}-{language}", full_page=True)


#: a Swiss event of four, from a TRF file: round 1 P1–P2 drawn, P3 beat P4; round 2
#: P1 beat P3, P2 beat P4.  Scores 1½, 1½, 1, 0; Sonneborn–Berger: P1 ½×1½ + 1×1 = 1¾,
#: P2 ½×1½ + 1×0 = ¾ (quarters: a draw against a player on a half point)
SB_RESULTS: dict[int, dict[int, tuple[int, str, str]]] = {
    1: {1: (2, "w", "="), 2: (3, "w", "1")},
    2: {1: (1, "b", "="), 2: (4, "w", "1")},
    3: {1: (4, "w", "1"), 2: (1, "b", "0")},
    4: {1: (3, "b", "0"), 2: (2, "b", "0")},
}


@pytest.mark.parametrize(("size", "language"), [("laptop", "en"), ("phone", "pt-BR")])
def test_sonneborn_berger_is_shown_with_its_fractions(
    server: Server, new_page: PageFactory, size: str, language: str
) -> None:
    tag = f"{size[0]}{language[:2]}"
    names = [f"P{i}_sb_{tag}" for i in range(1, 5)]
    pages = [new_page(**SIZES[size], locale=language) for _ in names]
    for name, page in zip(names, pages, strict=True):
        sign_up_by_api(page, server, name)
    players = [
        {"starting_number": n, "name": name, "rating": 1500, "score": 0.0,
         "results": {rnd: {"opponent": opp, "color": colour, "result": code}
                     for rnd, (opp, colour, code) in SB_RESULTS[n].items()}}
        for n, name in enumerate(names, start=1)
    ]  # fmt: skip
    trf = write_trf({"name": "Club quarters"}, players, 2)
    director = pages[0]
    director.goto(server.url("/tournaments"))
    form = director.locator("form:has(input[name='trf'])")
    upload: FilePayload = {"name": "club.trf", "mimeType": "text/plain", "buffer": trf.encode()}
    form.locator('input[name="trf"]').set_input_files(files=[upload])
    form.locator('button[type="submit"]').click()
    director.wait_for_url(re.compile(r"/tournaments/[^/]+$"))
    director.wait_for_selector("table.standings tbody tr")
    tour = event(director, director.url.rsplit("/", 1)[1])
    sb = {s["username"]: s["tiebreaks"]["sonneborn_berger"] for s in tour["standings"]}
    assert (sb[names[0]], sb[names[1]]) == (1.75, 0.75)
    index = 6 + tour["tiebreak_order"].index("sonneborn_berger")
    shown = [cell(director, name, index) for name in names]
    assert shown == ["1¾", "¾", "0", "0"]
    assert cell(director, names[0], 3) == "1½"  # the score, as before
    shot(director, f"tournament-sonneborn-berger-{size}-{language}", full_page=True)
