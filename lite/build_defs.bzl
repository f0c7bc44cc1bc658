"""Build options shared by the lite runtime's targets."""

load("//tools:build_defs.bzl", "tw_cc_library", "tw_cc_test")

# The runtime embeds in apps that build without exceptions or RTTI.
# GCC's -O2 vectorizes only loops whose trip count is a known multiple of
# the vector width ("very cheap" cost model); kernels rely on the compiler
# vectorizing loops over runtime lengths, so use the dynamic cost model (no
# effect at -O0).
LITE_COPTS = [
    "-fno-exceptions",
    "-fno-rtti",
    "-fvect-cost-model=dynamic",
]

def lite_cc_library(name, copts = [], **kwargs):
    tw_cc_library(name = name, copts = LITE_COPTS + copts, **kwargs)

def lite_cc_test(name, size = "small", **kwargs):
    """A gtest test of the lite runtime (tests themselves may use RTTI)."""
    tw_cc_test(name = name, size = size, **kwargs)
