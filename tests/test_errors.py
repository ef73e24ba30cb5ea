"""``scrub``: every credential out of a message, whatever shape a server echoed it in."""

from __future__ import annotations

import pytest

from invent_core.errors import Cancelled, LLMError, remember_secret, scrub, scrubbed

KEY = "sk-proj-Zq81mXv0aa77LLpp33"


@pytest.mark.parametrize(
    "text",
    [
        f"Authorization: Bearer {KEY}",
        f"{{'authorization': 'Bearer {KEY}'}}",
        f'{{"api_key": "{KEY}"}}',
        f"x-api-key={KEY}",
        f"key {KEY} refused",  # a key-shaped word with no name before it
        f"http://me:{KEY}@host:8000/v1",
        f"http://{KEY}@host/v1",  # a token as the user alone
        f"https://h/v1/chat?key={KEY}",
        f"https://h/v1?api-version=2024&api_key={KEY}&x=1",
        f"https://h/v1?token={KEY}",
        f"https://h/v1?access_token={KEY}",
        f"https://h/v1;sig={KEY}",
        f"https://blob/x?sv=1&X-Amz-Signature={KEY}",
        f"https://h/v1?refresh_token={KEY}#frag",
        f"https://h/v1?client_secret={KEY}",
        f"Basic%20{KEY}",
    ],
)
def test_a_credential_in_any_shape_is_replaced(text):
    out = scrub(text)
    assert KEY not in out and "***" in out


def test_what_is_no_credential_is_kept():
    text = "http://127.0.0.1:8000/v1?api-version=2024-06 returned HTTP 500: model m overloaded"
    assert scrub(text) == text


def test_a_remembered_value_goes_in_every_spelling():
    secret = "pa ss/w+rd-91x"  # no key shape: known only because it was remembered
    remember_secret(secret)
    for form in (secret, "pa%20ss%2Fw%2Brd-91x", "pa+ss%2Fw%2Brd-91x"):
        assert "w+rd" not in scrub(f"refused {form}!") and "w%2B" not in scrub(f"x {form}")


def test_a_short_value_is_not_remembered():
    remember_secret("ab")  # replacing "ab" everywhere would garble words
    assert scrub("about the tab") == "about the tab"


def test_scrubbed_cuts_the_chain_and_keeps_the_class():
    try:
        try:
            raise RuntimeError(f"echo: Bearer {KEY}")
        except RuntimeError as inner:
            raise LLMError(f"gave up: Bearer {KEY}") from inner
    except LLMError as err:
        clean = scrubbed(err)
    assert type(clean) is LLMError and KEY not in str(clean) and KEY not in repr(clean)
    assert clean.__cause__ is None and clean.__context__ is None
    other = scrubbed(ValueError(f"bad header Bearer {KEY}"))  # not ours: an LLMError naming it
    assert isinstance(other, LLMError) and str(other).startswith("ValueError: ")
    assert KEY not in str(other)
    cancelled = Cancelled("stopped")
    assert scrubbed(cancelled) is cancelled  # nothing to change: the same object
