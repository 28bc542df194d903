"""Drop-in APIs of other memory libraries, served by tinymemory.

Each subpackage mirrors one library's public surface closely enough that switching is one import
(`tinymemory.compat.mem0` for mem0). They sit above the facades and open engines only through
`tinymemory.engines.open_engine`, so any engine serves them.
"""
