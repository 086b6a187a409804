"""pooltool's compiled fast path: one pass over a run file's bytes (``_runpass.c``).

The extension is optional (built by ``pip install`` when a C compiler is there,
``setup.py``), and it only ever declines: every caller keeps its Python path, which
runs when the module is missing, when it answers ``None``, or when the environment
sets ``POOLTOOL_NATIVE=0`` (to compare the two paths, or to rule this one out).
"""

from __future__ import annotations

import os
from types import ModuleType

# The compiled functions' names and arguments this package calls (_runpass.c's
# RUNPASS_INTERFACE): a module of another interface, built from older sources and not
# rebuilt (an editable install after a pull), is left unused like a missing one.
INTERFACE = 2



def usable(module: ModuleType | None) -> ModuleType | None:
    """``module`` when it is the compiled module of :data:`INTERFACE`, else ``None``."""
    return module if getattr(module, "INTERFACE", None) == INTERFACE else None


_compiled: ModuleType | None
try:
    from pooltool.native import _runpass as _compiled
except ImportError:  # built without a compiler: the Python readers do everything
    _compiled = None
_compiled = usable(_compiled)


def built() -> bool:
    """Whether the compiled module was built at install, from these sources' interface
    (whatever the environment says)."""
    return _compiled is not None


def run_pass() -> ModuleType | None:
    """The compiled module, or ``None`` when it is not built or ``POOLTOOL_NATIVE=0``."""
    if os.environ.get("POOLTOOL_NATIVE") == "0":
        return None
    return _compiled
