"""The shipped suite's test_forgotten_ids tests, collected here against the SQLite factories."""

from tinymemory.testing.suite.test_forgotten_ids import *  # noqa: F403
