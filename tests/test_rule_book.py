"""The rule book is in the repository (docs/RULES.md), in the project's words: every
rule id R1-R21 and every §9 option, each worked example a real position whose legal
moves and diagram are the library's; and everything that cites the rule book points
to it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from poolcheckers import Board, RuleSet

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "docs" / "RULES.md"
TEXT = BOOK.read_text(encoding="utf-8")
EXAMPLE = re.compile(
    r"Example: `(?P<fen>[^`]+)`, (?P<side>Black|White) to move; "
    r"(?:legal: (?P<moves>[^\n]+)|(?P<none>no legal move))\.\n\n```\n(?P<diagram>.*?)\n```",
    re.DOTALL,
)


@pytest.mark.parametrize("number", range(1, 22))
def test_every_rule_id_has_its_paragraph(number: int) -> None:
    assert f"**R{number}. " in TEXT


def test_every_rule_option_is_in_section_9() -> None:
    section = TEXT.split("## 9. Rule options", 1)[1]
    for option in RuleSet.options():
        assert f"`{option.name}`" in section
        for value, _words in option.choices:
            assert f"`{value}`" in section


def test_the_worked_examples_are_the_librarys_positions() -> None:
    examples = list(EXAMPLE.finditer(TEXT))
    assert len(examples) == TEXT.count("Example: ") >= 14
    for found in examples:
        board = Board(found["fen"])
        assert board.fen() == found["fen"], "examples are written in canonical FEN (R5)"
        assert found["side"].lower() == board.turn.name_lower
        legal = [board.notation(m) for m in board.legal_moves]
        if found["none"]:
            assert legal == [] and board.is_game_over()
        else:
            assert found["moves"].split(", ") == legal, found["fen"]
        assert found["diagram"] == str(board).rsplit("\n", 1)[0]


def test_the_crowning_example_under_the_stop_option() -> None:
    board = Board("B:W26,27:B22", RuleSet(crown_during_capture="stop"))
    assert [board.notation(m) for m in board.legal_moves] == ["22x31"]
    assert "22x31" in TEXT.split("**R15.", 1)[1].split("## 6.", 1)[0]


def test_every_citation_of_the_rule_book_points_into_the_repository() -> None:
    stray = []
    for path in [ROOT / "README.md", *ROOT.glob("docs/*.md"), *ROOT.glob("poolcheckers/**/*")]:
        if path.is_dir() or path.suffix not in (".py", ".md", ".js") or path == BOOK:
            continue
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"(?<![/\w.])RULES\.md", text):
            stray.append(f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}")
    assert stray == []
    assert "docs/RULES.md" in (ROOT / "README.md").read_text(encoding="utf-8")
