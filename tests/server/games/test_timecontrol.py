"""Time controls: bounds, the lichess categories, the HTTP and PDN forms."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolcheckers.server.domain_errors import TimeControlError
from poolcheckers.server.games.timecontrol import (
    MAX_INCREMENT,
    MAX_INITIAL,
    MIN_INITIAL,
    PRESETS,
    Category,
    Clock,
    Correspondence,
    category_of,
    parse_time_control,
    pdn_time_control,
    time_control_to_dict,
)


@pytest.mark.parametrize(
    ("initial", "increment", "category"),
    [
        (15, 0, Category.BULLET),  # ultra-bullet counts as bullet
        (179, 0, Category.BULLET),
        (180, 0, Category.BLITZ),  # 3 minutes estimated: blitz
        (60, 3, Category.BLITZ),  # 60 + 40 × 3 = 180
        (120, 1, Category.BULLET),  # 2+1 = 160
        (479, 0, Category.BLITZ),
        (480, 0, Category.RAPID),
        (300, 5, Category.RAPID),  # 5+5 = 500
        (1499, 0, Category.RAPID),
        (1500, 0, Category.CLASSICAL),
        (900, 15, Category.CLASSICAL),  # 15+15 = 1500
    ],
)
def test_category_from_estimated_duration(initial: int, increment: int, category: Category) -> None:
    assert Clock(initial, increment).category is category


def test_presets_cover_the_four_real_time_categories_in_order() -> None:
    seen = [c.category for c in PRESETS]
    assert seen == sorted(seen, key=[*Category].index)
    assert set(seen) == {Category.BULLET, Category.BLITZ, Category.RAPID, Category.CLASSICAL}
    assert [str(c) for c in PRESETS[:3]] == ["1+0", "2+1", "3+0"]


def test_correspondence_is_its_own_category_and_unlimited_has_none() -> None:
    assert category_of(Correspondence(1)) is Category.CORRESPONDENCE
    assert category_of(None) is None


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"initial": 599940, "increment": 0}, "not 599940 (9999 minutes)"),
        ({"initial": 0, "increment": 2}, "clock.initial must be whole seconds from 15"),
        ({"initial": 14, "increment": 0}, "not 14"),
        ({"initial": 300, "increment": 181}, "clock.increment must be whole seconds from 0 to 180"),
        ({"initial": 300, "increment": -1}, "not -1"),
        ({"initial": 300.5, "increment": 0}, "clock.initial must be a whole number, not 300.5"),
        ({"initial": True, "increment": 0}, "not True"),
        ({"initial": "300", "increment": 0}, "not '300'"),
        ({"days": 0}, "clock.days must be a whole number of days per move from 1 to 14, not 0"),
        ({"days": 15}, "not 15"),
        ({"days": 3, "initial": 60}, "not ['days', 'initial']"),
        ({"minutes": 5}, "not ['minutes']"),
    ],
)
def test_bad_clocks_are_refused_with_the_field_and_value(
    data: dict[str, object], fragment: str
) -> None:
    with pytest.raises(TimeControlError, match="clock") as caught:
        parse_time_control(data)
    assert fragment in str(caught.value)
    assert caught.value.code == "bad_request"


def test_non_object_clock_is_refused() -> None:
    with pytest.raises(TimeControlError, match="clock must be an object or null, not 5"):
        parse_time_control(5)  # type: ignore[arg-type]  # deliberately not a mapping


def test_json_floats_that_are_whole_are_read_as_ints() -> None:
    clock = parse_time_control({"initial": 300.0, "increment": 2.0})
    assert clock == Clock(300, 2)
    assert isinstance(clock, Clock)
    assert type(clock.initial) is int


def test_bounds_are_inclusive() -> None:
    assert Clock(MIN_INITIAL, 0).initial == MIN_INITIAL
    assert Clock(MAX_INITIAL, MAX_INCREMENT).increment == MAX_INCREMENT
    assert Correspondence(14).days == 14


def test_custom_minutes() -> None:
    assert Clock.from_minutes(0.25, 0) == Clock(15, 0)
    assert str(Clock.from_minutes(1.5, 1)) == "1½+1"
    assert str(Clock(100, 0)) == "1:40+0"
    with pytest.raises(TimeControlError, match="whole seconds"):
        Clock.from_minutes(0.01, 0)


def test_pdn_time_control_values() -> None:
    assert pdn_time_control(Clock(300, 3)) == "300+3"
    assert pdn_time_control(Clock(60, 0)) == "60+0"
    assert pdn_time_control(Correspondence(2)) == "1/172800"  # one move per 2 days
    assert pdn_time_control(None) == "-"


@given(
    st.one_of(
        st.none(),
        st.builds(
            Clock,
            st.integers(MIN_INITIAL, MAX_INITIAL),
            st.integers(0, MAX_INCREMENT),
        ),
        st.builds(Correspondence, st.integers(1, 14)),
    )
)
def test_http_form_round_trips(control: Clock | Correspondence | None) -> None:
    assert parse_time_control(time_control_to_dict(control)) == control


def test_category_names_parse() -> None:
    assert [Category.parse(c.value) for c in Category] == list(Category)
    with pytest.raises(TimeControlError, match="unknown category 'Blitz'"):
        Category.parse("Blitz")
