"""The engine conformance suite: every engine implementing `tinymemory.api.MemoryEngine` must pass it.

Each test receives the `engine` fixture, a fresh and empty engine built by one of the factories in
`conftest.FACTORIES`; every test therefore runs once per factory. The suite speaks only the contract
(`tinymemory.api`), so it says nothing about how an engine stores things.

Adding an engine (for example Postgres) takes one factory:

1. Write an async context manager `open_postgres(tmp: Path) -> AsyncIterator[MemoryEngine]` that yields
   an engine over an empty database (create a throwaway schema or database per call, drop it on exit)
   and closes the engine afterwards.
2. Append `EngineFactory("postgres", open_postgres, semantic=True)` to `FACTORIES`, with `requires=`
   naming what must be importable and `skip_unless=` a callable that says whether the server is reachable,
   so machines without one skip instead of failing.

`semantic=True` declares that the engine serves semantic and hybrid fetch; the descriptor tests hold the
engine to that declaration and the lexical-only factories to the opposite.
"""
