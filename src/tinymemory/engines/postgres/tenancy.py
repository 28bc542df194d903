"""Tenants: the first segment of a namespace, the unit of row-level security and of write locks.

Every row carries `tenant` (the namespace's first segment as text, '' for the root namespace). A
transaction declares the tenants it may touch in the `tinymemory.tenants` setting, which the tables'
policies check (schema.py): '*' admits every tenant, otherwise a comma-separated list does; unset or
empty admits none. The namespace filter in SQL (where.py) still confines each query exactly; the policy
is the second wall, so a query that forgot its filter still cannot read another tenant's rows.
"""

from __future__ import annotations

from collections.abc import Iterable

from tinymemory.api.filters import MetaFilter
from tinymemory.api.namespace import Namespace, Reach, ReachMode

EVERY = "*"
ROOT = ""  # the tenant of the root namespace, an ancestor of every namespace

Tenants = frozenset[str] | None  # None: every tenant


def tenant_of(ns: Namespace) -> str:
    return str(ns.segments[0]) if ns.segments else ROOT


def tenant_of_text(ns: str) -> str:
    """The tenant of a namespace written as text (`team:acme/agent:a` -> `team:acme`)."""
    return ns.split("/", 1)[0]


def reach_tenants(reach: Reach | None) -> Tenants:
    """The tenants a reach can touch (None: all). An inherit term reaches its node's ancestors, so the
    root's tenant too; a subtree of the root reaches everything."""
    if reach is None:
        return None
    out: set[str] = set()
    for term in reach.terms:
        if term.mode is ReachMode.SUBTREE and term.namespace.is_root:
            return None
        out.add(tenant_of(term.namespace))
        if term.mode is ReachMode.INHERIT:
            out.add(ROOT)
    return frozenset(out)


def filter_tenants(flt: MetaFilter) -> Tenants:
    """The tenants a read with this filter can touch: its namespace's, else its reach's."""
    if flt.namespace is not None:
        return frozenset({tenant_of(flt.namespace)})
    return reach_tenants(flt.reach)


def both(a: Tenants, b: Tenants) -> Tenants:
    """Tenants within both sets (None is every tenant)."""
    if a is None:
        return b
    if b is None:
        return a
    return a & b


def setting(tenants: Tenants) -> str:
    """The value of `tinymemory.tenants` that admits exactly `tenants`.

    The root's tenant is the empty element of the list, so a list of the root alone is a single comma
    (an empty setting admits nothing).
    """
    if tenants is None:
        return EVERY
    if not tenants:
        return ""
    if tenants == {ROOT}:
        return ","
    return ",".join(sorted(tenants))


def of_namespaces(namespaces: Iterable[Namespace]) -> frozenset[str]:
    return frozenset(tenant_of(ns) for ns in namespaces)
