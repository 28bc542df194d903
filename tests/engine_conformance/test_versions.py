"""The shipped suite's test_versions tests, collected here against the SQLite factories."""

from tinymemory.testing.suite.test_versions import *  # noqa: F403
