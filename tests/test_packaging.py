"""Installing from source on a machine without a C compiler.

The source is installed with pip into a fresh virtual environment with
``CC=/bin/false``, offline (``--no-index --no-deps --no-build-isolation``: the
build backend and the dependencies come from the test's own environment through
a ``.pth`` file).  The library, the commands that need no engine and the web
app's local games and archive must work; what needs the engine must say that
it is not built, with exit status 3.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/bin/false").exists(), reason="needs /bin/false as a broken CC"),
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX paths"),
]


def _copy_source(target: Path) -> None:
    """The files of the source distribution: tracked files, never a built core."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    names = [n for n in listed.stdout.decode().split("\0") if n] if listed.returncode == 0 else []
    if not names:  # not a git checkout: the package, the C sources and the metadata
        names = [
            str(p.relative_to(ROOT))
            for top in ("poolcheckers", "native")
            for p in (ROOT / top).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".so", ".pyc")
        ] + ["setup.py", "pyproject.toml", "README.md"]
    for name in names:
        if name.startswith(("tests/", "benchmarks/", "docs/", ".")):
            continue
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment with poolcheckers installed from source without a compiler."""
    base = tmp_path_factory.mktemp("nocc")
    source, env_dir = base / "src", base / "venv"
    _copy_source(source)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # pip, setuptools and the dependencies of this environment (its own .pth files,
    # among them the editable install of the tree under test, are not read from there)
    Path(purelib, "_test_dependencies.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8"
    )
    env = {**os.environ, "CC": "/bin/false", "POOLCHECKERS_REQUIRE_NATIVE": "0"}
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "-v", "--no-build-isolation", "--no-deps",
         "--no-index", "--disable-pip-version-check", str(source)],
        capture_output=True, text=True, env=env, cwd=base, timeout=300,
    )  # fmt: skip
    output = install.stdout + install.stderr
    assert install.returncode == 0, output[-3000:]
    assert "WARNING: the native engine poolcheckers._core was not built" in output
    return env_dir


def _run(venv: Path, *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(venv / "bin" / "poolcheckers"), *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=venv,  # not the source tree: the installed copy is imported
    )


def test_the_library_is_installed_without_the_native_core(venv: Path) -> None:
    probe = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import poolcheckers, poolcheckers.engine as e; from poolcheckers import Board, perft; "
         "print(poolcheckers.__file__); print(e.native_available(), perft(Board(), 3))"],
        capture_output=True, text=True, cwd=venv, timeout=60,
    )  # fmt: skip
    assert probe.returncode == 0, probe.stderr
    where, facts = probe.stdout.splitlines()
    assert where.startswith(str(venv)) and facts == "False 302"


def test_commands_that_need_no_engine_work(venv: Path) -> None:
    moves = _run(venv, "moves")
    assert moves.returncode == 0 and moves.stdout.split()[:3] == ["9-13", "9-14", "10-14"]
    perft = _run(venv, "perft", "--depth", "4")
    assert perft.returncode == 0 and perft.stdout.strip() == "1469" and "(python)" in perft.stderr
    game = _run(venv, "play", "--opponent", "human", stdin="11-15\n22-18\nquit\n")
    assert game.returncode == 0 and "Black to move> quit" in game.stdout


@pytest.mark.parametrize(
    "argv",
    [
        ["bench"],
        ["analyse", "--depth", "2"],
        ["play"],
        ["match", "--games", "2"],
        ["ballots", "--output", "ballots.txt"],
    ],
)
def test_what_needs_the_engine_says_it_is_not_built(venv: Path, argv: list[str]) -> None:
    result = _run(venv, *argv, stdin="quit\n")
    assert result.returncode == 3, (result.stdout, result.stderr)
    assert "the native engine is not built" in result.stderr
    assert "install a C compiler" in result.stderr and "Traceback" not in result.stderr


def test_the_hub_answers_that_the_engine_cannot_start(venv: Path) -> None:
    result = _run(venv, "hub", stdin="hub\ninit\ngo think\nquit\n")
    assert result.returncode == 0
    assert 'error message="the engine cannot start: the native engine is not built' in (
        result.stdout
    )
    assert result.stdout.rstrip().endswith("done")  # every go is answered


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _request(url: str, body: Any = None, text: str | None = None) -> tuple[int, Any]:
    data, headers = None, {}
    if body is not None:
        data, headers = json.dumps(body).encode(), {"content-type": "application/json"}
    elif text is not None:
        data, headers = text.encode(), {"content-type": "text/plain"}
    request = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_the_web_app_plays_local_games_and_keeps_the_archive(venv: Path) -> None:
    port = _free_port()
    server = subprocess.Popen(
        [str(venv / "bin" / "poolcheckers"), "serve", "--port", str(port),
         "--database-url", f"sqlite:///{venv / 'games.sqlite3'}"],
        cwd=venv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                status, health = _request(base + "/api/health")
                break
            except OSError:
                assert server.poll() is None, server.stdout.read() if server.stdout else ""
                time.sleep(0.1)
        else:
            pytest.fail("the server did not start within 20 s")
        assert status == 200 and health["engine"] is False
        status, created = _request(base + "/api/games", {"mode": "local"})
        assert status == 200 and created["game"]["legal_moves"]
        game = created["game"]["id"]
        status, online = _request(base + "/api/games", {"mode": "online", "color": "black"})
        assert status == 200 and online["invite"]
        status, refused = _request(base + "/api/games", {"mode": "engine"})
        assert status == 503 and refused["error"]["code"] == "engine_unavailable"
        status, imported = _request(base + "/api/import", text="1. 11-15 22-18 *")
        assert status == 200 and len(imported["imported"]) == 1
        status, listed = _request(base + "/api/games?status=running")
        assert status == 200 and game in [g["id"] for g in listed["games"]]
    finally:
        server.terminate()
        server.wait(10)


@pytest.mark.parametrize("require", ["1", "0"])
def test_a_failed_native_build_is_an_error_only_when_required(tmp_path: Path, require: str) -> None:
    """``make setup`` sets POOLCHECKERS_REQUIRE_NATIVE=1: there a broken C build fails."""
    _copy_source(tmp_path)
    env = {**os.environ, "CC": "/bin/false", "POOLCHECKERS_REQUIRE_NATIVE": require}
    build = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext",
         "--build-temp", str(tmp_path / "temp"), "--build-lib", str(tmp_path / "lib")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    if require == "1":
        assert build.returncode != 0 and "WARNING: the native engine" not in build.stderr
    else:
        assert build.returncode == 0, build.stderr
        assert "WARNING: the native engine poolcheckers._core was not built" in build.stderr
    assert not list((tmp_path / "lib").rglob("_core*"))
