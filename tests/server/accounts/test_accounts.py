"""Usernames, the password policy and Argon2id hashes."""

from __future__ import annotations

import argon2
import pytest
from argon2.profiles import CHEAPEST
from hypothesis import given
from hypothesis import strategies as st

from poolcheckers.server.accounts.model import (
    PASSWORD_MAX,
    RESERVED_USERNAMES,
    Accounts,
    MemoryUserStore,
    Passwords,
    Username,
    check_password,
    username_key,
)
from poolcheckers.server.accounts.sessions import csrf_token, token_digest
from poolcheckers.server.database.engine import make_engine, run_migrations
from poolcheckers.server.domain_errors import (
    CredentialsError,
    PasswordError,
    RateLimitedError,
    UsernameError,
    UsernameTakenError,
)
from poolcheckers.server.quotas import Quotas, Rate
from poolcheckers.server.throttle import USERNAME_ADDRESS_FAILURE_LIMIT, SignInLimits


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
    assert check_password("AnnaBell rings twice", username="annab") == "AnnaBell rings twice"


def test_password_error_never_echoes_the_password() -> None:
    with pytest.raises(PasswordError) as caught:
        check_password("secret1")
    assert "secret1" not in str(caught.value)


@pytest.fixture(scope="module")
def passwords() -> Passwords:
    return Passwords(CHEAPEST)


@pytest.fixture(scope="module")
def site() -> Passwords:
    """The site's parameters (RFC 9106 low memory): slower, so made once."""
    return Passwords()


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


def test_site_parameters_are_rfc_9106_low_memory(site: Passwords) -> None:
    stored = site.hash("correct horse")
    assert argon2.extract_parameters(stored) == argon2.profiles.RFC_9106_LOW_MEMORY
    assert not site.needs_rehash(stored)


def test_weaker_hashes_are_upgraded_on_sign_in(passwords: Passwords, site: Passwords) -> None:
    old = passwords.hash("correct horse")
    assert site.needs_rehash(old)
    ok, new = site.verify_and_update(old, "correct horse")
    assert ok and new is not None and not site.needs_rehash(new)
    assert site.verify_and_update(new, "correct horse") == (True, None)
    assert site.verify_and_update(new, "wrong horse") == (False, None)
    assert site.needs_rehash("garbage")


# ------------------------------------------------------------- the Accounts service


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def quotas(clock: FakeClock) -> Quotas:
    engine = make_engine("sqlite://")
    run_migrations(engine)
    return Quotas(engine, clock=clock)


@pytest.fixture
def accounts(passwords: Passwords, clock: FakeClock) -> Accounts:
    return Accounts(
        MemoryUserStore(),
        passwords=passwords,
        # the per-minute limit of an address is tested in tests/server/test_throttle.py
        limiter=SignInLimits(quotas(clock), per_address_burst=Rate("no-burst", 999, 60)),
        clock=clock,
    )


PW = "correct horse battery"


def test_signup_signs_in(accounts: Accounts) -> None:
    signed = accounts.signup("Ann", PW, address="192.0.2.1")
    assert accounts.authenticate(signed.token) == signed.user
    assert signed.user.username == "Ann" and signed.user.key == "ann"
    assert signed.user.password_hash.startswith("$argon2id$")


def test_usernames_are_unique_without_regard_to_case(accounts: Accounts) -> None:
    first = accounts.signup("Ann", PW, address="192.0.2.1")
    with pytest.raises(UsernameTakenError) as caught:
        accounts.signup("ANN", "some other password", address="192.0.2.2")
    assert caught.value.code == "conflict"
    assert accounts.users.by_key("ann") == first.user


def test_bad_signups_create_nothing(accounts: Accounts) -> None:
    with pytest.raises(UsernameError):
        accounts.signup("a", PW, address="192.0.2.1")
    with pytest.raises(PasswordError):
        accounts.signup("Ann", "short", address="192.0.2.1")
    with pytest.raises(PasswordError, match="lone surrogate"):
        accounts.signup("Ann", "password\ud800", address="192.0.2.1")
    assert accounts.users.by_key("ann") is None


def test_wrong_password_and_unknown_user_get_the_same_answer(accounts: Accounts) -> None:
    accounts.signup("Ann", PW, address="192.0.2.1")
    messages = set()
    for name, password in [("Ann", "wrong password"), ("Nobody", PW), ("", PW), (None, None)]:
        with pytest.raises(CredentialsError) as caught:
            accounts.login(name, password, address="192.0.2.1")
        assert caught.value.code == "unauthorized"
        messages.add(str(caught.value))
    assert messages == {"wrong username or password"}
    with pytest.raises(CredentialsError):
        accounts.login("Ann", "\udcff odd text", address="192.0.2.1")  # no crash


def test_login_by_any_spelling(accounts: Accounts) -> None:
    accounts.signup("AnnB", PW, address="192.0.2.1")
    signed = accounts.login("annb", PW, address="192.0.2.1")
    assert signed.user.username == "AnnB"
    assert accounts.authenticate(signed.token) == signed.user


def test_guessing_is_rate_limited_and_success_resets(accounts: Accounts, clock: FakeClock) -> None:
    accounts.signup("Ann", PW, address="192.0.2.1")
    limit, window = USERNAME_ADDRESS_FAILURE_LIMIT.limit, USERNAME_ADDRESS_FAILURE_LIMIT.seconds
    for i in range(limit):
        with pytest.raises(CredentialsError):
            accounts.login("Ann", f"guess {i}", address="192.0.2.1")
    with pytest.raises(RateLimitedError) as caught:
        accounts.login("Ann", PW, address="192.0.2.1")  # even the right password waits
    assert caught.value.code == "rate_limited" and 0 < caught.value.retry_after <= window
    clock.now += 2 * window
    accounts.login("Ann", PW, address="192.0.2.1")
    with pytest.raises(CredentialsError):  # the failures were forgotten on success
        accounts.login("Ann", "guess again", address="192.0.2.1")


def test_sign_out_ends_the_session(accounts: Accounts) -> None:
    signed = accounts.signup("Ann", PW, address="192.0.2.1")
    other = accounts.login("Ann", PW, address="192.0.2.1")
    assert accounts.logout(signed.token)
    assert accounts.authenticate(signed.token) is None
    assert accounts.authenticate(other.token) is not None


def test_password_change_ends_every_session(accounts: Accounts) -> None:
    signed = accounts.signup("Ann", PW, address="192.0.2.1")
    phone = accounts.login("Ann", PW, address="192.0.2.1")
    changed = accounts.change_password(signed.token, PW, "a brand new one", address="192.0.2.1")
    assert accounts.authenticate(signed.token) is None
    assert accounts.authenticate(phone.token) is None
    assert accounts.authenticate(changed.token) == changed.user
    with pytest.raises(CredentialsError):
        accounts.login("Ann", PW, address="192.0.2.1")
    accounts.login("Ann", "a brand new one", address="192.0.2.1")


def test_password_change_needs_the_old_password_and_the_policy(accounts: Accounts) -> None:
    signed = accounts.signup("Ann", PW, address="192.0.2.1")
    before = accounts.users.by_key("ann")
    with pytest.raises(CredentialsError):
        accounts.change_password(signed.token, "not it", "a brand new one", address="192.0.2.1")
    with pytest.raises(PasswordError):
        accounts.change_password(signed.token, PW, "ann", address="192.0.2.1")
    with pytest.raises(CredentialsError, match="sign in first"):
        accounts.change_password(None, PW, "a brand new one", address="192.0.2.1")
    assert accounts.users.by_key("ann") == before
    assert accounts.authenticate(signed.token) is not None


def test_weak_hashes_are_upgraded_at_sign_in(
    passwords: Passwords, site: Passwords, clock: FakeClock
) -> None:
    users = MemoryUserStore()
    Accounts(users, passwords=passwords, clock=clock).signup("Ann", PW, address="192.0.2.1")
    upgraded = Accounts(users, passwords=site, clock=clock)
    upgraded.login("Ann", PW, address="192.0.2.1")
    user = users.by_key("ann")
    assert user is not None and not site.needs_rehash(user.password_hash)
    upgraded.login("Ann", PW, address="192.0.2.1")


def test_signup_limit_per_address(passwords: Passwords, clock: FakeClock) -> None:
    accounts = Accounts(
        MemoryUserStore(),
        passwords=passwords,
        signup_limit=(quotas(clock), Rate("signup", 2, 3600)),
        clock=clock,
    )
    accounts.signup("Ann", PW, address="192.0.2.1")
    accounts.signup("Bob", PW, address="192.0.2.1")
    with pytest.raises(RateLimitedError, match="too many sign-ups"):
        accounts.signup("Cy", PW, address="192.0.2.1")
    accounts.signup("Cy", PW, address="192.0.2.2")


def test_answers_carry_no_secret(accounts: Accounts) -> None:
    signed = accounts.signup("Ann", PW, address="192.0.2.1")
    public, private = signed.user.public(), signed.user.private(signed.token)
    for shown in (public, private):
        text = repr(shown)
        assert signed.user.password_hash not in text and PW not in text
        assert signed.token not in text and signed.user.id not in text
    assert private == {"username": "Ann", "csrf_token": csrf_token(signed.token)}


def test_who_a_request_is_costs_one_statement(passwords: Passwords, clock: FakeClock) -> None:
    """Over the database, a session cookie is checked in one statement (the session
    and its account together), with the same expiry and sign-out as the two reads."""
    from sqlalchemy import event

    from poolcheckers.server.accounts.repository import DbSessionStore, DbUserStore
    from poolcheckers.server.accounts.sessions import IDLE_TIMEOUT, Sessions

    engine = make_engine("sqlite://")
    run_migrations(engine)
    store = DbSessionStore(engine)
    accounts = Accounts(
        DbUserStore(engine),
        sessions=Sessions(store),
        session_users=store,
        passwords=passwords,
        clock=clock,
    )
    signed = accounts.signup("Ann", PW, address="192.0.2.1")
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    assert accounts.authenticate(signed.token) == signed.user
    assert len(statements) == 1
    assert accounts.authenticate("not a token") is None
    assert accounts.authenticate(None) is None and accounts.authenticate("") is None
    clock.now += IDLE_TIMEOUT + 1  # an idle session ends, and is deleted
    assert accounts.authenticate(signed.token) is None
    assert store.session_user(token_digest(signed.token)) is None
    other = accounts.login("Ann", PW, address="192.0.2.1")
    assert accounts.authenticate(other.token) == signed.user
    assert accounts.logout(other.token)
    assert accounts.authenticate(other.token) is None
