"""Shared leaves every stage may import: machine facts, optional extras, progress bars, printable text, byte sizes."""
