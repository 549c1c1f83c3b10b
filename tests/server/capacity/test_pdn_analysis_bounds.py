"""Reading PDN for the analysis board is bounded: a smaller body than the archive
import's, and a few readings at once per process (503 with Retry-After beyond)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient

from poolcheckers.server.api.routers import analysis as analysis_router
from poolcheckers.server.games import pdn as stored_pdn

from ..conftest import AppFactory

GAME = '[Event "x"]\n[Result "*"]\n\n1. 11-15 23-19 *\n'


def test_a_pdn_analysis_body_over_its_own_cap_is_refused(make_client: AppFactory) -> None:
    client: TestClient = make_client()
    big = GAME + ("{" + "x" * (analysis_router.MAX_ANALYSIS_PDN + 10) + "}")
    r = client.post("/api/analysis/pdn", content=big, headers={"content-type": "application/x-pdn"})
    assert r.status_code == 413, r.text
    r = client.post(
        "/api/analysis/pdn", content=GAME, headers={"content-type": "application/x-pdn"}
    )
    assert r.status_code == 200, r.text


def test_pdn_analyses_beyond_those_running_at_once_get_busy_with_retry_after(
    make_client: AppFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    client: TestClient = make_client(pdn_analyses_at_once=1)
    entered = threading.Event()
    release = threading.Event()
    real = stored_pdn.read_for_analysis

    def slow(*args: Any) -> Any:
        entered.set()
        release.wait(10)
        return real(*args)

    monkeypatch.setattr(stored_pdn, "read_for_analysis", slow)
    results: list[int] = []
    try:
        t = threading.Thread(
            target=lambda: results.append(
                client.post(
                    "/api/analysis/pdn",
                    content=GAME,
                    headers={"content-type": "application/x-pdn"},
                ).status_code
            )
        )
        t.start()
        assert entered.wait(10)
        # another visitor (one address reads one text at a time: its own second is 429)
        other = TestClient(client.app, client=("198.51.100.7", 50000))
        r = other.post(
            "/api/analysis/pdn", content=GAME, headers={"content-type": "application/x-pdn"}
        )
        assert r.status_code == 503, r.text
        assert r.json()["error"]["code"] == "overloaded"
        assert int(r.headers["retry-after"]) >= 1
    finally:
        release.set()
        t.join(10)
    assert results == [200]
