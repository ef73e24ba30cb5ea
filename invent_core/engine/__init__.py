"""One question end to end (the pipeline), the adaptive budget, and several questions in flight in input order."""
