"""ProgressTracker (counts, elapsed, time left, CLI lines) and CancelToken."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import pytest

from invent_core.errors import Cancelled, InventError
from invent_core.progress import CancelToken, ProgressTracker, format_seconds
from invent_core.progress import Progress as Event


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@dataclass
class OtherEvent:  # another producer's event class: only the three fields matter
    stage: str
    done: int
    total: int
    eta_seconds: float | None = None


def test_counts_per_stage_and_order():
    clock = FakeClock()
    t = ProgressTracker(clock=clock)
    assert t.current is None
    t(Event("perturb", 0, 9))
    clock.t += 1
    t(Event("perturb", 9, 9))
    t(OtherEvent("generate", 3, 50))
    stages = t.snapshot()
    assert [s.stage for s in stages] == ["perturb", "generate"]
    assert stages[0].finished and stages[0].fraction == 1.0 and stages[0].time_left == 0.0
    assert t.current.stage == "generate" and (t.current.done, t.current.total) == (3, 50)
    assert t.elapsed == pytest.approx(1.0)


def test_time_left_is_none_until_a_rate_exists():
    clock = FakeClock()
    t = ProgressTracker(clock=clock)
    t(Event("generate", 0, 10))
    assert t.current.time_left is None
    clock.t += 5
    assert t.current.time_left is None  # time passed but nothing finished: no rate
    t(Event("generate", 2, 10))  # 2 items in 5 s -> 2.5 s each, 8 left
    assert t.current.time_left == pytest.approx(20.0)


def test_items_done_before_the_first_event_give_no_rate():
    # cache hits: the first event already says 40/50; they took no time
    clock = FakeClock()
    t = ProgressTracker(clock=clock)
    t(Event("generate", 40, 50))
    clock.t += 0.001
    assert t.current.time_left is None
    clock.t += 1.999
    t(Event("generate", 41, 50))  # one item in 2 s, 9 left
    assert t.current.time_left == pytest.approx(18.0)


def test_time_left_does_not_grow_while_the_counter_is_stalled():
    """The time left does not grow while a counter stalls ("≈ 7 min 47 s left" grew on a 70 s run)."""
    clock = FakeClock()
    t = ProgressTracker(clock=clock)
    t(Event("generate", 0, 10))
    clock.t += 1
    t(Event("generate", 5, 10))  # 0.2 s per item: 1 s left
    seen = [t.current.time_left]
    for _ in range(4):  # nothing moves (a blocking stage)
        clock.t += 0.2
        seen.append(t.current.time_left)
    assert seen[0] == pytest.approx(1.0)
    assert all(b < a for a, b in zip(seen, seen[1:]) if b is not None)  # counts down
    clock.t += 30
    assert t.current.time_left is None  # overdue: unknown, never an ever-larger guess
    assert "left" not in t.render_line() and "elapsed" in t.render_line()
    t(Event("generate", 6, 10))  # it moves again: a rate from all the time spent
    assert t.current.time_left == pytest.approx(4 * 31.8 / 6)  # 6 items in 31.8 s


def test_unknown_total_has_counts_but_no_time_left():
    clock = FakeClock()
    t = ProgressTracker(clock=clock)
    t(Event("score", 0, 0))
    clock.t += 1
    t(Event("score", 3, 0))
    cur = t.current
    assert cur.time_left is None and cur.fraction is None and not cur.finished
    assert t.render_line().startswith("score 3 ·")


def test_a_stage_counting_again_restarts_its_clock():
    clock = FakeClock()
    t = ProgressTracker(clock=clock)
    t(Event("generate", 0, 4))
    clock.t += 4
    t(Event("generate", 4, 4))  # question 1 done
    clock.t += 100  # scoring, a slow judge …
    t(Event("generate", 0, 4))  # question 2
    clock.t += 1
    t(Event("generate", 1, 4))
    assert t.current.elapsed == pytest.approx(1.0)
    assert t.current.time_left == pytest.approx(3.0)


def test_render_line_shows_stage_counts_elapsed_and_time_left():
    clock = FakeClock()
    t = ProgressTracker(clock=clock)
    assert t.render_line() == "starting · 0 s elapsed"
    t(Event("generate", 0, 50))
    clock.t += 12
    t(Event("generate", 23, 50))
    assert t.render_line() == "generate 23/50 · 12 s elapsed · ≈ 14 s left"
    t(Event("generate", 50, 50))
    assert t.render_line().endswith("· done")


def test_poll_line_at_most_every_interval_or_on_stage_change():
    clock = FakeClock()
    t = ProgressTracker(clock=clock, render_interval=2.0)
    t(Event("perturb", 0, 9))
    assert t.poll_line() is not None  # first line at once
    clock.t += 0.5
    t(Event("perturb", 1, 9))
    assert t.poll_line() is None  # too soon
    clock.t += 1.6
    t(Event("perturb", 2, 9))
    assert t.poll_line().startswith("perturb 2/9")  # 2.1 s since the last line
    clock.t += 0.1
    t(Event("generate", 0, 50))
    assert t.poll_line().startswith("generate 0/50")  # a new stage is always shown
    clock.t += 0.1
    t(Event("generate", 50, 50))
    assert t.poll_line().endswith("done")  # so is the end of a stage
    assert t.poll_line() is None  # … once


def test_tracker_is_thread_safe():
    t = ProgressTracker()
    n_threads, per_thread = 4, 500

    def feed(k: int) -> None:
        for i in range(per_thread):
            t(Event(f"s{k}", i + 1, per_thread))
            t.snapshot()
            t.render_line()

    threads = [threading.Thread(target=feed, args=(k,)) for k in range(n_threads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    snap = t.snapshot()
    assert len(snap) == n_threads and all(s.done == per_thread for s in snap)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0 s"), (8.4, "8 s"), (59.6, "1 min 00 s"), (125, "2 min 05 s"), (3780, "1 h 03 min")],
)
def test_format_seconds(seconds, text):
    assert format_seconds(seconds) == text


def test_cancel_token_raises_cancelled_with_what_was_kept():
    token = CancelToken()
    token.raise_if_cancelled(3, 50)  # not cancelled: nothing happens
    assert not token.cancelled
    token.cancel()
    token.cancel()  # idempotent
    assert token.cancelled
    with pytest.raises(Cancelled, match=r"cancelled after 23 of 50; the 23 finished are kept"):
        token.raise_if_cancelled(23, 50)
    with pytest.raises(Cancelled, match="work finished before is kept"):
        token.raise_if_cancelled()
    assert issubclass(Cancelled, InventError)  # the shells print it without a traceback


def test_cancel_from_another_thread_stops_a_producer_between_requests():
    token = CancelToken()
    started = threading.Event()
    finished: list[int] = []

    def producer() -> None:
        try:
            for i in range(10_000):
                token.raise_if_cancelled(len(finished), 10_000)
                finished.append(i)
                started.set()
                threading.Event().wait(0.001)
        except Cancelled:
            pass

    th = threading.Thread(target=producer)
    th.start()
    assert started.wait(5)
    token.cancel()
    th.join(5)
    assert not th.is_alive()
    assert 0 < len(finished) < 10_000  # stopped early, kept what it had


def test_the_estimate_range_counts_down_and_never_grows():
    """Before a rate is measured the CLI says the estimate's range, less the time spent."""
    from invent_core.commands.common import estimate_left

    said = [estimate_left((10.0, 40.0), t) for t in (0, 5, 10, 25, 39, 41)]
    assert said[:2] == ["10–40 s left (estimate)", "5–35 s left (estimate)"]
    assert said[2:5] == [
        "at most 30 s left (estimate)",
        "at most 15 s left (estimate)",
        "at most 1 s left (estimate)",
    ]
    assert said[5] is None  # past the range: only the elapsed time is shown
    assert estimate_left(20.0, 5) == "≈ 15 s left (estimate)" and estimate_left(None, 1) is None


def test_a_job_shows_the_estimated_range_beside_elapsed():
    from invent_ui.jobs.feedback import expected_text

    assert expected_text((14.0, 61.0), 5) == " · expected 14 s – 1 min 01 s"
    assert expected_text((20.0, 22.0), 5) == " · expected ≈ 22 s"
    assert expected_text((14.0, 40.0), 45).endswith("taking longer than estimated")
    assert expected_text(None, 5) == ""


def test_ordinals_read_as_a_person_says_them():
    from invent_core.progress import ordinal

    said = [ordinal(k) for k in (0, 1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 43, 101, 111, 112, 1013)]
    assert said == ["0th", "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd",
                    "23rd", "43rd", "101st", "111th", "112th", "1013th"]  # fmt: skip
