#!/bin/bash
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
lite/tools/write_test_models "$dir"
for model in mlp lenet; do
  lite/tools/benchmark_model --graph="$dir/$model.twl" --num_threads=2 \
      --runs=20 --warmup=2 | tee "$dir/out"
  grep -q "median" "$dir/out"
  lite/tools/benchmark_model --graph="$dir/$model.twl" --batch=3 --runs=5 \
      --warmup=1 --reference > /dev/null
done
lite/tools/benchmark_model --graph="$dir/lenet.twl" --runs=5 --warmup=1 \
    --profile | tee "$dir/out"
grep -q "op profile" "$dir/out"
grep -Eq "^  CONV_2D +2 +[0-9.]+ +[0-9.]+%" "$dir/out"
grep -q "slowest nodes" "$dir/out"
lite/c/classify "$dir/lenet.twl" | tee "$dir/out"
grep -q "output 'logits': top class" "$dir/out"
if lite/c/classify "$dir/missing.twl" 2> "$dir/err"; then
  echo "classify: expected failure on a missing model"; exit 1
fi
grep -q "cannot open model" "$dir/err"
if lite/tools/benchmark_model --graph="$dir/missing.twl" 2> "$dir/err"; then
  echo "expected failure on a missing model"; exit 1
fi
grep -q "cannot open model" "$dir/err"
