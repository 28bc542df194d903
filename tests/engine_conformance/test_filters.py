"""The shipped suite's test_filters tests, collected here against the SQLite factories."""

from tinymemory.testing.suite.test_filters import *  # noqa: F403
