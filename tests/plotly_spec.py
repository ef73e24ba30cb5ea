"""Read arrays back from the plotly JSON the dashboard sends to the browser (tests only)."""

from __future__ import annotations

from typing import Any

import numpy as np


def array_from_spec(value: Any) -> np.ndarray:
    """An array read back from a figure's JSON (plotly writes numpy arrays as
    ``{"dtype", "bdata", "shape"}``, base64; plain lists stay lists)."""
    import base64

    if isinstance(value, dict) and "bdata" in value:
        arr = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if shape:
            arr = arr.reshape([int(s) for s in str(shape).split(",")])
        return arr
    return np.asarray(value)
