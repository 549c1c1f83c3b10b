"""Usernames, the password policy and Argon2id hashes."""

from __future__ import annotations

import argon2
import pytest
from argon2.profiles import CHEAPEST
from hypothesis import given
from hypothesis import strategies as st

from poolcheckers.community.accounts import (
    PASSWORD_MAX,
    RESERVED_USERNAMES,
    Passwords,
    Username,
    check_password,
    username_key,
)
from poolcheckers.community.errors import PasswordError, UsernameError


@pytest.mark.parametrize("name", ["ab", "Ann", "a" * 20, "9lives", "x-y_z", "A1-_"])
def test_valid_usernames_keep_their_spelling(name: str) -> None:
    parsed = Username.parse(name)
    assert parsed.name == name
    assert str(parsed) == name
    assert parsed.key == name.lower()


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("a", "2 to 20 characters, not 1: 'a'"),
        ("", "not 0"),
        ("a" * 21, "not 21"),
        ("_ann", "must start with a letter or a digit: '_ann'"),
        ("-ann", "must start with a letter or a digit"),
        ("ann smith", "not ' '"),
        ("<script>", "not '<'"),
        ("Zoë", "not 'ë'"),
        ("аnn", "not 'а'"),  # Cyrillic a: looks like Latin a
        ("Admin", "'Admin' is reserved"),
        ("ENGINE", "reserved"),
        (42, "username must be text, not 42"),
    ],
)
def test_invalid_usernames_say_why(name: object, message: str) -> None:
    with pytest.raises(UsernameError) as caught:
        Username.parse(name)
    assert message in str(caught.value)
    assert caught.value.field == "username"


def test_uniqueness_ignores_case() -> None:
    assert username_key("AnnB") == username_key("annb") == username_key("ANNB") == "annb"
    assert username_key("ann-b") != username_key("ann_b")


def test_reserved_names_are_keys() -> None:
    assert all(n == n.lower() and Username.parse(n + "1") for n in RESERVED_USERNAMES)


@given(st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{1,19}", fullmatch=True))
def test_every_name_of_the_pattern_is_valid_unless_reserved(name: str) -> None:
    if name.lower() in RESERVED_USERNAMES:
        return
    assert Username.parse(name).key == name.lower()


@pytest.mark.parametrize(
    ("password", "message"),
    [
        ("1234567", "at least 8 characters, not 7"),
        ("x" * (PASSWORD_MAX + 1), f"at most {PASSWORD_MAX} characters"),
        (" " * 10, "not be only spaces"),
        (None, "password must be text, not NoneType"),
    ],
)
def test_password_policy(password: object, message: str) -> None:
    with pytest.raises(PasswordError, match=message):
        check_password(password)


def test_password_must_differ_from_the_username() -> None:
    with pytest.raises(PasswordError, match="not be the username"):
        check_password("AnnaBell", username="annabell")
    assert check_password("AnnaBell", username="annab") == "AnnaBell"


def test_password_error_never_echoes_the_password() -> None:
    with pytest.raises(PasswordError) as caught:
        check_password("secret1")
    assert "secret1" not in str(caught.value)


@pytest.fixture(scope="module")
def passwords() -> Passwords:
    return Passwords(CHEAPEST)


def test_hashes_are_argon2id_and_salted(passwords: Passwords) -> None:
    a, b = passwords.hash("correct horse"), passwords.hash("correct horse")
    assert a.startswith("$argon2id$") and b.startswith("$argon2id$")
    assert a != b  # a fresh salt each time
    assert "correct horse" not in a
    assert passwords.verify(a, "correct horse") and passwords.verify(b, "correct horse")


def test_wrong_password_and_corrupt_hash_do_not_verify(passwords: Passwords) -> None:
    stored = passwords.hash("correct horse")
    assert not passwords.verify(stored, "Correct horse")
    assert not passwords.verify("not a hash", "correct horse")
    assert not passwords.verify(stored[:-4], "correct horse")


def test_unknown_user_is_verified_against_a_dummy(passwords: Passwords) -> None:
    assert passwords.verify_unknown("a password nobody has") is False


def test_site_parameters_are_rfc_9106_low_memory() -> None:
    stored = Passwords().hash("correct horse")
    assert argon2.extract_parameters(stored) == argon2.profiles.RFC_9106_LOW_MEMORY
    assert not Passwords().needs_rehash(stored)


def test_weaker_hashes_are_upgraded_on_sign_in(passwords: Passwords) -> None:
    site = Passwords()
    old = passwords.hash("correct horse")
    assert site.needs_rehash(old)
    ok, new = site.verify_and_update(old, "correct horse")
    assert ok and new is not None and not site.needs_rehash(new)
    assert site.verify_and_update(new, "correct horse") == (True, None)
    assert site.verify_and_update(new, "wrong horse") == (False, None)
    assert site.needs_rehash("garbage")
