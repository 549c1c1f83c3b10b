"""The WebSocket fan-out: one message per version, seats in messages, slow clients."""

from __future__ import annotations

import json

from poolcheckers.server.realtime.fanout import MAX_BACKLOG, Fanout


async def test_each_version_is_sent_once_with_the_viewer_seat() -> None:
    fanout = Fanout()
    black = fanout.subscribe("g", "black")
    watcher = fanout.subscribe("g", None)
    other_game = fanout.subscribe("h", "white")
    for sub in (black, watcher, other_game):
        sub.ready = True
    fanout.publish("g", 2, json.dumps({"id": "g", "version": 2}))
    fanout.publish(
        "g", 2, json.dumps({"id": "g", "version": 2})
    )  # the NOTIFY echo of the same change
    fanout.publish("g", 1, json.dumps({"id": "g", "version": 1}))  # an older one, late
    assert black.queue.qsize() == 1 and watcher.queue.qsize() == 1
    assert other_game.queue.qsize() == 0
    msg = json.loads(black.queue.get_nowait() or "")
    assert msg == {"type": "state", "game": {"your_color": "black", "id": "g", "version": 2}}
    assert json.loads(watcher.queue.get_nowait() or "")["game"]["your_color"] is None
    fanout.unsubscribe(black)
    fanout.unsubscribe(watcher)
    assert "g" not in fanout.subs


async def test_a_socket_not_ready_notes_what_it_missed() -> None:
    fanout = Fanout()
    sub = fanout.subscribe("g", None)
    fanout.publish("g", 5, json.dumps({"id": "g", "version": 5}))
    assert sub.queue.qsize() == 0 and sub.missed


async def test_a_client_too_slow_to_read_is_told_to_close() -> None:
    fanout = Fanout()
    sub = fanout.subscribe("g", "white")
    sub.ready = True
    for version in range(1, MAX_BACKLOG + 10):
        fanout.publish("g", version, json.dumps({"id": "g", "version": version}))
    messages = [sub.queue.get_nowait() for _ in range(sub.queue.qsize())]
    assert len(messages) >= MAX_BACKLOG
    assert None in messages  # the sender closes the socket (code 1013) on None
