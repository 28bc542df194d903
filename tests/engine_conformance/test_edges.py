"""The shipped suite's test_edges tests, collected here against the SQLite factories."""

from tinymemory.testing.suite.test_edges import *  # noqa: F403
