"""AgentHorizon as a Hub-style ``datasets`` loading script.

For users still on ``datasets`` 3.x, the last versions that run loading
scripts, and for publishing::

    import datasets
    ds = datasets.load_dataset(
        "agenthorizon_loader.py", "AH", data_dir="/path/to/release",
        trust_remote_code=True, split="test",
    )

Tested: ``tests/data/test_loader_script_datasets3.py`` runs this script on
``datasets`` 3.6.0 in its own virtual environment and checks that every row
equals what ``datasets`` 5 gives; 3.5.0, 3.0.2 and 2.21.0 were checked once by
hand. ``datasets`` >= 4 refuses loading scripts: there, use
``agenthorizon.load_dataset``, which drives the same builder (and works on
those 3.x / 2.21 versions too). See docs/data.md, "Loading script for
datasets < 4".

The script needs the ``agenthorizon`` package importable (on ``datasets`` 3.x,
install it with ``pip install --no-deps``, then its other dependencies, so pip
does not upgrade ``datasets``). Configs: ``AH``, ``AH-S``, ``AH-D``, ``all``;
``dev_groups``, ``dev_manifest``, ``exclude_dev`` and ``images`` pass through
as keyword arguments of ``datasets.load_dataset``. Rows are those of
``agenthorizon.load_dataset`` except for ``screenshots``, which holds
``{"bytes": None, "path": ...}`` dicts (no lazy format is set);
``images="eager"`` gives decoded PIL images, and ``ds.set_format("agenthorizon")``
(after ``import agenthorizon.data.formatting``) gives lazily decoded ones.

The builder is defined once, in :mod:`agenthorizon.data.builder`; this file only
exposes it, so the script and the library can never disagree. ``datasets``
finds it here as the module's only ``DatasetBuilder`` subclass.
"""

from __future__ import annotations

from agenthorizon.data.builder import AgentHorizon, AgentHorizonConfig

__all__ = ["AgentHorizon", "AgentHorizonConfig"]
