"""Build options shared by the lite runtime's targets."""

load("//tools:build_defs.bzl", "tw_cc_library", "tw_cc_test")

# The runtime embeds in apps that build without exceptions or RTTI.
# GCC's -O2 vectorizes only loops whose trip count is a known multiple of
# the vector width ("very cheap" cost model); kernels rely on the compiler
# vectorizing loops over runtime lengths, so use the dynamic cost model (no
# effect at -O0).
#
# No asynchronous unwind tables (.eh_frame, about 6% of the library): no
# exception crosses the runtime (it throws and catches none, and none may
# cross its C API), and nothing in it unwinds (no backtrace(), no thread
# cancellation); -g builds still carry .debug_frame for debuggers. An
# exception from the standard library inside it (std::bad_alloc of a
# container) terminates there, rather than leaving the runtime
# half-updated in an app that catches it beyond the C API.
LITE_COPTS = [
    "-fno-exceptions",
    "-fno-rtti",
    "-fvect-cost-model=dynamic",
    "-fno-asynchronous-unwind-tables",
]

def lite_cc_library(name, copts = [], **kwargs):
    tw_cc_library(name = name, copts = LITE_COPTS + copts, **kwargs)

def lite_cc_test(name, size = "small", **kwargs):
    """A gtest test of the lite runtime (tests themselves may use RTTI)."""
    tw_cc_test(name = name, size = size, **kwargs)
