"""tinymemory.api: the contract every engine implements and every host and tool layer calls.

It depends on nothing else in tinymemory.
"""

from tinymemory.api.engine import EngineDescriptor, MemoryEngine
from tinymemory.api.errors import (
    Conflict,
    InvalidRequest,
    NotFound,
    TinyMemoryError,
    Unavailable,
    Unsupported,
)
from tinymemory.api.filters import HOST_FIXED_FIELDS, Facet, FetchMode, MetaFilter, TimeHint
from tinymemory.api.ids import content_key, item_id
from tinymemory.api.items import (
    DEFAULT_CONFIDENCE,
    DEFAULT_LEARNING_KIND,
    LEARNING_KINDS,
    About,
    ItemKind,
    ItemMeta,
    MemoryItem,
    NewItem,
    Ref,
    Source,
)
from tinymemory.api.jsonable import to_jsonable
from tinymemory.api.namespace import Namespace, Reach, ReachMode, ReachTerm, Segment
from tinymemory.api.records import (
    FORMAT_VERSION,
    ImportResult,
    PortableEngine,
    StoredRecord,
    StoredVector,
    decode_header,
    decode_record,
    encode_header,
    encode_record,
    tombstone,
)
from tinymemory.api.relations import (
    MAX_HOPS,
    ExpandRequest,
    ExpandResult,
    GraphHit,
    Relation,
    entity_key,
)
from tinymemory.api.requests import (
    DEFAULT_LIMIT,
    EXPLORE_SCAN_CAP,
    MAX_IDS,
    MAX_LIMIT,
    Bucket,
    Citation,
    ExploreRequest,
    ExploreResult,
    FetchRequest,
    FetchResult,
    ForgetRequest,
    ForgetResult,
    GetRequest,
    GetResult,
    Hit,
    ListRequest,
    ListResult,
    PurgeRequest,
    PurgeResult,
    RecallRequest,
    RecallResult,
    StoreResult,
    Tombstone,
    Why,
)
from tinymemory.api.timeutil import format_rfc3339, parse_rfc3339, utcnow

__all__ = [
    "DEFAULT_CONFIDENCE",
    "DEFAULT_LEARNING_KIND",
    "DEFAULT_LIMIT",
    "EXPLORE_SCAN_CAP",
    "HOST_FIXED_FIELDS",
    "LEARNING_KINDS",
    "MAX_IDS",
    "MAX_LIMIT",
    "About",
    "Bucket",
    "Citation",
    "Conflict",
    "EngineDescriptor",
    "ExploreRequest",
    "ExploreResult",
    "Facet",
    "FetchMode",
    "FetchRequest",
    "FetchResult",
    "ForgetRequest",
    "ForgetResult",
    "GetRequest",
    "GetResult",
    "Hit",
    "InvalidRequest",
    "ItemKind",
    "ItemMeta",
    "ListRequest",
    "ListResult",
    "MemoryEngine",
    "MemoryItem",
    "MetaFilter",
    "Namespace",
    "NewItem",
    "NotFound",
    "PurgeRequest",
    "PurgeResult",
    "Reach",
    "ReachMode",
    "ReachTerm",
    "RecallRequest",
    "RecallResult",
    "Ref",
    "Segment",
    "Source",
    "StoreResult",
    "TimeHint",
    "TinyMemoryError",
    "Tombstone",
    "Unavailable",
    "Unsupported",
    "Why",
    "content_key",
    "format_rfc3339",
    "item_id",
    "parse_rfc3339",
    "utcnow",
]


__all__ += ["to_jsonable"]
__all__ += ["MAX_HOPS", "ExpandRequest", "ExpandResult", "GraphHit", "Relation", "entity_key"]
__all__ += ["FORMAT_VERSION", "ImportResult", "PortableEngine", "StoredRecord", "StoredVector"]
__all__ += ["decode_header", "decode_record", "encode_header", "encode_record", "tombstone"]
