"""Paths carried inside data are confined to the dashboard's folders exactly as a link's names are.

A payload opened by a link or from the history brings its own ``folder``; the
relabel form reads and writes there. ``places.confined`` accepts it only below a
root once symbolic links are followed; anything else (``..``, an absolute path
elsewhere, a symbolic link out, a folder under no root) is refused, and the
relabels then go to the dashboard's cache folder for that evaluation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from invent_ui.render import relabel_view
from invent_ui.session import places


@pytest.fixture
def roots(tmp_path, monkeypatch) -> dict[str, Path]:
    made = {"results": tmp_path / "results", "dashboard": tmp_path / "dashboard"}
    for folder in made.values():
        folder.mkdir()
    monkeypatch.setattr(places, "roots", lambda: dict(made))
    return made


def _evaluation(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "scores.csv").write_text("id,question\n1,q\n", encoding="utf-8")
    return folder


def test_a_folder_under_a_root_is_accepted(roots):
    inside = _evaluation(roots["dashboard"] / "eval" / "a")
    assert places.confined(str(inside)) == inside.resolve()
    assert places.confined(roots["results"]) == roots["results"].resolve()


def test_paths_out_of_every_root_are_refused(roots, tmp_path):
    elsewhere = _evaluation(tmp_path / "elsewhere")
    link = roots["dashboard"] / "link"
    link.symlink_to(elsewhere, target_is_directory=True)
    for path in (
        str(elsewhere),  # an absolute path under no root
        f"{roots['dashboard']}/../elsewhere",  # climbs out
        str(link),  # inside by name, outside once the link is followed
        "/etc",
        "",
    ):
        with pytest.raises(places.PlaceError):
            places.confined(path)


def _payload(folder: str) -> dict:
    return {"folder": folder, "config": {"x": 1}, "llm": "m", "rows": [{"id": "1"}]}


def test_the_relabel_layer_never_follows_a_payload_out_of_the_roots(roots, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setattr(
        relabel_view.resources, "work_dir", lambda *p: cache.joinpath(*p)
    )  # where an evaluation without a usable folder keeps its relabels
    elsewhere = _evaluation(tmp_path / "elsewhere")
    link = roots["dashboard"] / "link"
    link.symlink_to(elsewhere, target_is_directory=True)
    inside = _evaluation(roots["dashboard"] / "eval" / "a")
    assert relabel_view.layer_folder(_payload(str(inside))) == inside.resolve()
    for hostile in (str(elsewhere), str(link), f"{inside}/../../../elsewhere", "/etc", 7):
        got = relabel_view.layer_folder(_payload(hostile))
        assert got.is_relative_to(cache), (hostile, got)
        assert relabel_view.evaluation_folder(_payload(hostile)) is None


def test_a_payload_file_carrying_a_foreign_folder_gets_no_link_to_it(roots, tmp_path):
    """The shareable link of a shown evaluation names its folder only inside a root."""
    elsewhere = _evaluation(tmp_path / "elsewhere")
    payload = json.loads(json.dumps(_payload(str(elsewhere))))
    assert relabel_view.evaluation_folder(payload) is None
    inside = _evaluation(roots["results"] / "evaluate-x")
    assert places.name_of(relabel_view.evaluation_folder(_payload(str(inside)))) == (
        "results/evaluate-x"
    )
