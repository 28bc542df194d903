"""The inspector's bulk pages (being built; see docs/inspector.md)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter(include_in_schema=False)
