"""The frozen baseline engine, built from the repository's own history.

``git archive <commit>`` of this repository is unpacked into a throwaway
directory (``$TMPDIR/poolcheckers-baseline-<commit>`` unless ``--dest``), its
native core is built there in place (``setup.py build_ext --inplace``, with the
Python running this script), and the engine of that commit is started as a
Hub engine with ``PYTHONPATH`` set to that directory:

    .venv/bin/python benchmarks/baseline.py              # build 4e48133, print the Hub command
    .venv/bin/python benchmarks/baseline.py --check      # also ask it for one move

Nothing of the old tree is copied into this one: the build is made again
from git each time the directory is missing.
"""

from __future__ import annotations

import argparse
import fcntl
import io
import os
import shlex
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

#: The frozen reference: a fixed commit, so that every later engine is measured
#: against the same opponent.
BASELINE_COMMIT = "4e48133"

REPO = Path(__file__).resolve().parent.parent


def build(commit: str = BASELINE_COMMIT, dest: Path | None = None, *, quiet: bool = True) -> Path:
    """Unpack ``commit`` and build its native core; returns the directory."""
    full = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--verify", f"{commit}^{{commit}}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    target = dest or Path(tempfile.gettempdir()) / f"poolcheckers-baseline-{full[:12]}"
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{target}.lock", "w") as lock:  # one build at a time (two tests may start together)
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _build_locked(full, target, quiet)


def _build_locked(full: str, target: Path, quiet: bool) -> Path:
    stamp = target / ".built"
    if stamp.exists() and stamp.read_text(encoding="utf-8").strip() == full:
        return target
    target.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", full],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    # only the extension is built: the project metadata (pyproject.toml) is not
    # needed, and the setuptools of a virtualenv may be older than it asks for
    (target / "pyproject.toml").replace(target / "pyproject.toml.unused")
    env = dict(os.environ)
    env.pop("POOLCHECKERS_SANITIZE", None)
    # build_py too: since the site speaks several languages, it compiles the gettext
    # catalogs that the server of the commit refuses to start without
    for step in (["build_ext", "--inplace"], ["build_py"]):
        subprocess.run(
            [sys.executable, "setup.py", "-q", *step],
            cwd=target,
            check=True,
            env=env,
            stdout=subprocess.DEVNULL if quiet else None,
            stderr=subprocess.DEVNULL if quiet else None,
        )
    stamp.write_text(full + "\n", encoding="utf-8")
    return target


def hub_command(directory: Path, python: str = sys.executable) -> list[str]:
    """The command line of the baseline's ``poolcheckers hub`` (its own package first)."""
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import poolcheckers; "
        "assert poolcheckers.__file__.startswith(sys.argv[1]), poolcheckers.__file__; "
        "from poolcheckers.cli import main; sys.exit(main(['hub']))"
    )
    return [python, "-c", code, str(directory)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commit", default=BASELINE_COMMIT)
    parser.add_argument("--dest", type=Path, help="build directory (default: in $TMPDIR)")
    parser.add_argument("--check", action="store_true", help="ask the built engine for a move")
    args = parser.parse_args(argv)
    directory = build(args.commit, args.dest, quiet=False)
    command = hub_command(directory)
    print(shlex.join(command))
    if args.check:
        lines = "hub\ninit\npos pos=Bbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww\nlevel depth=6\ngo think\n"
        answer = subprocess.run(
            command, input=lines, capture_output=True, text=True, timeout=60, check=False
        ).stdout
        print("\n".join(line for line in answer.splitlines() if line.startswith(("id", "done"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
