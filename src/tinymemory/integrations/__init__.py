"""Bridges to other agent frameworks, each over the public facades and the `open_engine` factory.

`tinymemory.integrations.langgraph.TinyMemoryStore` is a LangGraph `BaseStore` over any engine (it
needs the `langgraph` extra). Nothing here is imported by `import tinymemory`, so a framework that is
not installed costs nothing until its bridge is imported.
"""
