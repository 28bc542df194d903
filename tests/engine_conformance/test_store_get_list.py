"""The shipped suite's test_store_get_list tests, collected here against the SQLite factories."""

from tinymemory.testing.suite.test_store_get_list import *  # noqa: F403
