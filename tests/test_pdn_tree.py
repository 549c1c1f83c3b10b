"""PDN as a tree: every comment, NAG, strength mark and (nested) variation of a game
survives reading and writing, and the move tree as plain data (the form the site
stores and the analysis board edits) converts back to the same game, every move of
every line checked by the rules (R4-R21)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_pdn import random_game, setup_games, start_games

from poolcheckers import Board
from poolcheckers.errors import PdnTreeError
from poolcheckers.pdn import (
    MAX_VARIATION_DEPTH,
    PdnGame,
    game_tree,
    read_games,
    tree_to_game,
    write_game,
    write_games,
)

CORPUS = Path(__file__).parent / "data" / "annotated.pdn"


def test_hand_written_corpus_round_trips_byte_for_byte() -> None:
    text = CORPUS.read_text(encoding="utf-8")
    games = read_games(text)
    assert len(games) == 4
    assert write_games(games) == text
    assert read_games(write_games(games)) == games


def test_comments_variations_nags_and_unknown_tags_are_all_read() -> None:
    club, nested, setup, ending = read_games(CORPUS.read_text(encoding="utf-8"))
    assert club.comments == {
        0: "A club game with the coach's notes.",
        1: "a quiet developing move",
    }
    assert club.tags["Annotator"] == "R. Coach" and club.tags["Opening"] == "Old Fourteenth"
    [alternative] = club.variations[6]  # 3... 24-20 instead of 17-14
    assert [str(m) for m in alternative.moves] == ["24-20", "15x24", "28x19"]
    assert alternative.comments == {1: "also playable"}
    assert alternative.variations[1][0].nags == {1: [6]}
    assert club.nags == {6: [1]}
    # variations three deep, marks and a NAG after a variation
    assert nested.strengths == {1: "!", 3: "?!"}
    inner = nested.variations[3][0].variations[1][0]
    assert [str(m) for m in inner.moves] == ["5-9", "24-20", "13-17"]
    assert inner.variations[2][0].comments == {1: "the book"}
    assert nested.tags["TimeControl"] == "300+3" and nested.nags == {4: [14]}
    # set up with White to move (R5); a ';' comment holding a '}'
    assert setup.start_fen == "W:W25,K30:BK5,19" and setup.variations[2][0].nags == {2: [18]}
    assert ending.comments == {1: "the comment { with a } brace"}
    assert ending.nags == {0: [13]} and ending.result == "2-0"


def test_a_comment_and_a_variation_at_move_8_survive_a_round_trip() -> None:
    text = (
        "1. 10-15 {a quiet developing move} 22-18 2. 15x22 26x17 3. 6-10 23-18 4. 10-14"
        " 17x10 5. 7x23 27x18 6. 9-14 18x9 7. 5x14 25-22 8. 2-7 31-26 (8... 24-19 9. 14-17) *"
    )
    [game] = read_games(text)
    assert game.comments[1] == "a quiet developing move"
    assert [str(m) for m in game.variations[16][0].moves] == ["24-19", "14-17"]
    written = " ".join(write_game(game).split())
    assert "{a quiet developing move}" in written and "(8... 24-19 9. 14-17)" in written
    [back] = read_games(write_game(game))
    assert (back.moves, back.comments, back.variations) == (
        game.moves,
        game.comments,
        game.variations,
    )


@pytest.mark.parametrize("game", [*start_games(), *setup_games()], ids=lambda g: g.tags["Event"])
def test_tree_data_round_trips_through_json(game: PdnGame) -> None:

    data = json.loads(json.dumps(game_tree(game)))
    back = tree_to_game(data, game.start_fen, game.rules, game.tags, game.result)
    assert back == game
    assert write_game(back) == write_game(game)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_fuzzed_games_round_trip_as_text_and_as_tree(seed: int) -> None:
    game = random_game(seed, max_plies=150)
    text = write_game(game)
    [back] = read_games(text)
    assert back == game and write_game(back) == text
    again = tree_to_game(game_tree(back), back.start_fen, back.rules, back.tags, back.result)
    assert again == game


def test_tree_of_the_corpus_names_moves_as_r4_writes_them() -> None:
    club = read_games(CORPUS.read_text(encoding="utf-8"))[0]
    tree = club.tree()
    assert tree["comment"] == "A club game with the coach's notes."
    assert [m["move"] for m in tree["moves"]] == club.notations()
    assert tree["moves"][5]["variations"][0]["moves"][0] == {
        "move": "24-20",
        "comment": "also playable",
        "variations": [{"moves": [{"move": "25-22", "nags": [6]}]}],
    }


def test_an_edited_tree_becomes_pdn_with_the_edits() -> None:
    """What the analysis board sends: a move promoted to the main line, a comment
    added, a variation deleted."""
    tree = {
        "moves": [
            {"move": "9-13", "comment": "  the   Switcher  ", "variations": []},
            {"move": "22-18", "variations": [{"moves": [{"move": "21-17"}], "comment": "or"}]},
        ]
    }
    game = tree_to_game(tree, tags={"Black": "Ann", "White": "Bob"})
    text = write_game(game)
    assert "1. 9-13 {the Switcher} 1... 22-18 ({or} 1... 21-17) *" in text
    assert '[Black "Ann"]' in text


@pytest.mark.parametrize(
    ("tree", "path", "words"),
    [
        ([], "", "must be an object"),
        ({"moves": "11-15"}, "", "moves must be a list"),
        ({"moves": [{"move": "11-18"}]}, "moves[0]", "cannot play 11-18 as black's move 1"),
        ({"moves": [{"notation": "11-15"}]}, "moves[0]", "its notation as 'move'"),
        ({"moves": [{"move": "11-15", "colour": 1}]}, "moves[0]", "no field 'colour'"),
        ({"moves": [{"move": "11-15", "nags": [300]}]}, "moves[0]", "from 0 to 255"),
        ({"moves": [{"move": "11-15", "nags": [True]}]}, "moves[0]", "from 0 to 255"),
        ({"moves": [{"move": "11-15", "strength": "!!!!"}]}, "moves[0]", "not a strength mark"),
        ({"moves": [{"move": "11-15", "comment": 5}]}, "moves[0]", "comment must be text"),
        ({"strength": "!", "moves": []}, "", "no field 'strength'"),
        (
            {"moves": [{"move": "11-15"}, {"move": "22-18", "variations": [{"moves": []}]}]},
            "moves[1].variations[0]",
            "an empty variation",
        ),
        (
            {
                "moves": [
                    {"move": "11-15"},
                    {"move": "22-18", "variations": [{"moves": [{"move": "22-15"}]}]},
                ]
            },
            "moves[1].variations[0].moves[0]",
            "cannot play 22-15 as white's move 1",
        ),
    ],
)
def test_a_bad_tree_is_refused_with_where_and_why(tree: object, path: str, words: str) -> None:
    with pytest.raises(PdnTreeError) as caught:
        tree_to_game(tree)
    assert caught.value.path == path
    assert words in str(caught.value)


def test_a_move_after_the_end_of_the_game_is_refused_with_the_rule() -> None:
    with pytest.raises(PdnTreeError, match=r"the game is over") as caught:
        tree_to_game({"moves": [{"move": "14x32"}, {"move": "1-5"}]}, "B:W18,27:B14,K1")
    assert caught.value.path == "moves[1]" and caught.value.token == "1-5"


def test_variations_deeper_than_the_bound_are_refused() -> None:
    line: dict[str, object] = {"moves": [{"move": "9-13"}]}
    for _ in range(MAX_VARIATION_DEPTH + 1):
        line = {"moves": [{"move": "11-15", "variations": [line]}]}
    with pytest.raises(PdnTreeError, match="deeper than"):
        tree_to_game(line)


def test_a_refused_tree_leaves_nothing_half_played() -> None:
    """The reader's board is unwound after an error deep in a variation."""
    board = Board()
    from poolcheckers.pdn import _line_from_data

    bad = {
        "moves": [{"move": "11-15"}, {"move": "22-18", "variations": [{"moves": [{"move": "x"}]}]}]
    }
    with pytest.raises(PdnTreeError):
        _line_from_data(board, bad, "", 0)
    assert board == Board() and board.ply == 0


def test_comments_in_a_row_with_an_empty_one_round_trip() -> None:
    # found by test_fuzz_mutated_game_text: "{a } brace x} ;" read as "... x " (a
    # trailing space from the empty line comment), written, read back without it
    [game] = read_games("1. 11-15 {first x} ;\n{} {second} 22-18 *")
    assert game.comments == {1: "first x second"}
    [back] = read_games(write_game(game))
    assert back.comments == game.comments and write_game(back) == write_game(game)
