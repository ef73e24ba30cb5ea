"""The PNG figures of RESULTS.md (Pillow: no plotting library is a dependency).

Each is 900 × 420 pixels with a [0, 1] y axis; a function returns False when
there is nothing to draw (and writes no file).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from .paper import PAPER_TABLE1
from .text import metric_cell

W, H, PAD = 900, 420, 60
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939", "#843c39"]  # fmt: skip


def _canvas(title: str):
    img = Image.new("RGB", (W, H), "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=13)
    draw.text((PAD, 15), title, fill="black", font=font)
    draw.line([(PAD, H - PAD), (W - 20, H - PAD)], fill="black")
    draw.line([(PAD, 40), (PAD, H - PAD)], fill="black")
    for k in range(6):  # y grid 0 … 1
        y = _y(k / 5)
        draw.line([(PAD - 4, y), (W - 20, y)], fill="#dddddd")
        draw.text((10, y - 7), f"{k / 5:.1f}", fill="black", font=font)
    return img, draw, font


def _y(value: float) -> float:
    return H - PAD - max(0.0, min(1.0, value)) * (H - PAD - 40)


def plot_auroc(path: Path, res: dict[str, Any], paper: str | None) -> bool:
    """Bars: AUROC per method with ±std; black ticks: the paper's AUROC. False if nothing to draw."""
    methods = [m for m in res.get("results", {}) if metric_cell(res, m, "auroc")[0] is not None]
    if not methods:
        return False
    img, draw, font = _canvas(f"AUROC per method (bars ± std; black tick: paper, {paper or '–'})")
    step = (W - PAD - 40) / len(methods)
    for i, m in enumerate(methods):
        mean, std = metric_cell(res, m, "auroc")
        x0 = PAD + 10 + i * step
        draw.rectangle([x0, _y(mean), x0 + step * 0.6, _y(0)], fill=COLOURS[i % len(COLOURS)])
        xc = x0 + step * 0.3
        draw.line([(xc, _y(mean - std)), (xc, _y(mean + std))], fill="black", width=2)
        ref = PAPER_TABLE1["auroc"].get(m, {}).get(paper) if paper else None
        if ref:
            draw.line(
                [(x0 - 3, _y(ref[0])), (x0 + step * 0.6 + 3, _y(ref[0]))], fill="black", width=3
            )
        label = res.get("labels", {}).get(m, m)[:11]
        draw.text((x0, H - PAD + 6 + (i % 2) * 14), label, fill="black", font=font)
    draw.line([(PAD, _y(0.5)), (W - 20, _y(0.5))], fill="#888888")  # chance
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path)
    return True


def plot_difficulty(path: Path, rows: list[dict[str, Any]], methods: list[str], labels) -> bool:
    """Lines: each method's mean uncertainty by difficulty, scaled to [0, 1]; dashed-ish: accuracy."""
    if len(rows) < 2:
        return False
    img, draw, font = _canvas(
        "Mean uncertainty by difficulty (each method scaled to [0, 1]; grey: accuracy)"
    )
    xs = [PAD + 30 + i * (W - PAD - 80) / (len(rows) - 1) for i in range(len(rows))]
    for x, r in zip(xs, rows, strict=True):
        draw.text((x - 4, H - PAD + 6), str(r["difficulty"]), fill="black", font=font)
    series = [("accuracy", [r["accuracy"] for r in rows], "#999999")]
    for i, m in enumerate(methods):
        vals = [r.get(m) for r in rows]
        if any(v is None for v in vals):
            continue
        lo, hi = min(vals), max(vals)
        scaled = [(v - lo) / (hi - lo) if hi > lo else 0.5 for v in vals]
        series.append((labels.get(m, m), scaled, COLOURS[i % len(COLOURS)]))
    for k, (name, vals, colour) in enumerate(series):
        draw.line(list(zip(xs, map(_y, vals), strict=True)), fill=colour, width=3 if k == 0 else 2)
        draw.text((W - 170, 45 + 14 * k), name[:22], fill=colour, font=font)
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path)
    return True
