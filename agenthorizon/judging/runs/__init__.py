"""Runs: the resumable concurrent runner and the records it writes."""
