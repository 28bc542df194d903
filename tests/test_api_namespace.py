"""Property tests of Namespace: one strict grammar, a faithful printer, and the tree laws."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from test_api_strategies import KIND_RE, NAME_RE, deep_namespaces, namespaces, small_namespaces
from tinymemory.api import InvalidRequest, Namespace, Reach
from tinymemory.api.namespace import MAX_DEPTH

SEGMENT = re.compile(rf"({KIND_RE}):({NAME_RE})")


def grammar_accepts(text: str) -> bool:
    """The namespace grammar written independently of the parser."""
    if text == "":
        return True
    parts = text.split("/")
    return len(parts) <= MAX_DEPTH and all(SEGMENT.fullmatch(p) for p in parts)


@given(deep_namespaces)
def test_print_then_parse_round_trips(ns: Namespace) -> None:
    assert Namespace.parse(str(ns)) == ns
    assert str(Namespace.parse(str(ns))) == str(ns)


def test_the_root_is_the_empty_string() -> None:
    assert Namespace.parse("") == Namespace.root()
    assert str(Namespace.root()) == ""
    assert Namespace.root().is_root


@given(st.text(alphabet="ab:/-_.Z9 +\n", max_size=30) | st.text(max_size=30))
@example("a:b\n")  # `$` matches before a trailing newline: the parser must anchor at the very end
@example("a:b/a:b\n")
@example("a:b\n/a:b")
def test_parse_accepts_exactly_the_grammar(text: str) -> None:
    if grammar_accepts(text):
        assert str(Namespace.parse(text)) == text
    else:
        with pytest.raises(InvalidRequest) as err:
            Namespace.parse(text, field="scope.place")
        assert str(err.value).startswith("scope.place: ")


@pytest.mark.parametrize(
    "bad",
    [
        "/",
        "team:acme/",
        "/team:acme",
        "team:acme//agent:a",
        "Team:acme",
        "team:",
        ":acme",
        "team:-acme",
        "team:a b",
        "team:acme\n",
        "team:acme/agent:a\n",
        "team:acme\n/agent:a",
        "team:acme\r",
    ],
)
def test_malformed_strings_are_refused_naming_the_field(bad: str) -> None:
    with pytest.raises(InvalidRequest) as err:
        Namespace.parse(bad)
    assert str(err.value).startswith("namespace: ")


def test_too_deep_is_refused() -> None:
    text = "/".join(f"k:n{i}" for i in range(MAX_DEPTH + 1))
    with pytest.raises(InvalidRequest, match="deeper"):
        Namespace.parse(text)


def test_non_strings_are_refused() -> None:
    with pytest.raises(InvalidRequest):
        Namespace.parse(42)  # type: ignore[arg-type]


@given(namespaces)
def test_ancestors_walk_up_to_the_root(ns: Namespace) -> None:
    ups = ns.ancestors()
    assert len(ups) == ns.depth
    assert [a.depth for a in ups] == list(range(ns.depth - 1, -1, -1))
    if ups:
        assert ups[-1].is_root
        assert ups[0] == ns.parent()
    assert all(ns.is_within(a) and a != ns for a in ups)
    assert ns.lineage() == (ns, *ups)


@given(namespaces)
def test_is_within_is_reflexive_and_everything_is_within_the_root(ns: Namespace) -> None:
    assert ns.is_within(ns)
    assert ns.is_within(Namespace.root())


@given(small_namespaces, small_namespaces, small_namespaces)
def test_is_within_is_transitive_and_antisymmetric(a: Namespace, b: Namespace, c: Namespace) -> None:
    if a.is_within(b) and b.is_within(c):
        assert a.is_within(c)
    if a.is_within(b) and b.is_within(a):
        assert a == b


@given(small_namespaces, small_namespaces)
def test_is_within_means_being_in_the_lineage(a: Namespace, b: Namespace) -> None:
    assert a.is_within(b) == (b in a.lineage())


@given(namespaces, st.from_regex(KIND_RE, fullmatch=True), st.from_regex(NAME_RE, fullmatch=True))
def test_child_is_within_its_parent(ns: Namespace, kind: str, name: str) -> None:
    child = ns.child(kind, name)
    assert child.parent() == ns
    assert child.is_within(ns) and not ns.is_within(child)
    assert child.get(kind) == name


def test_a_trailing_newline_is_not_the_same_place() -> None:
    """A host deriving the place from a user-supplied name must not map `u1\\n` onto `u1`."""
    with pytest.raises(InvalidRequest, match="bad segment"):
        Namespace.parse("user:u1\n")
    with pytest.raises(InvalidRequest):
        Namespace.of(("user", "u1\n"))


@pytest.mark.parametrize("bad", ["user:u\ud800", "user:\udfff/agent:a", "exact(team:\ud800)"])
def test_errors_about_unencodable_names_can_be_rendered(bad: str) -> None:
    """The message quotes the input; a lone surrogate in it would make the error itself fail to print."""
    with pytest.raises(InvalidRequest) as err:
        Namespace.parse(bad) if not bad.startswith("exact(") else Reach.parse(bad)
    str(err.value).encode("utf-8")
