"""The shipped suite's test_validation tests, collected here against the SQLite factories."""

from tinymemory.testing.suite.test_validation import *  # noqa: F403
