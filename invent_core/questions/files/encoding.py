"""The bytes of a question file: binary refused, the encoding chosen, every byte decoded.

:func:`sniff_bytes` names the encoding from the first bytes (a byte-order mark,
else UTF-8) and refuses binary files by their magic bytes or a NUL byte;
:func:`scan_lines` decodes the whole file in 1 MiB chunks, counting lines, and
turns the first undecodable byte into a :class:`BatchInputError` with its byte
offset, line, row and column (found by re-reading that line as Latin-1).
"""

from __future__ import annotations

import codecs
import csv
from pathlib import Path
from typing import IO, Any

from ...errors import BatchInputError
from .. import schema as qs

__all__ = ["scan_lines", "sniff_bytes"]

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive (an Excel .xlsx workbook is one: save it as CSV UTF-8)"),
    (b"\xd0\xcf\x11\xe0", "an old Office file (.xls/.doc: save it as CSV UTF-8)"),
    (b"\x1f\x8b", "a gzip archive (decompress it first)"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"PAR1", "a Parquet file (convert it to CSV or JSON Lines)"),
)
#: Longest first: the UTF-32-LE BOM starts with the UTF-16-LE one.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def sniff_bytes(path: Path, head: bytes, encoding: str | None) -> str:
    """The encoding (a BOM's, or UTF-8), or a BatchInputError for binary files."""
    if encoding is not None:
        try:
            text_codec = codecs.lookup(encoding)._is_text_encoding
        except LookupError:
            text_codec = False
        if not text_codec:  # "rot13", "base64": codecs, but not text encodings
            raise BatchInputError(f"unknown text encoding {encoding!r}", file=path)
        if head.startswith(codecs.BOM_UTF8) and codecs.lookup(encoding).name == "utf-8":
            return "utf-8-sig"  # Excel's "CSV UTF-8": the BOM is not part of the first header
        return encoding
    for bom, name in _BOMS:
        if head.startswith(bom):
            return name
    for magic, what in _MAGIC:
        if head.startswith(magic):
            raise BatchInputError(f"this is {what}, not a CSV or JSON Lines text file", file=path)
    nul = head.find(b"\x00")
    if nul >= 0:
        # ASCII text in UTF-16 has a NUL in every other byte.
        odd = head[1::2].count(0) > 0.4 * len(head) / 2 or head[0::2].count(0) > 0.4 * len(head) / 2
        what = (
            "UTF-16 text without a byte-order mark: save it as UTF-8 (or UTF-16 with BOM)"
            if odd
            else "a binary file, not a CSV or JSON Lines text file"
        )
        raise BatchInputError(f"looks like {what} (NUL byte at offset {nul})", file=path, byte=nul)
    return "utf-8"


def _not_utf8(value: Any) -> bool:
    """Whether a Latin-1-decoded value holds bytes that are not valid UTF-8."""
    try:
        str(value).encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return True
    return False


def _bad_jsonl_cell(f: IO[str], line: int) -> tuple[int | None, str | None]:
    row = 0
    for i, text in enumerate(f, start=1):
        row += bool(text.strip())
        if i == line:
            try:
                obj = qs.parse_json(text)
            except ValueError:
                return row, None
            if isinstance(obj, dict):
                return row, next(
                    (str(k) for k, v in obj.items() if _not_utf8(k) or _not_utf8(v)), None
                )
            return row, None
    return None, None


def _bad_csv_cell(f: IO[str], line: int, delimiter: str) -> tuple[int | None, str | None]:
    reader = csv.reader(f, delimiter=delimiter)
    header: list[str] | None = None
    for i, fields in enumerate(reader):
        header = fields if header is None else header
        if reader.line_num >= line:
            col = next((j for j, v in enumerate(fields) if _not_utf8(v)), None)
            name = None
            if col is not None:
                name = header[col] if col < len(header) else f"#{col + 1}"
            return (i if i > 0 else None), name
    return None, None


def _locate_bad_byte(
    path: Path, line: int, fmt: str, delimiter: str
) -> tuple[int | None, str | None]:
    """Row and column that hold an undecodable byte on line ``line``.

    The file is re-read as Latin-1, where every byte is one character, so the
    CSV structure (ASCII) is the same as in the intended encoding; the first
    field whose Latin-1 text is not valid UTF-8 is the column.
    """
    try:
        with open(path, encoding="latin-1", newline="") as f:
            if fmt == "jsonl":
                return _bad_jsonl_cell(f, line)
            return _bad_csv_cell(f, line, delimiter)
    except (csv.Error, OSError):
        return None, None


def _decode_error(
    path: Path,
    err: UnicodeDecodeError,
    bad: int,
    line: int,
    encoding: str,
    fmt: str,
    delimiter: str,
) -> BatchInputError:
    row, column = _locate_bad_byte(path, line, fmt, delimiter)
    name = {"utf-8-sig": "UTF-8"}.get(encoding, encoding.upper())
    got = err.object[err.start : err.start + 4].hex(" ")
    hint = (
        "save the file as UTF-8, or pass encoding='latin-1' (--encoding latin-1) "
        "if it is Latin-1/Windows-1252"
        if encoding in ("utf-8", "utf-8-sig")
        else "check the --encoding"
    )
    return BatchInputError(
        f"not valid {name} text (bytes {got}: {err.reason}); {hint}",
        file=path,
        row=row,
        line=line,
        byte=bad,
        column=column,
    )


def _codec_error(path: Path, err: UnicodeError, encoding: str) -> BatchInputError:
    """The codec's refusal of the whole stream, with the file and the option that chose the codec."""
    return BatchInputError(
        f"cannot be read as {encoding.upper()} ({err}); check the --encoding, or leave it out "
        "to read UTF-8 or the byte-order mark's encoding",
        file=path,
    )


def scan_lines(path: Path, encoding: str, fmt: str, delimiter: str) -> int:
    """Count lines while checking that the whole file decodes; never holds it whole."""
    dec = codecs.getincrementaldecoder(encoding)(errors="strict")
    lines = offset = 0
    last = ""
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            final = not chunk
            pending = len(dec.getstate()[0])
            try:
                text = dec.decode(chunk, final=final)
            except UnicodeDecodeError as err:
                bad = offset - pending + err.start  # the decoder's data = pending bytes + chunk
                line = lines + 1 + chunk[: max(0, bad - offset)].count(b"\n")
                raise _decode_error(path, err, bad, line, encoding, fmt, delimiter) from None
            except UnicodeError as err:  # not a byte: the codec refuses the stream (UTF-16, no BOM)
                raise _codec_error(path, err, encoding) from None
            if final:
                break
            lines += text.count("\n")
            last = text[-1] if text else last
            offset += len(chunk)
    return lines + (1 if last not in ("\n", "") else 0)
