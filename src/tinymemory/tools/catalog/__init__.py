"""The memory_ tools, one module each: everything about a tool (its name, description, arguments,
handler, result rendering and result model) is declared in its module as `TOOL`.

`tools.registry` lists them in the order they are offered.
"""
