"""Every example in a docstring of the package runs and prints what it shows."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import bpe_stream

MODULES = sorted(m.name for m in pkgutil.walk_packages(bpe_stream.__path__, "bpe_stream.")
                 if not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=True)
    assert result.failed == 0, f"{result.failed} docstring examples of {name} fail"


def test_the_examples_are_found():
    # the check must be able to fail: the package has examples, and they are collected
    total = sum(doctest.testmod(importlib.import_module(n), report=False).attempted for n in MODULES)
    assert total >= 30
