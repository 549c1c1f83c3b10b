"""PDN as a tree on the site: an imported game keeps every comment, NAG, strength
mark and variation (stored, shown with the game, written back on export), the analysis
board reads them, and its edited move tree is written as PDN with every move of every
line checked by the rules (R4-R21)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from poolcheckers.pdn import MAX_VARIATION_DEPTH, game_tree, read_games
from poolcheckers.server.games.pdn import MAX_ANNOTATIONS, MAX_TREE_MOVES

CORPUS = (Path(__file__).parents[2] / "data" / "annotated.pdn").read_text(encoding="utf-8")


def test_an_imported_game_is_exported_with_every_comment_and_variation(
    client: TestClient,
) -> None:
    answer = client.post("/api/import", content=CORPUS).json()
    assert answer["errors"] == [] and len(answer["imported"]) == 4
    for gid, original in zip(answer["imported"], read_games(CORPUS), strict=True):
        [back] = read_games(client.get(f"/api/games/{gid}/pdn").text)
        assert back.moves == original.moves
        assert back.comments == original.comments and back.nags == original.nags
        assert back.strengths == original.strengths
        assert back.variations == original.variations
        assert back.start_fen == original.start_fen  # its FEN tag written canonical (R5)
        assert back.tags.items() >= {k: v for k, v in original.tags.items() if k != "FEN"}.items()
        assert back.tags["GameId"] == gid


def test_the_game_page_receives_the_move_tree(client: TestClient) -> None:
    first = read_games(CORPUS)[0]
    (gid,) = client.post("/api/import", content=first.to_pdn()).json()["imported"]
    state = client.get(f"/api/games/{gid}").json()
    assert state["annotations"] == game_tree(first)
    assert state["annotations"]["moves"][0]["comment"] == "a quiet developing move"


def test_a_game_without_annotations_stores_no_tree(client: TestClient) -> None:
    (gid,) = client.post("/api/import", content="1. 11-15 22-18 *").json()["imported"]
    assert client.get(f"/api/games/{gid}").json()["annotations"] is None


def test_comments_too_long_to_keep_refuse_the_game_and_store_nothing(
    client: TestClient,
) -> None:
    words = " ".join(["word"] * (MAX_ANNOTATIONS // 5 + 10))
    answer = client.post("/api/import", content=f"1. 11-15 {{{words}}} 22-18 *").json()
    assert answer["imported"] == []
    [error] = answer["errors"]
    assert (
        "comments and variations take" in error["message"] and "split the game" in error["message"]
    )


def test_the_analysis_board_reads_the_tree_of_a_pdn(client: TestClient) -> None:
    answer = client.post("/api/analysis/pdn", json={"pdn": CORPUS}).json()
    trees = [g["tree"] for g in answer["games"]]
    assert trees == [game_tree(g) for g in read_games(CORPUS)]


def test_an_edited_tree_is_written_as_pdn(client: TestClient) -> None:
    tree = {
        "comment": "from the club's analysis",
        "moves": [
            {"move": "11-15", "comment": "the Old Fourteenth starts so"},
            {
                "move": "23-19",
                "nags": [1],
                "variations": [{"moves": [{"move": "22-18"}, {"move": "15x22"}]}],
            },
        ],
    }
    answer = client.post(
        "/api/analysis/export",
        json={"tree": tree, "tags": {"Black": "Ann", "White": "Bob"}},
    )
    assert answer.status_code == 200, answer.text
    text = answer.json()["pdn"]
    [game] = read_games(text)
    assert game_tree(game) == tree
    assert '[Black "Ann"]' in text and "(1... 22-18 2. 15x22)" in " ".join(text.split())


def test_an_exported_tree_from_a_position_keeps_its_rules_and_start(client: TestClient) -> None:
    tree = {"moves": [{"move": "22x31"}]}  # stops on the king row: the "stop" option
    answer = client.post(
        "/api/analysis/export",
        json={"fen": "B:W26,27:B22", "rules": {"crown_during_capture": "stop"}, "tree": tree},
    ).json()
    assert '[FEN "B:W26,27:B22"]' in answer["pdn"]
    assert '[Rules "apca+crown_during_capture=stop"]' in answer["pdn"]


def test_a_bad_move_in_a_variation_is_refused_with_where_and_the_rule(
    client: TestClient,
) -> None:
    tree = {
        "moves": [
            {"move": "11-15"},
            {"move": "23-19", "variations": [{"moves": [{"move": "22-18"}, {"move": "9-13"}]}]},
        ]
    }
    answer = client.post("/api/analysis/export", json={"tree": tree})
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "illegal_move"
    assert error["message"].startswith("moves[1].variations[0].moves[1]: cannot play 9-13")
    assert "R11" in error["message"]


def test_trees_too_large_or_too_deep_are_refused(client: TestClient) -> None:
    line = {"moves": [{"move": "11-15"}, {"move": "22-18"}, {"move": "15-11"}]}
    wide = {"moves": [{"move": "9-13", "variations": [line] * (MAX_TREE_MOVES // 3 + 1)}]}
    answer = client.post("/api/analysis/export", json={"tree": wide})
    assert answer.status_code in (400, 413)
    deep: dict[str, object] = {"moves": [{"move": "9-13"}]}
    for _ in range(MAX_VARIATION_DEPTH + 1):
        deep = {"moves": [{"move": "11-15", "variations": [deep]}]}
    answer = client.post("/api/analysis/export", json={"tree": deep})
    assert answer.status_code == 400
    assert "deeper than" in answer.json()["error"]["message"]


def test_a_result_the_position_contradicts_is_refused(client: TestClient) -> None:
    answer = client.post(
        "/api/analysis/export",
        json={"fen": "B:W18,27:B14,K1", "tree": {"moves": [{"move": "14x32"}]}, "result": "0-2"},
    )
    assert answer.status_code == 400
    assert "contradicts the final position" in answer.json()["error"]["message"]
