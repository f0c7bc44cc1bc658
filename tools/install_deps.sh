#!/usr/bin/env bash
# Installs what tensorweave needs to build and test, if missing: Debian
# packages with apt-get, Python packages with pip. Safe to run repeatedly.
set -euo pipefail

DEBIAN_PACKAGES=(
  bazel-bootstrap g++ protobuf-compiler libprotobuf-dev libeigen3-dev
  libopenblas-dev libgtest-dev libbenchmark-dev libflatbuffers-dev
  flatbuffers-compiler clang-format libicu-dev libpng-dev libjpeg62-turbo-dev libgif-dev
  openjdk-17-jdk-headless junit4
)
# torch==2.13.0: the CPU build (a wheel on the machine's disk); the converter tests export PyTorch models with it.
# Unpinned, pip would fetch a CUDA build of several GB.
PYTHON_PACKAGES=(numpy ml_dtypes pybind11 protobuf pytest scikit-learn safetensors flatbuffers onnx onnxruntime onnxscript setuptools wheel tensorflow-cpu tensorboard grpcio cryptography torch==2.13.0)

missing=()
for pkg in "${DEBIAN_PACKAGES[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install_deps: apt-get install ${missing[*]} (a minute or two)"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PYTHON="${PYTHON:-python3}"
pip_missing=()
for pkg in "${PYTHON_PACKAGES[@]}"; do
  module="$pkg"
  [ "$pkg" = "scikit-learn" ] && module="sklearn"
  [ "$pkg" = "protobuf" ] && module="google.protobuf"
  [ "$pkg" = "safetensors" ] && module="safetensors.numpy"
  [ "$pkg" = "tensorflow-cpu" ] && module="tensorflow"
  [ "$pkg" = "grpcio" ] && module="grpc"
  [ "$pkg" = "torch==2.13.0" ] && module="torch"
  "$PYTHON" -c "import $module" >/dev/null 2>&1 || pip_missing+=("$pkg")
done
if [ ${#pip_missing[@]} -gt 0 ]; then
  echo "install_deps: pip install ${pip_missing[*]} (about a minute; tensorflow-cpu, the tests' oracle, is the largest)"
  "$PYTHON" -m pip install --progress-bar off "${pip_missing[@]}"
fi
# tf-keras gives the oracle's compat.v1 its tf.layers (Keras 3 has none), at TensorFlow's own minor version;
# --no-deps: its requirement on `tensorflow` would pull the full package beside tensorflow-cpu.
if ! "$PYTHON" -c "import tf_keras" >/dev/null 2>&1; then
  if tf_minor="$("$PYTHON" -c "import tensorflow as t; print('.'.join(t.__version__.split('.')[:2]))" 2>/dev/null)"; then
    echo "install_deps: pip install --no-deps tf-keras==${tf_minor}.*"
    "$PYTHON" -m pip install --progress-bar off --no-deps "tf-keras==${tf_minor}.*"
  else
    echo "install_deps: tensorflow does not import here; the fidelity tests compare against tests/fidelity/reference.json"
  fi
fi
