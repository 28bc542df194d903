"""The engine conformance tests: every engine implementing `tinymemory.api.MemoryEngine` must pass them.

Each test receives the `engine` fixture, a fresh and empty engine opened by an `EngineFactory`, so every
test runs once per factory. The tests speak only the contract (`tinymemory.api`) and say nothing about
how an engine stores things. The fixtures come from `tinymemory.testing.plugin`; see
`tinymemory.testing` for how to run the suite against an engine.
"""
