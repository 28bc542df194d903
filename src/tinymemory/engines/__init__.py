"""Storage engines implementing tinymemory.api.MemoryEngine."""
