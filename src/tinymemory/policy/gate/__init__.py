"""The shared-write gate."""
