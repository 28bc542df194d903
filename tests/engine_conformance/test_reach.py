"""The shipped suite's test_reach tests, collected here against the SQLite factories."""

from tinymemory.testing.suite.test_reach import *  # noqa: F403
