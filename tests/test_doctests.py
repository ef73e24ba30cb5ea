"""The examples in invent_core's docstrings hold (one was wrong unnoticed: clean_response's)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import invent_core

MODULES = sorted(
    m.name
    for m in pkgutil.walk_packages(invent_core.__path__, "invent_core.")
    if not m.name.endswith("__main__")  # running it would start the CLI
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{name}: {result.failed} of {result.attempted} examples failed"
