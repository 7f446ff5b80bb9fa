"""The package version (the lowest module: the table cache keys its entries with it)."""

__version__ = "0.1.0"
