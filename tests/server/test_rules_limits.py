"""GET /api/rules carries the limits the server checks requests against, equal to the
constants that check them: the web pages read them there and keep no copy."""

from __future__ import annotations

from poolcheckers.engine import MAX_LEVEL, MIN_LEVEL
from poolcheckers.server.accounts import model as accounts
from poolcheckers.server.api.http import MAX_PDN
from poolcheckers.server.api.schemas import (
    MAX_ANALYSIS_LINES,
    MAX_ANALYSIS_MOVES,
    MAX_CLOCK_S,
    MAX_INCREMENT_S,
)
from poolcheckers.server.games import timecontrol

from .conftest import AppFactory


def test_the_rules_carry_the_servers_limits(make_client: AppFactory) -> None:
    client = make_client(analysis_max_time=12.5, min_rated_plies=14)
    limits = client.get("/api/rules").json()["limits"]
    assert limits == {
        "analysis_lines": MAX_ANALYSIS_LINES,
        "analysis_moves": MAX_ANALYSIS_MOVES,
        "analysis_seconds": 12.5,
        "level": {"minimum": MIN_LEVEL, "maximum": MAX_LEVEL},
        "clock_initial_seconds": MAX_CLOCK_S,
        "clock_increment_seconds": MAX_INCREMENT_S,
        "seek_initial_seconds": {
            "minimum": timecontrol.MIN_INITIAL,
            "maximum": timecontrol.MAX_INITIAL,
        },
        "seek_increment_seconds": {"minimum": 0, "maximum": timecontrol.MAX_INCREMENT},
        "seek_days": {"minimum": timecontrol.MIN_DAYS, "maximum": timecontrol.MAX_DAYS},
        "username_length": {"minimum": accounts.USERNAME_MIN, "maximum": accounts.USERNAME_MAX},
        "password_length": {"minimum": accounts.PASSWORD_MIN, "maximum": accounts.PASSWORD_MAX},
        "pdn_bytes": MAX_PDN,
        "min_rated_plies": 14,  # the game page says when a rated game starts to count
    }


def test_an_analysis_may_ask_for_as_many_lines_as_the_limit_says(
    make_client: AppFactory,
) -> None:
    client = make_client()
    most = client.get("/api/rules").json()["limits"]["analysis_lines"]
    request = {"type": "analyse", "id": 1, "time": 0.05}
    with client.websocket_connect("/ws/analysis") as ws:
        ws.send_json({**request, "multipv": most + 1})
        refused = ws.receive_json()
        assert refused["type"] == "error" and "multipv" in str(refused["error"])
    spec = client.get("/openapi.json").json()["components"]["schemas"]
    assert spec["WsAnalyse"]["properties"]["multipv"]["maximum"] == most
    assert "limits" in spec["RulesInfo"]["required"]
