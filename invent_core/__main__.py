"""``python -m invent_core``: the command line (see ``invent_core.cli``)."""

from __future__ import annotations

import sys

from .cli import main

sys.exit(main())
