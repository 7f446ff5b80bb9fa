"""Every example in a docstring of the package runs and prints what it shows."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import bpe_stream

MODULES = sorted(m.name for m in pkgutil.walk_packages(bpe_stream.__path__, "bpe_stream.")
                 if not m.name.endswith("__main__"))


# The adapters import their framework (an optional extra): without it they are skipped.
FRAMEWORKS = {
    "bpe_stream.integrations.langchain": "langchain_text_splitters",
    "bpe_stream.integrations.llama_index": "llama_index.core",
    "bpe_stream.integrations.haystack": "haystack",
    "bpe_stream.integrations.docling": "docling_core.transforms.chunker.hybrid_chunker",
}


def import_module(name: str):
    if name in FRAMEWORKS:
        pytest.importorskip(FRAMEWORKS[name], reason=f"{name} needs {FRAMEWORKS[name]} (an optional extra)")
    return importlib.import_module(name)


def test_every_adapter_names_its_framework():
    adapters = [m for m in MODULES if m.startswith("bpe_stream.integrations.")]
    assert adapters and set(adapters) == set(FRAMEWORKS)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=True)
    assert result.failed == 0, f"{result.failed} docstring examples of {name} fail"


def test_the_examples_are_found():
    # the check must be able to fail: the package has examples, and they are collected
    total = sum(doctest.testmod(importlib.import_module(n), report=False).attempted
                for n in MODULES if n not in FRAMEWORKS)
    assert total >= 30
