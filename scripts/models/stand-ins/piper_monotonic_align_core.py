"""
Stand-in for rhasspy/piper's Cython extension vits/monotonic_align/core (built with Cython in piper's own
setup; Debian's python3 has no Cython toolchain set up here). Only the training alignment calls it; build.sh
copies this file to vits/monotonic_align/monotonic_align/core.py in its work copy. See README.md.
"""


def maximum_path_c(*args, **kwargs):
    raise NotImplementedError("monotonic_align stand-in: the alignment search is only used in training")
