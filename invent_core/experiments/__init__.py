"""Reproducing the paper's tables: ``evaluate`` (AUROC, PRR, Brier) and ``tsu`` over the same responses."""
