"""The memory__ tools, one module each: everything about a tool (its name, descriptions, arguments
under a policy, handler and result model) is declared in its module as `TOOL`.

`policy.registry` lists them in the order they are offered.
"""
