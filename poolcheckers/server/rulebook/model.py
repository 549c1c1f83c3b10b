"""The rules for players (plain code): every rule of docs/RULES.md told in plain
words, without its id, with a worked position whose moves the rules library finds.
Every word is marked for the catalogs (``N_``) and translated where it is sent.
The ids are the page's anchors (``/rules#R11``), so that a refused move on any page
can link to the rule that refused it; players never read them.

>>> [entry["moves"] for entry in rulebook() if entry["id"] == "R7"]
[['14x7']]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from poolcheckers.board import Board
from poolcheckers.rules import RuleSet
from poolcheckers.server.i18n import N_


@dataclass(frozen=True, slots=True)
class Rule:
    #: the rule's id in docs/RULES.md (an anchor of the page, never shown)
    id: str
    section: str
    title: str
    text: str
    #: a position that shows the rule (canonical FEN, R5), and what to see in it
    fen: str | None = None
    note: str = ""


SECTIONS = (
    N_("The board"),
    N_("Men"),
    N_("Kings"),
    N_("Capturing"),
    N_("Becoming a king"),
    N_("How a game ends"),
    N_("Rule options"),
)

RULES: tuple[Rule, ...] = (
    Rule("R1", N_("The board"), N_("The board"),
         N_("Checkers is played on the 32 dark squares of an 8 by 8 board. Each player has "
         "a dark square in the corner at the left hand.")),
    Rule("R2", N_("The board"), N_("Square numbers"),
         N_("The dark squares are numbered 1 to 32, starting at the top left, with Black at "
         "the top. Moves are written with these numbers."),
         "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"),
    Rule("R3", N_("The board"), N_("How the game starts"),
         N_("Black's 12 men start on squares 1 to 12, White's on 21 to 32. Black moves first."),
         "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
         N_("Black has seven moves to choose from.")),
    Rule("R4", N_("The board"), N_("Writing moves down"),
         N_("A move is written from-to, like 11-15. A capture is written with an x, like "
         "15x22. When two captures start and end on the same squares, every square the "
         "piece lands on is written, like 9x2x11x4."),
         "B:W6,7,8,14,15,20:B9,25",
         N_("Two captures end on 4, so both are written in full. The man can also go all the "
         "way round and end where it started.")),
    Rule("R5", N_("The board"), N_("Writing down a position"),
         N_("A position is written as who moves (B or W), then each side's squares, with a K "
         "before a king: W:WK5,18:B3,K30 means White to move, a white king on 5 and a "
         "white man on 18, a black man on 3 and a black king on 30."),
         "W:WK5,18:B3,K30"),
    Rule("R6", N_("Men"), N_("How men move"),
         N_("A man moves one square diagonally forward, onto an empty square."),
         "B:W22:B14", N_("The black man on 14 can go to 17 or 18.")),
    Rule("R7", N_("Men"), N_("How men capture"),
         N_("A man captures by jumping over an enemy piece next to it, onto the empty square "
         "just behind. Men capture forward and backward."),
         "B:W10:B14", N_("The black man on 14 captures backward.")),
    Rule("R8", N_("Kings"), N_("Kings fly"),
         N_("A king moves as far as it likes along a diagonal, forward or backward, over "
         "empty squares."),
         "B:W32:BK5", N_("The black king can stop on any square of its diagonals.")),
    Rule("R9", N_("Kings"), N_("Kings capture from far away"),
         N_("A king can capture a piece far along a diagonal: it flies up to it, jumps it, "
         "and lands on any empty square behind it. Then it may turn and capture again."),
         "B:W15:BK1", N_("The king takes the man on 15 and may land on 19, 24 or 28.")),
    Rule("R10", N_("Kings"), N_("Where a capturing king lands"),
         N_("If the king can capture again from one of the squares behind the piece it "
         "jumped, it must land there and go on."),
         "B:W6,14:BK1", N_("After jumping 6 the king must land on 10, to take 14 as well.")),
    Rule("R11", N_("Capturing"), N_("Capturing is a must"),
         N_("If you can capture, you must. No other move is allowed."),
         "B:W19:B9,15", N_("The man on 9 may not move: 15 must take 19.")),
    Rule("R12", N_("Capturing"), N_("You choose which capture"),
         N_("If there are several captures, you may choose any of them. You do not have to "
         "take the most pieces, and you do not have to capture with a king."),
         "B:W14,15,22:B10,11", N_("Black may take one piece or two: any of these is allowed.")),
    Rule("R13", N_("Capturing"), N_("Finish the capture"),
         N_("Once you start capturing, you keep jumping as long as your piece can."),
         "B:W7,15,24:B3", N_("The man on 3 must take all three pieces.")),
    Rule("R14", N_("Capturing"), N_("Captured pieces come off at the end"),
         N_("The pieces you jump stay on the board until your capture is over, then they all "
         "come off. You cannot jump the same piece twice, and you never jump your own "
         "pieces.")),
    Rule("R15", N_("Becoming a king"), N_("Becoming a king"),
         N_("A man that ends its move on the far row becomes a king, and the turn is over. A "
         "man that reaches the far row in the middle of a capture and can jump on must go "
         "on jumping as a man; it is crowned only if its capture ends on the far row."),
         "B:W26,27:B22",
         N_("The man reaches 31, but can jump on over 27: it must, and stays a man on 24.")),
    Rule("R16", N_("How a game ends"), N_("No move left: you lose"),
         N_("If it is your turn and you cannot move, because you have no pieces left or all "
         "of them are blocked, you lose."),
         "W:W28:B19,24", N_("White's last man is blocked: White loses.")),
    Rule("R17", N_("How a game ends"), N_("Agreeing a draw"),
         N_("One player offers a draw; if the other accepts, the game is drawn.")),
    Rule("R18", N_("How a game ends"), N_("The 25-move count"),
         N_("If both players make 25 moves in a row without moving a man and without "
         "capturing, the game is a draw. The game page shows the count.")),
    Rule("R19", N_("How a game ends"), N_("Three kings against one"),
         N_("With three kings against one lone king (and no men), the three kings must catch "
         "the lone king within 13 moves, or the game is a draw. The game page counts the "
         "moves."),
         "W:WK12,K16,K26:BK27", N_("White has 13 moves to catch the black king.")),
    Rule("R20", N_("How a game ends"), N_("Resigning and the clock"),
         N_("A player who resigns loses. With a clock, a player whose time runs out loses.")),
    Rule("R21", N_("How a game ends"), N_("Which ending comes first"),
         N_("A move that leaves your opponent without a move wins, even if it is the last "
         "move the 25-move or the 13-move count allows.")),
)  # fmt: skip

#: The rule options in plain words (docs/RULES.md section 9), by option name.
OPTIONS: dict[str, tuple[str, str]] = {
    "crown_during_capture": (
        N_("A man reaching the far row during a capture"),
        N_(
            "Normally it jumps on as a man (see Becoming a king). With this option it is "
            "crowned there and the move ends."
        ),
    ),
    "three_kings_limit_result": (
        N_("Three kings that cannot catch one"),
        N_(
            "Normally the game is a draw after 13 moves. With this option the side with three "
            "kings loses."
        ),
    ),
    "king_only_move_limit": (
        N_("The move count"),
        N_(
            "Normally 25 moves each without a man move or a capture make a draw. Some "
            "tournaments count 15."
        ),
    ),
    "repetition_draw": (
        N_("Draw by repetition"),
        N_(
            "With this option, the third time the same position comes back with the same "
            "player to move, the game is a draw."
        ),
    ),
}


def rule_title(rule_id: str) -> str | None:
    """The name of rule ``rule_id`` on the rules page (English; marked for the
    catalogs), or None.

    >>> rule_title("R6"), rule_title("R99")
    ('How men move', None)
    """
    return next((rule.title for rule in RULES if rule.id == rule_id), None)


def rulebook() -> list[dict[str, Any]]:
    """Every rule for the page, then every rule option (told as a rule without a
    position), each rule with its position's board and legal moves."""
    options = [Rule(o.name, N_("Rule options"), *OPTIONS[o.name]) for o in RuleSet.options()]
    out: list[dict[str, Any]] = []
    for rule in (*RULES, *options):
        entry: dict[str, Any] = {
            "id": rule.id,
            "section": rule.section,
            "title": rule.title,
            "text": rule.text,
            "note": rule.note,
            "board": None,
            "turn": None,
            "moves": [],
        }
        if rule.fen is not None:
            board = Board(rule.fen)
            entry["board"] = board.squares()
            entry["turn"] = board.turn.name_lower
            entry["moves"] = [board.notation(m) for m in board.legal_moves]
        out.append(entry)
    return out
