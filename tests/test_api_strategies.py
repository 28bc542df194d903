"""Hypothesis strategies for the contract's values, shared by the test_api_* modules (no tests of its own)."""

from __future__ import annotations

from hypothesis import strategies as st

from tinymemory.api import Namespace, Reach, ReachMode, ReachTerm, Segment
from tinymemory.api.namespace import MAX_DEPTH

KIND_RE = r"[a-z][a-z0-9_-]{0,31}"
NAME_RE = r"[A-Za-z0-9][A-Za-z0-9._@+=~-]{0,127}"

kinds = st.from_regex(KIND_RE, fullmatch=True)
names = st.from_regex(NAME_RE, fullmatch=True)
segments = st.builds(Segment, kinds, names)
namespaces = st.lists(segments, max_size=6).map(lambda s: Namespace(tuple(s)))
deep_namespaces = st.lists(segments, min_size=1, max_size=MAX_DEPTH).map(lambda s: Namespace(tuple(s)))
# a small alphabet so that generated namespaces often share prefixes
small_namespaces = st.lists(
    st.builds(Segment, st.sampled_from(["team", "agent"]), st.sampled_from(["a", "b"])), max_size=4
).map(lambda s: Namespace(tuple(s)))
terms = st.builds(ReachTerm, namespaces, st.sampled_from(list(ReachMode)))
reaches = st.lists(terms, min_size=1, max_size=4).map(lambda t: Reach(tuple(t)))
