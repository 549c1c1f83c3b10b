"""A WebSocket handshake is checked like any request: no repeated Origin, only the
site's host names (a real server: the test client cannot repeat a header)."""

from __future__ import annotations

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from .conftest import ServerFactory


@pytest.mark.parametrize(
    "headers",
    [
        [("Origin", "http://evil.example"), ("Origin", "http://127.0.0.1")],
        [("Host", "evil.example"), ("Origin", "http://evil.example")],
    ],
)
def test_a_websocket_with_a_repeated_origin_or_another_host_is_refused(
    serve: ServerFactory, headers: list[tuple[str, str]]
) -> None:
    server = serve()
    url = f"ws://127.0.0.1:{server.port}/ws/analysis"
    with pytest.raises(InvalidStatus) as refused, connect(url, additional_headers=headers):
        pass
    assert refused.value.response.status_code in (400, 403)
    with connect(url, additional_headers=[("Origin", f"http://127.0.0.1:{server.port}")]):
        pass  # the site's own page connects
