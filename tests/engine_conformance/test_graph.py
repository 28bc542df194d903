"""The shipped suite's test_graph tests, collected here against the SQLite factories."""

from tinymemory.testing.suite.test_graph import *  # noqa: F403
