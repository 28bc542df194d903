"""Runs the shipped conformance suite (`tinymemory.testing.suite`) against tinymemory's SQLite engine.

`factories.py` holds the SQLite factories, `conftest.py` hands them to the suite's fixtures, and each
`test_*.py` here re-exports one suite module's tests so they are collected in this tree. A new suite
module needs its one-line twin here; `tests/test_testing_package.py` checks none is missing.
"""
