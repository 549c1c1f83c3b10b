"""Build script for the native search core (``poolcheckers._core``).

The C sources in ``native/`` are compiled by the system C compiler with ``-O3``
for any CPU of the architecture (a wheel or a container image built here runs on
another machine).  Set ``POOLCHECKERS_TUNED=1`` to add ``-march=native`` (a binary
for this CPU only; the speed it gains is measured in docs/ENGINE.md, "Portable and
tuned builds") and ``POOLCHECKERS_SANITIZE=1`` to build with AddressSanitizer/UBSan.

The gettext catalogs of the web app (``poolcheckers/server/i18n/locale/*/LC_MESSAGES/*.po``,
kept in the repository) are compiled to ``.mo`` files by ``build_py``, in the source
tree before the package's files are collected (so editable installs have them too).

Without a working C compiler the package still installs: the rules library,
the web app (local and online games, the archive) and the commands that need
no engine work, and what needs the engine says that it is not built
(``poolcheckers.engine.EngineUnavailable``).  The build then prints a warning
instead of failing.  Set ``POOLCHECKERS_REQUIRE_NATIVE=1`` (``make setup``
does) to make a failed native build an error.
"""

from __future__ import annotations

import glob
import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py
from setuptools.errors import CCompilerError, CompileError, ExecError, LinkError, PlatformError

#: What a missing or broken C compiler raises while building an extension.
COMPILER_ERRORS = (CCompilerError, CompileError, ExecError, LinkError, PlatformError, OSError)

REQUIRE_NATIVE = os.environ.get("POOLCHECKERS_REQUIRE_NATIVE") == "1"

sources = sorted(glob.glob("native/*.c"))
sources = [s for s in sources if not os.path.basename(s).startswith("test_")]

extra_compile_args = ["-O3", "-std=c11", "-Wall", "-Wextra", "-Werror", "-fno-strict-aliasing"]
extra_link_args: list[str] = []
if os.environ.get("POOLCHECKERS_TUNED") == "1":
    extra_compile_args.append("-march=native")
if os.environ.get("POOLCHECKERS_SANITIZE") == "1":
    san = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-g"]
    extra_compile_args += san
    extra_link_args += san


class OptionalNativeBuild(build_ext):
    """``build_ext`` that warns and goes on when the native core cannot be compiled
    (unless ``POOLCHECKERS_REQUIRE_NATIVE=1``)."""

    def run(self) -> None:
        try:
            super().run()
        except COMPILER_ERRORS as exc:
            self._skip(exc)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except COMPILER_ERRORS as exc:
            self._skip(exc)

    def _skip(self, exc: BaseException) -> None:
        if REQUIRE_NATIVE:
            raise exc
        bar = "=" * 72
        print(
            f"\n{bar}\nWARNING: the native engine poolcheckers._core was not built ({exc}).\n"
            "poolcheckers is installed without it: the rules library, the web app's local\n"
            "and online games and archive, and the commands moves, perft (slower), serve\n"
            "and play --opponent human work; analyse, bench, match, ballots, hub and play\n"
            "against the engine say that the native engine is not built.  Install a C\n"
            f"compiler (e.g. gcc) and reinstall poolcheckers to get it.\n{bar}\n",
            file=sys.stderr,
        )


def compile_catalogs() -> list[str]:
    """Every ``.po`` of the web app's catalogs compiled to its ``.mo`` beside it;
    returns the files written.  A catalog with a broken entry stops the build."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    written = []
    for po_path in sorted(glob.glob("poolcheckers/server/i18n/locale/*/LC_MESSAGES/*.po")):
        with open(po_path, "rb") as po_file:
            catalog = read_po(po_file, abort_invalid=True)
        mo_path = po_path[:-3] + ".mo"
        with open(mo_path, "wb") as mo_file:
            write_mo(mo_file, catalog, use_fuzzy=False)
        written.append(mo_path)
    return written


class BuildWithCatalogs(build_py):
    """``build_py`` that compiles the gettext catalogs first."""

    def run(self) -> None:
        compile_catalogs()
        super().run()


ext_modules = []
if any(os.path.basename(s) == "module.c" for s in sources):
    ext_modules.append(
        Extension(
            "poolcheckers._core",
            sources=sources,
            include_dirs=["native"],
            extra_compile_args=extra_compile_args,
            extra_link_args=extra_link_args,
            libraries=["z", "pthread"],  # zlib: endgame table blocks (native/egdb_io.c)
        )
    )

setup(
    ext_modules=ext_modules,
    cmdclass={"build_ext": OptionalNativeBuild, "build_py": BuildWithCatalogs},
)
