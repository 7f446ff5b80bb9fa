"""C sources of the optional compiled core, the one extension ``_core`` (built by ``pip
install`` when a C compiler is there; every routine has a pure-Python twin that gives
the same answers).  ``module.c`` lists the parts, one C file per algorithm; ``core.h``
holds the shared vocabulary object.

Layer 0: imports nothing from the package.
"""
