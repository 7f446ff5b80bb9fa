"""Where the modules of bpe-stream 0.1.0 went: old pickles keep loading.

0.1.0 kept every module in one folder (``bpe_stream.appendable``,
``bpe_stream.piece_stream``, ...), and a pickle names the module of each class it
holds.  :class:`MovedModules` (installed on ``sys.meta_path`` by ``bpe_stream``) answers
an import of such a module with a stand-in whose attributes are looked up where the
names live now, so ``pickle.load`` finds them.  Names 0.1.0's ``encoding`` module held
are looked up through ``bpe_stream.encoding``'s own ``__getattr__`` (the name is a
package now).  Nothing else uses these stand-ins; new code imports the new modules.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types

from ._moved import MOVED

__all__ = ["MovedModules", "moved_attribute", "install"]


def moved_attribute(old: str, name: str):
    """``name`` of the 0.1.0 module ``bpe_stream.<old>``, from where it lives now."""
    default, names = MOVED[old]
    try:
        module = importlib.import_module(f"bpe_stream.{names.get(name, default)}")
        return getattr(module, name)
    except AttributeError:
        raise AttributeError(f"bpe_stream.{old} (a module of bpe-stream 0.1.0) had no {name!r}") from None


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports of 0.1.0's module names give stand-ins that forward attribute lookups."""

    def find_spec(self, fullname, path=None, target=None):
        prefix, _, old = fullname.partition(".")
        if prefix == "bpe_stream" and old in MOVED and "." not in old:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return None  # the default module object

    def exec_module(self, module: types.ModuleType) -> None:
        old = module.__name__.partition(".")[2]
        module.__doc__ = f"Stand-in for bpe-stream 0.1.0's {module.__name__} (see bpe_stream._legacy)."
        module.__getattr__ = lambda name: moved_attribute(old, name)


def install() -> None:
    if not any(isinstance(f, MovedModules) for f in sys.meta_path):
        sys.meta_path.append(MovedModules())
