"""The one compiled part of pooltool, built by ``pip install``: everything else is in
pyproject.toml. The extension is optional: without a C compiler the install still
succeeds and pooltool reads every file with its Python readers (the same results,
slower; ``POOLTOOL_REQUIRE_NATIVE=1`` makes the test suite insist on it)."""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("pooltool.native._runpass",
              [f"pooltool/native/{name}.c"
               for name in ("_runpass", "runpass_read", "runpass_join", "runpass_order",
                             "runpass_pairs")],
              depends=["pooltool/native/runpass.h"], optional=True,
              extra_compile_args=["-std=c11", "-Wall", "-Wextra"]),
])
