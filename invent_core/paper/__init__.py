"""The paper's mathematics: the dual random walk, the Inv measures, scoring with the bootstrap.

Pure numpy; imports no registry, adapter or model library.
"""
