"""Backing up and restoring the site's database with the database's own tools:
``pg_dump`` / ``pg_restore`` (custom format) for PostgreSQL, SQLite's online backup
API for SQLite.  Both take a consistent snapshot while the site runs.

A restore replaces what the target database holds (``pg_restore --clean
--if-exists``; for SQLite the file is rebuilt from the backup), so it is meant
for an empty or a stopped site: the running servers would keep their caches.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from poolcheckers.server.database.engine import libpq_conninfo, normalize_url


class BackupError(Exception):
    """A backup or restore that could not be done (the tool's own message)."""


def pg_tool(name: str) -> str:
    """The path of a PostgreSQL client program: on ``PATH`` (Debian's wrapper picks
    the right version), else the newest of ``/usr/lib/postgresql/*/bin``."""
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(
        Path("/usr/lib/postgresql").glob(f"*/bin/{name}"),
        key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0,
    )
    if versions:
        return str(versions[-1])
    raise BackupError(f"{name} is not installed (Debian: apt install postgresql-client)")


def _kind(url: str) -> str:
    """``postgresql`` or ``sqlite``: the databases these commands back up.

    >>> _kind("mysql://x")
    Traceback (most recent call last):
    ...
    poolcheckers.server.database.backup.BackupError: cannot back up or restore a mysql \
database: only PostgreSQL (postgresql://...) and SQLite (sqlite:///FILE)
    """
    try:
        backend = make_url(normalize_url(url)).get_backend_name()
    except ArgumentError:
        raise BackupError(f"not a database URL: {url!r}") from None
    if backend not in ("postgresql", "sqlite"):
        raise BackupError(
            f"cannot back up or restore a {backend} database: only PostgreSQL "
            "(postgresql://...) and SQLite (sqlite:///FILE)"
        )
    return backend


def _sqlite_path(url: str) -> Path:
    database = make_url(url).database
    if not database or database == ":memory:":
        raise BackupError("an in-memory SQLite database has nothing to back up")
    return Path(database)


def _copy_sqlite(source: Path, target: Path) -> None:
    """SQLite's online backup: a consistent copy page by page, writers go on."""
    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)


def _run(args: list[str], env: dict[str, str] | None = None) -> None:
    done = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        tool = Path(args[0]).name
        raise BackupError(f"{tool} failed: {done.stderr.strip() or done.returncode}")


def _libpq_env(url: str) -> tuple[str, dict[str, str]]:
    """The connection string without its password, and the environment carrying it
    (``PGPASSWORD``): a password never shows in the process list."""
    u = make_url(normalize_url(url))
    env = dict(os.environ)
    if u.password:
        env["PGPASSWORD"] = str(u.password)
    bare = u.set(password=None).render_as_string(hide_password=False)
    return libpq_conninfo(bare), env


def backup(url: str, out: Path) -> int:
    """Write a backup of the database ``url`` to ``out``; its size in bytes.  The
    folder must exist: a command often run as root creates none."""
    kind = _kind(url)
    if not out.parent.is_dir():
        raise BackupError(f"no folder {out.parent} for the backup: create it first")
    if kind == "postgresql":
        conninfo, env = _libpq_env(url)
        _run([pg_tool("pg_dump"), "--format=custom", "--file", str(out), conninfo], env)
    else:
        source = _sqlite_path(url)
        if not source.exists():
            raise BackupError(f"no database at {source}")
        _copy_sqlite(source, out)
    return out.stat().st_size


def restore(url: str, backup_file: Path) -> None:
    """Replace the contents of the database ``url`` with the backup ``backup_file``."""
    kind = _kind(url)
    if not backup_file.is_file():
        raise BackupError(f"no backup at {backup_file}")
    if kind == "postgresql":
        conninfo, env = _libpq_env(url)
        args = [pg_tool("pg_restore"), "--clean", "--if-exists", "--no-owner"]
        _run([*args, "--single-transaction", "--dbname", conninfo, str(backup_file)], env)
    else:
        target = _sqlite_path(url)
        target.parent.mkdir(parents=True, exist_ok=True)
        _copy_sqlite(backup_file, target)
