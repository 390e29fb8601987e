"""Stage 1, the release on disk: label files, partitions, rendering, files, the Hub.

Nothing here imports a later stage.
"""
