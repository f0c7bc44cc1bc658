#!/bin/sh
# run_with_isa.sh ISA TEST: runs TEST with the vector kernels capped at ISA
# (see lite/runtime/vector.h).
TWL_LITE_MAX_ISA="$1" exec "$2"
