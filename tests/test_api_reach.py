"""Property tests of Reach: membership of each term kind, unions, and the textual form."""

from __future__ import annotations

import pytest
from hypothesis import given

from test_api_strategies import reaches, small_namespaces
from tinymemory.api import InvalidRequest, Namespace, Reach
from tinymemory.api.namespace import reach_contains_all


@given(small_namespaces, small_namespaces)
def test_of_is_the_lineage(node: Namespace, other: Namespace) -> None:
    assert Reach.of(node).contains(other) == (other in node.lineage())


@given(small_namespaces, small_namespaces)
def test_exact_is_the_node_alone(node: Namespace, other: Namespace) -> None:
    assert Reach.exact(node).contains(other) == (other == node)


@given(small_namespaces, small_namespaces)
def test_subtree_is_the_node_and_its_descendants(node: Namespace, other: Namespace) -> None:
    assert Reach.subtree(node).contains(other) == (node in other.lineage())


@given(reaches, reaches, small_namespaces)
def test_union_contains_what_any_part_contains(a: Reach, b: Reach, other: Namespace) -> None:
    both = Reach.union(a, b)
    assert both.contains(other) == (a.contains(other) or b.contains(other))
    assert (other in both) == both.contains(other)


@given(reaches)
def test_union_drops_repeated_terms(a: Reach) -> None:
    doubled = Reach.union(a, a)
    assert len(doubled.terms) == len(set(a.terms))


@given(small_namespaces, small_namespaces)
def test_siblings_never_see_each_other(parent: Namespace, other: Namespace) -> None:
    a = parent.child("agent", "x")
    b = parent.child("agent", "y")
    assert not Reach.of(a).contains(b)
    assert not Reach.of(b).contains(a)
    assert Reach.of(a).contains(parent)


@given(reaches)
def test_print_then_parse_round_trips(reach: Reach) -> None:
    assert Reach.parse(str(reach)) == reach


def test_names_may_contain_plus() -> None:
    """`+` joins terms and is also legal in names (e-mail style `user:ann+work`); both must survive."""
    reach = Reach.parse("inherit(team:a+b/user:ann+work)+exact(team:c)")
    assert [str(t.namespace) for t in reach] == ["team:a+b/user:ann+work", "team:c"]
    assert Reach.parse("team:a+b") == Reach.of(Namespace.parse("team:a+b"))


@given(small_namespaces)
def test_a_bare_namespace_means_inherit(node: Namespace) -> None:
    if not node.is_root:
        assert Reach.parse(str(node)) == Reach.of(node)


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "   ",
        "subtree(Team:acme)",
        "inherit(team:acme)+",
        "+exact(team:a)",
        "exact(a:b)++c:d",
        "sideways(team:a)",
    ],
)
def test_malformed_reaches_are_refused_naming_the_field(bad: str) -> None:
    with pytest.raises(InvalidRequest) as err:
        Reach.parse(bad, field="scope.reach")
    assert str(err.value).startswith("scope.reach: ")


@given(reaches, small_namespaces)
def test_contains_all(reach: Reach, ns: Namespace) -> None:
    assert reach_contains_all(None, [ns])
    assert reach_contains_all(reach, [ns]) == reach.contains(ns)
