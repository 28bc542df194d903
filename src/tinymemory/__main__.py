"""`python -m tinymemory` runs the CLI."""

import sys

from tinymemory.cli import main

sys.exit(main())
