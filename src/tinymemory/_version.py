"""The package version, in a leaf module every layer may import (the package face re-exports it)."""

__version__ = "0.1.0"
