"""The shipped suite's test_stopword_queries tests, collected here against the SQLite factories."""

from tinymemory.testing.suite.test_stopword_queries import *  # noqa: F403
