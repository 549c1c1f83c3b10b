"""``poolcheckers serve`` options of the connection guards: shown with their
defaults, carried into ``Settings`` and into uvicorn's options."""

from __future__ import annotations

import pytest

from poolcheckers.server.cli import build_parser, connection_options, serve_main, settings_from
from poolcheckers.server.net.limits import ConnectionLimits


def test_serve_help_shows_every_connection_option_with_its_default() -> None:
    text = build_parser().format_help()
    for option, default in [
        ("--header-timeout", "(10)"),
        ("--body-timeout", "(30)"),
        ("--max-header-bytes", "(32768)"),
        ("--connections-per-address", "(128)"),
        ("--descriptor-reserve", "(128)"),
        ("--forwarded-allow-ips", "none by default"),
        ("--allowed-host", "localhost"),
    ]:
        assert option in text
        assert default in " ".join(text.split(option, 2)[-1].split()[:60]), option


def test_by_default_no_proxy_is_believed_and_every_guard_is_on() -> None:
    settings = settings_from(build_parser().parse_args([]), "sqlite://")
    assert settings.connections == ConnectionLimits()
    assert settings.forwarded_allow_ips == ()
    assert "127.0.0.1" in settings.allowed_hosts and "localhost" in settings.allowed_hosts
    options = connection_options(settings)
    assert options["proxy_headers"] is False and options["forwarded_allow_ips"] is None
    assert options["h11_max_incomplete_event_size"] == 32 * 1024


def test_serve_options_reach_the_settings() -> None:
    args = build_parser().parse_args(
        [
            "--host", "0.0.0.0", "--body-timeout", "5", "--max-header-bytes", "0",
            "--connections-per-address", "7", "--descriptor-reserve", "64",
            "--forwarded-allow-ips", "10.0.0.1,10.0.0.2", "--forwarded-allow-ips", "::1",
            "--allowed-host", "checkers.example.org",
        ]
    )  # fmt: skip
    settings = settings_from(args, "sqlite://")
    limits = settings.connections
    assert (limits.body_timeout, limits.max_header_bytes) == (5, 0)
    assert (limits.per_address, limits.descriptor_reserve) == (7, 64)
    assert settings.forwarded_allow_ips == ("10.0.0.1", "10.0.0.2", "::1")
    assert "checkers.example.org" in settings.allowed_hosts
    options = connection_options(settings)
    assert options["proxy_headers"] is True
    assert options["forwarded_allow_ips"] == ["10.0.0.1", "10.0.0.2", "::1"]


def test_a_malformed_proxy_address_stops_serve_with_a_message(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert serve_main(["--forwarded-allow-ips", "not-an-address", "--port", "1"]) == 2
    assert "--forwarded-allow-ips" in capsys.readouterr().err
