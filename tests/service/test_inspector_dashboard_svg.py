"""The dashboard's SVG builders as pure functions: values are escaped, empty data says so, no style
attribute is emitted (the page's policy would block it), and the graph's layout is deterministic."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from tinymemory.api import ItemKind, ItemMeta, MemoryItem, Relation
from tinymemory.service.inspector import charts, graph_view, stats

HOSTILE = '<script>alert("x")</script>&'


def test_bar_chart_escapes_labels_and_titles() -> None:
    got = charts.bar_chart("c1", HOSTILE, [(HOSTILE, 3), ("plain", 1)])
    assert "<script>" not in got
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;" in got
    assert '<title id="c1-title">' in got and 'aria-labelledby="c1-title"' in got
    assert re.findall(r'<rect class="bar s\d" x="190" y="\d+" width="(\d+)"', got) == ["390", "130"]
    assert "<details" in got and '<th scope="row">plain</th><td>1</td>' in got


def test_charts_of_nothing_say_so() -> None:
    for got in (
        charts.bar_chart("c", "Empty", []),
        charts.bar_chart("c", "Zeros", [("user", 0)]),
        charts.column_chart("g", "None", ["a", "b"], [charts.Series("user", (0, 0))]),
        charts.column_chart("g", "No series", [], []),
    ):
        assert "No memories yet." in got and "<rect" not in got and '<ul class="legend">' not in got
    assert '<td colspan="2">No memories yet.</td>' in charts.bar_chart("c", "Empty", [])
    assert '<th scope="row">user</th><td>0</td>' in charts.bar_chart("c", "Zeros", [("user", 0)])


def test_column_chart_stacks_series_and_has_a_legend() -> None:
    got = charts.column_chart(
        "g", "Growth", ["12-01", HOSTILE], [charts.Series("user", (1, 2)), charts.Series(HOSTILE, (0, 2))]
    )
    assert "<script>" not in got
    assert got.count('<rect class="bar s0"') == 2 and got.count('<rect class="bar s1"') == 1
    assert '<ul class="legend">' in got and '<span class="swatch s1"></span>&lt;script&gt;' in got
    assert "<td>1</td><td>0</td><td>1</td>" in got and "<td>2</td><td>2</td><td>4</td>" in got


def test_no_builder_emits_a_style_attribute_or_script() -> None:
    graph = _graph()
    outputs = [
        charts.bar_chart("c", "t", [("a", 1)]),
        charts.column_chart("g", "t", ["a"], [charts.Series("s", (1,))]),
        graph_view.svg(graph, "t"),
        graph_view.listing(graph),
    ]
    for got in outputs:
        assert " style=" not in got and "<script" not in got and " fill=" not in got


def _item(memory_id: str, text: str, *relations: Relation) -> MemoryItem:
    when = datetime(2026, 1, 1, tzinfo=UTC)
    return MemoryItem(memory_id, ItemKind.LEARNING, text, ItemMeta(relations=relations), None, when)


def _graph() -> graph_view.Graph:
    center = _item("m_center", "Dana works on Atlas", Relation("Dana", "works_on", "Atlas"))
    one = _item("m_one", HOSTILE, Relation("Eve", "leads", "Atlas"))
    two = _item("m_two", "Eve mentors Finn", Relation("Eve", "mentors", "Finn"))
    nodes = (
        graph_view.Node(one, 1, "Atlas <-leads- Eve", one.meta.relations[0], "m_center"),
        graph_view.Node(two, 2, "Atlas <-leads- Eve -mentors-> Finn", two.meta.relations[0], "m_one"),
    )
    return graph_view.Graph(center, 2, nodes, truncated=False)


def test_graph_svg_links_nodes_labels_edges_and_escapes() -> None:
    got = graph_view.svg(_graph(), "Relations")
    assert "<script>" not in got and "&lt;script&gt;" in got
    assert re.findall(r'<a class="node (hop\d)" href="/items/([^"]+)">', got) == [
        ("hop0", "m_center"),
        ("hop1", "m_one"),
        ("hop2", "m_two"),
    ]
    assert re.findall(r'class="edge-label"[^>]*>([^<]+)<', got) == ["leads", "mentors"]
    assert graph_view.svg(_graph(), "Relations") == got, "the layout is deterministic"


def test_graph_rings() -> None:
    at = graph_view.positions(_graph())
    assert at["m_center"] == (400, 320)
    assert at["m_one"] == (400.0, 180.0)  # the first hop-1 node stands at the top
    assert at["m_two"] == (400.0, 60.0)  # an only child stands straight out from its hop-1 node


def test_graph_listing_of_a_memory_without_relations() -> None:
    lone = graph_view.Graph(_item("m_x", "alone"), 1, (), truncated=False)
    assert "names no relations" in graph_view.listing(lone)
    assert graph_view.seeds(lone.center) == ()


def test_seeds_are_each_entity_once_and_capped() -> None:
    item = _item("m", "x", Relation("Dana", "knows", "eve"), Relation("EVE", "knows", "Finn"))
    assert graph_view.seeds(item) == ("Dana", "eve", "Finn")
    many = _item("m", "x", *(Relation(f"a{i}", "knows", f"b{i}") for i in range(10)))
    assert len(graph_view.seeds(many)) == graph_view.MAX_SEEDS


def test_bucket_starts_align_to_calendar_units() -> None:
    now = datetime(2026, 3, 4, 15, 30, tzinfo=UTC)  # a Wednesday
    assert stats.bucket_starts(now, "day", 2) == (
        datetime(2026, 3, 3, tzinfo=UTC),
        datetime(2026, 3, 4, tzinfo=UTC),
    )
    assert stats.bucket_starts(now, "week", 1) == (datetime(2026, 3, 2, tzinfo=UTC),)
    months = stats.bucket_starts(now, "month", 4)
    assert months[0] == datetime(2025, 12, 1, tzinfo=UTC) and months[-1] == datetime(2026, 3, 1, tzinfo=UTC)
    assert stats.bucket_starts(now, "year", 2) == (
        datetime(2025, 1, 1, tzinfo=UTC),
        datetime(2026, 1, 1, tzinfo=UTC),
    )


def test_hop_two_stays_in_its_parents_slice() -> None:
    center = _item("m_c", "c", Relation("a", "r", "b"))
    up, down, leaf = (_item(f"m_{n}", n, Relation("x", "r", "y")) for n in ("up", "down", "leaf"))
    nodes = (
        graph_view.Node(up, 1, "", up.meta.relations[0], "m_c"),
        graph_view.Node(down, 1, "", down.meta.relations[0], "m_c"),
        graph_view.Node(leaf, 2, "", leaf.meta.relations[0], "m_down"),
    )
    at = graph_view.positions(graph_view.Graph(center, 2, nodes, truncated=False))
    assert at["m_up"][1] < 320 < at["m_down"][1] < at["m_leaf"][1]
