"""Retrieval building blocks shared by every engine: text analysis, embedders, fusion, time, answers."""
