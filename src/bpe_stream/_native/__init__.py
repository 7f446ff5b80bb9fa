"""C sources of the optional compiled core (built by ``pip install`` when a C compiler is
there; every routine has a pure-Python twin that gives the same answers).

Layer 0: imports nothing from the package.
"""
