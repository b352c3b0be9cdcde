import os
import sys

# the package from this checkout, whatever is installed
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def need(module):
    """Imports `module`; without it the test is skipped, or fails under CI (where .ci/run installs it)."""
    import importlib

    import pytest
    if os.environ.get("CI"):
        return importlib.import_module(module)
    return pytest.importorskip(module)
