"""Stage 1, the release on disk: label files, partitions, rendering, files, the Hub.

Pure logic (:mod:`.labels`, :mod:`.splits`, :mod:`.render`) does no I/O; the
file and Hub access, the integrity check and the synthetic sample corpus sit
beside it. Nothing here imports a later stage.
"""
