"""The dashboard's server field takes several URLs: the same identity as the backend it builds."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from loopback_server import LoopbackServer  # noqa: E402

from invent_core.llm import get_llm  # noqa: E402
from invent_ui.session.resources import chosen_llm_identity  # noqa: E402
from invent_ui.session.settings import Settings  # noqa: E402


def test_the_sidebar_identity_of_several_urls_is_the_backends():
    with LoopbackServer(delay=0.0, model="m") as a, LoopbackServer(delay=0.0, model="m") as b:
        settings = Settings.from_dict(
            {"llm": "openai", "base_url": f"{b.base_url}, {a.base_url}/", "model": "m"}
        )
        built = get_llm("openai", base_url=settings.llm_choice.base_url, model="m", cache=None)
        assert built.base_urls == (b.base_url, a.base_url)
        assert chosen_llm_identity(settings) == built.identity  # the sidebar asks no server
        assert built.identity == f"{','.join(sorted([a.base_url, b.base_url]))}|model=m"
    one = Settings.from_dict({"llm": "openai", "base_url": "http://h:1/v1", "model": "m"})
    assert chosen_llm_identity(one) == "http://h:1/v1|model=m"  # one URL: as before
