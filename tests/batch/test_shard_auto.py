"""``--shard auto``: i and N from a Slurm array or a Kubernetes indexed Job, refused elsewhere."""

from __future__ import annotations

import pytest

from invent_core.batch.shards import parse_shard, shard_from_env


def slurm(task: int, low: int, high: int, *, step: int | None = None, count: bool = True):
    env = {
        "SLURM_ARRAY_JOB_ID": "777",
        "SLURM_ARRAY_TASK_ID": str(task),
        "SLURM_ARRAY_TASK_MIN": str(low),
        "SLURM_ARRAY_TASK_MAX": str(high),
    }
    if step is not None:
        env["SLURM_ARRAY_TASK_STEP"] = str(step)
    if count:
        env["SLURM_ARRAY_TASK_COUNT"] = str((high - low) // (step or 1) + 1)
    return env


@pytest.mark.parametrize(("low", "high"), [(0, 3), (1, 4), (10, 13)])
def test_slurm_arrays_give_parts_one_to_n_whatever_they_start_at(low, high):
    got = [parse_shard("auto", slurm(t, low, high)) for t in range(low, high + 1)]
    assert got == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_slurm_count_from_max_and_a_stepped_range():
    assert parse_shard("auto", slurm(3, 1, 4, count=False)) == (3, 4)
    assert [parse_shard("auto", slurm(t, 0, 6, step=2)) for t in (0, 2, 4, 6)] == [
        (1, 4),
        (2, 4),
        (3, 4),
        (4, 4),
    ]
    i, n, where = shard_from_env(slurm(2, 1, 4))
    assert (i, n) == (2, 4) and where == "Slurm array task 2"


def test_a_slurm_list_with_gaps_is_refused():
    env = {**slurm(5, 1, 9), "SLURM_ARRAY_TASK_COUNT": "3"}  # --array=1,5,9
    with pytest.raises(ValueError, match=r"part 5 of 3"):
        parse_shard("auto", env)
    with pytest.raises(ValueError, match=r"not MIN 0 plus a multiple of STEP 2"):
        parse_shard("auto", slurm(3, 0, 6, step=2))


def test_kubernetes_indexed_job_counts_from_zero_with_the_count_the_user_sets():
    assert parse_shard("auto", {"JOB_COMPLETION_INDEX": "0", "INVENT_SHARD_COUNT": "3"}) == (1, 3)
    assert parse_shard("auto", {"JOB_COMPLETION_INDEX": "2", "INVENT_SHARD_COUNT": "3"}) == (3, 3)
    with pytest.raises(ValueError, match=r"JOB_COMPLETION_INDEX is set but INVENT_SHARD_COUNT"):
        parse_shard("auto", {"JOB_COMPLETION_INDEX": "1"})
    with pytest.raises(ValueError, match=r"completion index 3 gives part 4 of 3"):
        parse_shard("auto", {"JOB_COMPLETION_INDEX": "3", "INVENT_SHARD_COUNT": "3"})


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({}, r"not inside an array job; looked for a Slurm array \(SLURM_ARRAY_TASK_ID with "),
        ({"SLURM_JOB_ID": "5"}, r"JOB_COMPLETION_INDEX with INVENT_SHARD_COUNT"),
        ({"SLURM_ARRAY_TASK_ID": "1"}, r"is set but not SLURM_ARRAY_TASK_MIN"),
        ({**slurm(1, 1, 2), "SLURM_ARRAY_TASK_COUNT": "two"}, r"SLURM_ARRAY_TASK_COUNT='two'"),
        (
            {k: v for k, v in slurm(1, 1, 2, count=False).items() if k != "SLURM_ARRAY_TASK_MAX"},
            r"neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX",
        ),
    ],
)
def test_auto_outside_an_array_job_names_what_it_looked_for(env, message):
    with pytest.raises(ValueError, match=message):
        parse_shard("auto", env)


def test_a_written_shard_ignores_the_environment():
    assert parse_shard("2/3", slurm(1, 1, 4)) == (2, 3)
    with pytest.raises(ValueError, match=r"'i/N' \(e.g. 1/4\) or 'auto'"):
        parse_shard("automatic", {})
