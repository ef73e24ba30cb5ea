"""Questions: the shipped dataset samples, the one schema of a question file, the arithmetic testbed."""
