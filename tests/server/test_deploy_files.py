"""deploy/'s files as an administrator uses them: the systemd unit sets only values
systemd gives as written, and the Caddyfile's header names every variable it reads."""

from __future__ import annotations

import re
from pathlib import Path

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def test_the_unit_sets_no_environment_value_from_another_variable() -> None:
    """systemd expands ``${NAME}`` on command lines but not in ``Environment=``: there
    the value would stay the text ``${DATA_DIR}``, a folder of that name."""
    unit = (DEPLOY / "poolcheckers@.service").read_text(encoding="utf-8")
    settings = [line for line in unit.splitlines() if line.startswith("Environment=")]
    assert settings
    assert [line for line in settings if "$" in line] == []
    # the data lives in the unit's own state folder, /var/lib/poolcheckers
    assert "StateDirectory=poolcheckers" in unit and "Environment=XDG_DATA_HOME=%S" in unit


def test_the_caddyfile_header_names_every_variable_it_reads() -> None:
    text = (DEPLOY / "Caddyfile").read_text(encoding="utf-8")
    lines = text.splitlines()
    header = "\n".join(line for line in lines if line.startswith("#"))
    body = "\n".join(line for line in lines if not line.lstrip().startswith("#"))
    read = set(re.findall(r"\{\$(\w+)", body))
    assert read >= {"POOLCHECKERS_SITE", "POOLCHECKERS_HTTP_PORT", "POOLCHECKERS_CADDY_GLOBAL"}
    listed = set(re.findall(r"^#\s+(POOLCHECKERS_\w+)\s", header, flags=re.MULTILINE))
    assert read == listed


def test_the_unit_drains_longer_than_caddy_checks_health() -> None:
    """A stopping process fails its health check for --drain seconds: Caddy, which
    checks each health_interval, has seen it before the port closes."""
    unit = (DEPLOY / "poolcheckers@.service").read_text(encoding="utf-8")
    caddy = (DEPLOY / "Caddyfile").read_text(encoding="utf-8")
    drain = float(re.findall(r"--drain (\d+(?:\.\d+)?)", unit)[0])
    interval = float(re.findall(r"health_interval (\d+)s", caddy)[0])
    timeout = float(re.findall(r"TimeoutStopSec=(\d+)", unit)[0])
    assert drain >= 2 * interval and timeout > drain + 10  # + serve's --shutdown-timeout
