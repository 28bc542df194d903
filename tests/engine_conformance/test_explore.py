"""The shipped suite's test_explore tests, collected here against the SQLite factories."""

from tinymemory.testing.suite.test_explore import *  # noqa: F403
