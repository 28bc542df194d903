"""The shipped suite's test_fetch_recall tests, collected here against the SQLite factories."""

from tinymemory.testing.suite.test_fetch_recall import *  # noqa: F403
