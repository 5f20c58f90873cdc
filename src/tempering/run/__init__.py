"""The driver: chains, chunks, progress, ArviZ output."""
