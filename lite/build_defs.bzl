"""Build options shared by the lite runtime's targets."""

load("//tools:build_defs.bzl", "tw_cc_library", "tw_cc_test")

# The runtime embeds in apps that build without exceptions or RTTI.
LITE_COPTS = [
    "-fno-exceptions",
    "-fno-rtti",
]

def lite_cc_library(name, copts = [], **kwargs):
    tw_cc_library(name = name, copts = LITE_COPTS + copts, **kwargs)

def lite_cc_test(name, size = "small", **kwargs):
    """A gtest test of the lite runtime (tests themselves may use RTTI)."""
    tw_cc_test(name = name, size = size, **kwargs)
