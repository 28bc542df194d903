"""Charts as inline SVG built on the server: no script, no style attribute (the page's policy forbids
both), only classes the inspector's stylesheet colours. Each chart carries a title for assistive
technology and a plain table of the same numbers in a `<details>` below it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tinymemory.service.inspector.markup import EMPTY, Html, fill, join

WIDTH = 640
LABEL_WIDTH = 190  # the left column of a bar chart, where each bar's name stands
BAR_ROW = 28
COLUMN_HEIGHT = 200
SERIES_CLASSES = 4  # s0..s3 in the stylesheet; further series reuse them in turn
EMPTY_TEXT = "No memories yet."

FIGURE = """<figure class="chart" id="$id">
<svg class="chart-svg" viewBox="0 0 $w $h" role="img" aria-labelledby="$id-title">
<title id="$id-title">$title</title>
$marks
</svg>
$legend<details class="chart-data"><summary>$title: the numbers</summary>
<table><thead><tr>$head</tr></thead><tbody>$rows</tbody></table></details>
</figure>"""


@dataclass(frozen=True, slots=True)
class Series:
    """One named row of values, one value per bucket of a column chart."""

    name: str
    values: tuple[int, ...]


def _series_class(index: int) -> str:
    return f"s{index % SERIES_CLASSES}"


def _table(head: Sequence[str], rows: Sequence[Sequence[object]]) -> tuple[Html, Html]:
    cells = join(fill('<th scope="col">$h</th>', h=h) for h in head)
    body = join(
        fill(
            '<tr><th scope="row">$first</th>$rest</tr>',
            first=row[0],
            rest=join(fill("<td>$v</td>", v=v) for v in row[1:]),
        )
        for row in rows
    )
    if not rows:
        body = fill('<tr><td colspan="$n">$t</td></tr>', n=len(head), t=EMPTY_TEXT)
    return cells, body


def _empty_mark(height: int) -> Html:
    return fill(
        '<text class="chart-empty" x="$x" y="$y">$t</text>', x=WIDTH // 2, y=height // 2, t=EMPTY_TEXT
    )


def bar_chart(chart_id: str, title: str, bars: Sequence[tuple[str, int]], unit: str = "Memories") -> Html:
    """Horizontal bars, one per (label, count), longest scaled to the plot's width."""
    height = max(1, len(bars)) * BAR_ROW + 8
    top = max((n for _, n in bars), default=0)
    plot = WIDTH - LABEL_WIDTH - 60
    marks = []
    for i, (label, count) in enumerate(bars):
        y = 4 + i * BAR_ROW
        length = round(plot * count / top) if top else 0
        marks.append(
            fill(
                """<g class="bar-row"><text class="bar-label" x="$lx" y="$ty">$label</text>
<rect class="bar $cls" x="$x" y="$y" width="$bw" height="$bh"><title>$label: $count</title></rect>
<text class="bar-value" x="$vx" y="$ty">$count</text></g>""",
                lx=LABEL_WIDTH - 8,
                ty=y + 18,
                label=label,
                cls=_series_class(i),
                x=LABEL_WIDTH,
                y=y + 4,
                bw=length,
                bh=BAR_ROW - 8,
                count=count,
                vx=LABEL_WIDTH + length + 6,
            )
        )
    head, rows = _table(("", unit), [(label, count) for label, count in bars])
    return fill(
        FIGURE,
        id=chart_id,
        w=WIDTH,
        h=height,
        title=title,
        marks=join(marks) if top else _empty_mark(height),
        legend=EMPTY,
        head=head,
        rows=rows,
    )


def column_chart(chart_id: str, title: str, buckets: Sequence[str], series: Sequence[Series]) -> Html:
    """Stacked columns, one per bucket (oldest first), each split by series, with a legend."""
    totals = [sum(s.values[i] for s in series) for i in range(len(buckets))]
    top = max(totals, default=0)
    left, bottom = 40, 24
    height = COLUMN_HEIGHT + bottom + 8
    slot = (WIDTH - left) / max(1, len(buckets))
    marks = [
        fill(
            '<line class="axis" x1="$x" y1="$y" x2="$x2" y2="$y"/>'
            '<text class="axis-label" x="$tx" y="12">$top</text>'
            '<text class="axis-label" x="$tx" y="$y">0</text>',
            x=left,
            x2=WIDTH,
            y=COLUMN_HEIGHT + 4,
            tx=left - 6,
            top=top,
        )
    ]
    for i, bucket in enumerate(buckets):
        x = round(left + i * slot + slot * 0.15)
        base = float(COLUMN_HEIGHT + 4)
        for j, s in enumerate(series):
            value = s.values[i]
            if not value:
                continue
            h = COLUMN_HEIGHT * value / top
            base -= h
            marks.append(
                fill(
                    '<rect class="bar $cls" x="$x" y="$y" width="$w" height="$h">'
                    "<title>$bucket, $name: $value</title></rect>",
                    cls=_series_class(j),
                    x=x,
                    y=round(base, 1),
                    w=round(slot * 0.7),
                    h=round(h, 1),
                    bucket=bucket,
                    name=s.name,
                    value=value,
                )
            )
        marks.append(
            fill(
                '<text class="column-label" x="$x" y="$y">$label</text>',
                x=round(left + i * slot + slot / 2),
                y=COLUMN_HEIGHT + 20,
                label=bucket,
            )
        )
    legend = fill(
        '<ul class="legend">$items</ul>',
        items=join(
            fill('<li><span class="swatch $cls"></span>$name</li>', cls=_series_class(j), name=s.name)
            for j, s in enumerate(series)
        ),
    )
    head, rows = _table(
        ("", *(s.name for s in series), "total"),
        [(bucket, *(s.values[i] for s in series), totals[i]) for i, bucket in enumerate(buckets)]
        if top
        else [],
    )
    return fill(
        FIGURE,
        id=chart_id,
        w=WIDTH,
        h=height,
        title=title,
        marks=join(marks) if top else _empty_mark(height),
        legend=legend if top and series else EMPTY,
        head=head,
        rows=rows,
    )
