"""Packages of the ``invent`` distribution; everything else is in pyproject.toml.

``assets/`` (dataset samples, reference runs, demo artefacts) stays at the
repository root, where the dashboard and the scripts read it, and is installed
as ``invent_core/assets`` (``invent_core.env.assets_dir`` finds either place).
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["invent_core*", "invent_ui*"]), "invent_core.assets"],
    package_dir={"invent_core.assets": "assets"},
)
