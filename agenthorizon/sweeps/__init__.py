"""Sweeps: a grid of judge runs (judge x config x ablation x shard) from one TOML file, on Slurm, Kubernetes or a shell loop.

All scheduler knowledge of the package lives here (docs/architecture.md has the module map).
"""
