"""Loaded first for every run: helpers in ``tests.kit`` get pytest's assertion messages, and the
fixtures in ``tests/kit/fixtures.py`` are there for every test."""

import pytest

pytest.register_assert_rewrite("tests.kit")

pytest_plugins = ("tests.kit.fixtures",)
