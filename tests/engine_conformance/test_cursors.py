"""The shipped suite's test_cursors tests, collected here against the SQLite factories."""

from tinymemory.testing.suite.test_cursors import *  # noqa: F403
