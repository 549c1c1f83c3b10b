"""Rule sets (docs/RULES.md §9) and game outcomes (R16–R21).

>>> RuleSet.apca().to_dict()["crown_during_capture"], RuleSet.apca().name
('pass', 'apca')
>>> RuleSet(crown_during_capture="stop").name
'apca+crown_during_capture=stop'
>>> RuleSet.from_options(["king_only_move_limit=15", "repetition_draw=true"]).name
'apca+king_only_move_limit=15+repetition_draw=true'
>>> Outcome(Termination.NO_MOVES, Color.BLACK).result()
'2-0'
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal

from poolcheckers.errors import RuleSetError
from poolcheckers.pieces import Color

CrownDuringCapture = Literal["pass", "stop"]
ThreeKingsLimitResult = Literal["draw", "loss"]

#: R19: the stronger side must capture the lone king within this many of its moves.
THREE_KINGS_MOVE_LIMIT = 13


@dataclass(frozen=True, slots=True)
class RuleSet:
    """The options of docs/RULES.md §9; the defaults are the APCA rules (sections 1–6)."""

    crown_during_capture: CrownDuringCapture = "pass"
    three_kings_limit_result: ThreeKingsLimitResult = "draw"
    king_only_move_limit: int = 25
    repetition_draw: bool = False

    def __post_init__(self) -> None:
        if self.crown_during_capture not in ("pass", "stop"):
            raise RuleSetError(
                f"crown_during_capture must be 'pass' (R15) or 'stop', "
                f"not {self.crown_during_capture!r}"
            )
        if self.three_kings_limit_result not in ("draw", "loss"):
            raise RuleSetError(
                f"three_kings_limit_result must be 'draw' (R19) or 'loss', "
                f"not {self.three_kings_limit_result!r}"
            )
        limit = self.king_only_move_limit
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise RuleSetError(
                f"king_only_move_limit must be a whole number of moves 1..1000 (R18), not {limit!r}"
            )
        if not isinstance(self.repetition_draw, bool):
            raise RuleSetError(
                f"repetition_draw must be true or false, not {self.repetition_draw!r}"
            )

    @classmethod
    def apca(cls) -> RuleSet:
        """The default: APCA rules, sections 1–6 of docs/RULES.md."""
        return cls()

    @property
    def name(self) -> str:
        """``apca``, or ``apca`` followed by each option that differs from it."""
        default = RuleSet()
        parts = ["apca"]
        for f in fields(self):
            value = getattr(self, f.name)
            if value != getattr(default, f.name):
                parts.append(f"{f.name}={_format_value(value)}")
        return "+".join(parts)

    @property
    def king_only_limit_plies(self) -> int:
        """R18 in plies: each side makes ``king_only_move_limit`` moves."""
        return 2 * self.king_only_move_limit

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def options() -> tuple[RuleOption, ...]:
        """The options of docs/RULES.md §9 with their APCA defaults, in words.

        >>> [(o.name, o.default) for o in RuleSet.options()]  # doctest: +NORMALIZE_WHITESPACE
        [('crown_during_capture', 'pass'), ('three_kings_limit_result', 'draw'),
         ('king_only_move_limit', 25), ('repetition_draw', False)]
        """
        return _OPTIONS

    def differences(self) -> list[str]:
        """How this rule set differs from APCA, in words (empty for ``apca``).

        >>> rules = RuleSet(crown_during_capture="stop", king_only_move_limit=15)
        >>> for words in rules.differences():
        ...     print(words)
        a man reaching the king row in a capture is crowned and the move ends
        draw after 15 moves each without a man move or capture (R18)
        """
        out: list[str] = []
        if self.crown_during_capture == "stop":
            out.append("a man reaching the king row in a capture is crowned and the move ends")
        if self.three_kings_limit_result == "loss":
            out.append(f"three kings v one not won in {THREE_KINGS_MOVE_LIMIT} moves lose (R19)")
        if self.king_only_move_limit != RuleSet().king_only_move_limit:
            out.append(
                f"draw after {self.king_only_move_limit} moves each without a man move "
                "or capture (R18)"
            )
        if self.repetition_draw:
            out.append("draw by threefold repetition")
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleSet:
        """From a mapping of option names to values (JSON-like); unknown names are errors."""
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise RuleSetError(
                    f"unknown rule option {key!r} "
                    f"(docs/RULES.md §9 has: {', '.join(sorted(known))})"
                )
        values: dict[str, Any] = {k: _parse_value(k, v) for k, v in data.items()}
        return cls(**values)

    @classmethod
    def from_options(cls, options: Iterable[str]) -> RuleSet:
        """From ``name=value`` strings, as on the command line; one option given twice
        with two values is refused (neither would be the one meant).

        >>> RuleSet.from_options(["king_only_move_limit=10", "king_only_move_limit=12"])
        Traceback (most recent call last):
        ...
        poolcheckers.errors.RuleSetError: rule option king_only_move_limit is given twice: 10 and 12
        """
        data: dict[str, Any] = {}
        for option in options:
            name, sep, value = option.partition("=")
            name, value = name.strip(), value.strip()
            if not sep or not name:
                raise RuleSetError(f"rule option {option!r} is not of the form NAME=VALUE")
            if data.get(name, value) != value:
                raise RuleSetError(f"rule option {name} is given twice: {data[name]} and {value}")
            data[name] = value
        return cls.from_dict(data)


@dataclass(frozen=True, slots=True)
class RuleOption:
    """One option of docs/RULES.md §9, described for a person choosing it (a form, a help text).

    ``kind`` is ``"choice"`` (one of ``choices``: ``(value, words)`` pairs),
    ``"number"`` (a whole number from ``minimum`` to ``maximum``) or ``"boolean"``.
    """

    name: str
    label: str
    rule: str
    kind: Literal["choice", "number", "boolean"]
    default: str | int | bool
    choices: tuple[tuple[str, str], ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``choices`` as ``[{"value", "label"}]``.

        >>> RuleSet.options()[3].to_dict()["default"]
        False
        """
        d = asdict(self)
        d["choices"] = [{"value": v, "label": words} for v, words in self.choices]
        return d


_OPTIONS: tuple[RuleOption, ...] = (
    RuleOption(
        "crown_during_capture",
        "Man reaching the king row during a capture",
        "R15",
        "choice",
        "pass",
        (("pass", "pass: jumps on as a man (APCA, R15)"), ("stop", "stop: crowned, the move ends")),
    ),
    RuleOption(
        "three_kings_limit_result",
        f"Three kings v one not won in {THREE_KINGS_MOVE_LIMIT} moves",
        "R19",
        "choice",
        "draw",
        (("draw", "draw (APCA, R19)"), ("loss", "loss for the stronger side")),
    ),
    RuleOption(
        "king_only_move_limit",
        "King-only moves per side before a draw (R18)",
        "R18",
        "number",
        25,
        minimum=1,
        maximum=1000,
    ),
    RuleOption(
        "repetition_draw",
        "Draw by threefold repetition",
        "§9 repetition_draw",
        "boolean",
        False,
    ),
)


def _format_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _parse_value(name: str, value: object) -> Any:
    if name == "repetition_draw" and isinstance(value, str):
        lowered = value.lower()
        if lowered in ("true", "1", "yes", "on"):
            return True
        if lowered in ("false", "0", "no", "off"):
            return False
        raise RuleSetError(f"repetition_draw must be true or false, not {value!r}")
    if name == "king_only_move_limit" and isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            raise RuleSetError(
                f"king_only_move_limit must be a whole number of moves (R18), not {value!r}"
            ) from None
    return value


class Termination(enum.Enum):
    """Every way a game ends."""

    NO_MOVES = "no_moves"  # R16: the side to move has no piece or no legal move
    MOVE_LIMIT = "move_limit"  # R18: king-only moves without capture
    THREE_KINGS = "three_kings"  # R19: three kings failed to catch one in 13 moves
    REPETITION = "repetition"  # §9 option repetition_draw
    AGREEMENT = "agreement"  # R17
    RESIGNATION = "resignation"  # R20
    TIME = "time"  # R20

    @property
    def rule(self) -> str:
        return _RULE_IDS[self]


_RULE_IDS = {
    Termination.NO_MOVES: "R16",
    Termination.MOVE_LIMIT: "R18",
    Termination.THREE_KINGS: "R19",
    Termination.REPETITION: "§9 repetition_draw",
    Termination.AGREEMENT: "R17",
    Termination.RESIGNATION: "R20",
    Termination.TIME: "R20",
}


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: ``winner`` is ``None`` for a draw."""

    termination: Termination
    winner: Color | None

    def result(self) -> str:
        """The PDN result: the first score is the first player's (Black, R3).

        ``2-0`` Black won, ``0-2`` White won, ``1-1`` drawn.
        """
        if self.winner is None:
            return "1-1"
        return "2-0" if self.winner is Color.BLACK else "0-2"

    def reason(self, rules: RuleSet | None = None) -> str:
        """The ending in words, citing the rule; ``rules`` gives the real limits
        (without it, R18's number of moves is not named: it is the rule set's).

        >>> Outcome(Termination.MOVE_LIMIT, None).reason(RuleSet(king_only_move_limit=15))
        'Draw: 15 moves by each side with no man moved and no capture made (R18)'
        >>> Outcome(Termination.THREE_KINGS, None).reason()
        'Draw: three kings did not capture the lone king within 13 moves (R19)'
        >>> lost = Outcome(Termination.THREE_KINGS, Color.WHITE)
        >>> lost.reason(RuleSet(three_kings_limit_result="loss"))  # doctest: +ELLIPSIS
        "White wins: Black's three kings did not capture ... a loss by the rule set's option (R19)"
        >>> Outcome(Termination.RESIGNATION, Color.BLACK).reason()
        'White resigned: Black wins (R20)'
        """
        loser = self.winner.opponent.name.capitalize() if self.winner is not None else ""
        winner = self.winner.name.capitalize() if self.winner is not None else ""
        t = self.termination
        if t is Termination.NO_MOVES:
            return f"{loser} cannot move: no pieces or all blocked (R16)"
        if t is Termination.MOVE_LIMIT:
            if rules is None:  # the limit is the rule set's (§9): say no number
                return "Draw: no man moved and no capture made in the king-only move limit (R18)"
            limit = rules.king_only_move_limit
            return f"Draw: {limit} moves by each side with no man moved and no capture made (R18)"
        if t is Termination.THREE_KINGS:
            n = THREE_KINGS_MOVE_LIMIT
            if self.winner is None:
                return f"Draw: three kings did not capture the lone king within {n} moves (R19)"
            return (
                f"{winner} wins: {loser}'s three kings did not capture the lone king within "
                f"{n} moves, a loss by the rule set's option (R19)"
            )
        if t is Termination.REPETITION:
            return "Draw: the same position occurred a third time (repetition_draw)"
        if t is Termination.AGREEMENT:
            return "Draw by agreement (R17)"
        if t is Termination.RESIGNATION:
            return f"{loser} resigned: {winner} wins (R20)"
        return f"{loser} ran out of time: {winner} wins (R20)"
