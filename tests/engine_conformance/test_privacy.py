"""The shipped suite's test_privacy tests, collected here against the SQLite factories."""

from tinymemory.testing.suite.test_privacy import *  # noqa: F403
