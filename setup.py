"""The solver's compiled core (engine/solver/_core.c), built with the package where a C compiler
is there; everything else is in pyproject.toml.

    pip install -e .                        # builds engine/solver/_core*.so beside the source
    python setup.py build_ext --inplace     # the same, in a checkout, without installing

Without a compiler (or without the Python headers: Debian's python3-dev) the install still
succeeds and the solver runs its pure-Python search, the reference, only slower
(``engine.solver.compiled.available()`` says which one runs, and why).
"""

from __future__ import annotations

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class OptionalBuildExt(build_ext):  # type: ignore[misc]  # setuptools is untyped
    """Builds the core if it can; a failed build is reported, never fatal."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 (no compiler, no headers: the pure-Python search runs)
            self.warn(f"the solver's compiled core was not built ({exc}); the pure-Python search will run")

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            self.warn(f"the solver's compiled core was not built ({exc}); the pure-Python search will run")


setup(
    ext_modules=[
        Extension(
            "engine.solver._core",
            sources=["engine/solver/_core.c"],
            depends=[f"engine/solver/{part}.h" for part in
                     ("_core", "_plays", "_cache", "_canon", "_table", "_alphabeta", "_pns", "_combos")],
            extra_compile_args=["-std=gnu11", "-Wall", "-Wextra", "-Wno-missing-field-initializers"],
            optional=True,
        )
    ],
    cmdclass={"build_ext": OptionalBuildExt},
)
