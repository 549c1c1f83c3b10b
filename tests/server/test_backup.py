"""``poolcheckers db backup|restore`` on SQLite (PostgreSQL's pg_dump/pg_restore path
is run by tests/server/test_deployment.py): a backup taken while the site runs
restores every game and move, and a bad path is a clear error, not a traceback."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from poolcheckers.server.cli import db_main

from .conftest import AppFactory
from .helpers import move, new_game


def _moves(database: Path, game_id: str) -> list[str]:
    with closing(sqlite3.connect(database)) as conn:
        rows = conn.execute(
            "SELECT notation FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)
        ).fetchall()
    return [r[0] for r in rows]


def test_backup_of_a_running_site_restores_its_games_and_moves(
    make_client: AppFactory, db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    client = make_client()  # the site runs during the backup
    created = new_game(client, mode="local")
    gid, token = created["game"]["id"], created["token"]
    for ply, notation in enumerate(["11-15", "23-19"]):
        assert move(client, gid, token, notation, ply).status_code == 200
    backup = tmp_path / "site.backup"
    assert db_main(["backup", str(backup), "--database-url", db_url]) == 0
    assert "bytes" in capsys.readouterr().out
    restored = tmp_path / "restored.sqlite3"
    assert db_main(["restore", str(backup), "--database-url", f"sqlite:///{restored}"]) == 0
    assert _moves(restored, gid) == ["11-15", "23-19"]


def test_restore_of_a_missing_backup_names_it_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "site.sqlite3"
    missing = tmp_path / "nothing.backup"
    assert db_main(["restore", str(missing), "--database-url", f"sqlite:///{target}"]) == 1
    assert capsys.readouterr().err == (f"poolcheckers db restore: error: no backup at {missing}\n")
    assert not target.exists()


def test_backup_of_a_database_that_does_not_exist_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    absent = tmp_path / "absent.sqlite3"
    out = tmp_path / "b.backup"
    assert db_main(["backup", str(out), "--database-url", f"sqlite:///{absent}"]) == 1
    assert capsys.readouterr().err == f"poolcheckers db backup: error: no database at {absent}\n"
    assert not out.exists()


def test_backup_into_a_missing_folder_is_refused_and_creates_no_folder(
    make_client: AppFactory, db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_client()  # the site's database exists
    out = tmp_path / "no" / "such" / "site.backup"
    assert db_main(["backup", str(out), "--database-url", db_url]) == 1
    folder = tmp_path / "no" / "such"
    assert capsys.readouterr().err == (
        f"poolcheckers db backup: error: no folder {folder} for the backup: create it first\n"
    )
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("action", ["backup", "restore"])
def test_a_database_other_than_postgresql_or_sqlite_is_named_in_the_refusal(
    action: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    backup = tmp_path / "site.backup"
    backup.write_bytes(b"")
    assert db_main([action, str(backup), "--database-url", "mysql://x"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"poolcheckers db {action}: error: cannot back up or restore a mysql ")
    assert "in-memory" not in err
