"""Reach compiled to SQL agrees with Reach.contains, for every node of a small tree and any reach."""

from __future__ import annotations

import itertools
import sqlite3

from hypothesis import given
from hypothesis import strategies as st

from tinymemory.api import Namespace, Reach, ReachMode, ReachTerm
from tinymemory.engines.sqlite.where import Params, reach_sql

# Names chosen to trip prefix and wildcard mistakes: `a_b` vs `aXb`, `a` vs `ab`, `a` vs `a0`.
NAMES = ("a", "ab", "a_b", "aXb", "a0", "a.b")
SEGMENTS = [f"{k}:{n}" for k in ("team", "agent") for n in NAMES]
NODES = [Namespace.root()] + [
    Namespace.parse("/".join(p)) for depth in (1, 2) for p in itertools.product(SEGMENTS[:6], repeat=depth)
]

namespaces = st.sampled_from(NODES)
terms = st.builds(ReachTerm, namespaces, st.sampled_from(list(ReachMode)))
reaches = st.lists(terms, min_size=1, max_size=3).map(lambda ts: Reach(tuple(ts)))

DB = sqlite3.connect(":memory:")
DB.execute("CREATE TABLE items (ns TEXT)")
DB.executemany("INSERT INTO items VALUES (?)", [(str(n),) for n in NODES])


@given(reaches)
def test_sql_reach_matches_the_contract(reach: Reach) -> None:
    params: Params = []
    cond = reach_sql(reach, params) or "1"
    got = {r[0] for r in DB.execute(f"SELECT i.ns FROM items i WHERE {cond}", params)}
    assert got == {str(n) for n in NODES if reach.contains(n)}


def test_no_reach_and_root_subtree_add_no_condition() -> None:
    assert reach_sql(None, []) is None
    assert reach_sql(Reach.subtree(Namespace.root()), []) is None
