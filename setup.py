"""Build script for the native search core (``poolcheckers._core``).

The C sources in ``native/`` are compiled by the system C compiler with
optimisation flags suited to the machine (``-O3 -march=native``).  Set
``POOLCHECKERS_PORTABLE=1`` to build without ``-march=native`` and
``POOLCHECKERS_SANITIZE=1`` to build with AddressSanitizer/UBSan.
"""

from __future__ import annotations

import glob
import os

from setuptools import Extension, setup

sources = sorted(glob.glob("native/*.c"))
sources = [s for s in sources if not os.path.basename(s).startswith("test_")]

extra_compile_args = ["-O3", "-std=c11", "-Wall", "-Wextra", "-Werror", "-fno-strict-aliasing"]
extra_link_args: list[str] = []
if os.environ.get("POOLCHECKERS_PORTABLE") != "1":
    extra_compile_args.append("-march=native")
if os.environ.get("POOLCHECKERS_SANITIZE") == "1":
    san = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-g"]
    extra_compile_args += san
    extra_link_args += san

ext_modules = []
if any(os.path.basename(s) == "module.c" for s in sources):
    ext_modules.append(
        Extension(
            "poolcheckers._core",
            sources=sources,
            include_dirs=["native"],
            extra_compile_args=extra_compile_args,
            extra_link_args=extra_link_args,
        )
    )

setup(ext_modules=ext_modules)
