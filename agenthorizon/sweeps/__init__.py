"""Sweeps: a grid of judge runs (judge x config x ablation x shard) from one TOML file, on the schedulers people have.

Stage 6, above ``judging`` and ``report``: it calls the judge command per
cell and :func:`agenthorizon.report.leaderboard.leaderboard` to collect, and
holds all scheduler knowledge of the package. Modules: ``sweep_file`` (the
TOML file), ``grid`` (the cells), ``release_items`` (the configs' items),
``manifest`` (the shard manifest), ``server`` (a cell's model server),
``cell_run`` (one cell), ``state`` (the submissions), ``status``,
``collect``, ``slurm``, ``kubernetes``.
"""
