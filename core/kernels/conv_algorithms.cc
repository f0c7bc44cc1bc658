// The choice among the convolution algorithms (conv_algorithms.h), in one
// place: ChooseConvAlgorithm says which one runs and why; FastConv2D* run
// it.
#include "core/kernels/conv_algorithms.h"

#include <algorithm>
#include <atomic>

#include "core/kernels/conv_simd.h"
#include "core/platform/thread_pool.h"

namespace tensorweave {

const char* ConvAlgorithmName(ConvAlgorithm algorithm) {
  switch (algorithm) {
    case ConvAlgorithm::kAuto:
      return "auto";
    case ConvAlgorithm::kDirect:
      return "direct";
    case ConvAlgorithm::kIm2col:
      return "im2col";
    case ConvAlgorithm::kWinograd:
      return "winograd";
  }
  return "unknown";
}

const char* ConvPassName(ConvPass pass) {
  switch (pass) {
    case ConvPass::kForward:
      return "forward";
    case ConvPass::kBackpropInput:
      return "backprop_input";
    case ConvPass::kBackpropFilter:
      return "backprop_filter";
  }
  return "unknown";
}

// --- parallel helpers --------------------------------------------------------

int NumParts(ThreadPool* pool, int64_t n) {
  const int64_t threads = pool == nullptr ? 1 : pool->num_threads() + 1;
  return static_cast<int>(std::max<int64_t>(1, std::min(threads, n)));
}

void ParallelForParts(
    ThreadPool* pool, int64_t n,
    const std::function<void(int part, int64_t begin, int64_t end)>& fn) {
  const int parts = NumParts(pool, n);
  auto run = [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      fn(static_cast<int>(p), n * p / parts, n * (p + 1) / parts);
    }
  };
  if (parts == 1) {
    run(0, 1);
  } else {
    pool->ParallelFor(parts, 1, run);
  }
}

// --- the choice --------------------------------------------------------------

ConvAlgorithm ChooseConvAlgorithm(const Conv2DArgs& args, ConvPass pass,
                                  int element_size, ConvAlgorithm requested) {
  // The input gradient runs the direct algorithm as a forward convolution
  // of out_backprop (out_depth channels in) with the flipped filter; the
  // filter gradient expands the input as the forward pass does.
  const bool backprop_input = pass == ConvPass::kBackpropInput;
  switch (requested) {
    case ConvAlgorithm::kIm2col:
      return ConvAlgorithm::kIm2col;
    case ConvAlgorithm::kDirect:
      // Asked for (tests): wherever it can run, im2col elsewhere.
      return DirectFeasible(args, backprop_input, element_size)
                 ? ConvAlgorithm::kDirect
                 : ConvAlgorithm::kIm2col;
    case ConvAlgorithm::kWinograd:
      return WinogradFeasible(args) ? ConvAlgorithm::kWinograd
                                    : ConvAlgorithm::kIm2col;
    case ConvAlgorithm::kAuto:
      break;
  }
  // kWinograd where its GEMMs are long enough to pay for the transforms
  // (16+ channels each way) and the 4x4 output tiles are mostly inside the
  // output (a 2x2 output would compute 16 values for 4). Float only: in
  // double, im2col's exactness is worth more than the speed. Measured on
  // the CIFAR CNN (benchmarks/train_step.py): all three passes of its
  // 64->128 and 128->256 layers run 2-3x faster than im2col.
  const Window2D& w = args.w;
  const int64_t tiled = ((w.out_rows + 3) / 4 * 4) * ((w.out_cols + 3) / 4 * 4);
  if (element_size == 4 && WinogradFeasible(args) && w.in_depth >= 16 &&
      args.out_depth >= 16 && 2 * w.out_rows * w.out_cols >= tiled) {
    return ConvAlgorithm::kWinograd;
  }
  // kDirect wins where im2col would copy each input value KH*KW times in
  // runs of one to four values (1-4 channels into the pass) and the direct
  // algorithm can run (stride 1, bounded buffers). Measured on the LeNet
  // layers (benchmarks/nn_kernels.py): from LeNet's conv2 on (6 channels
  // in), expanding the input costs more than im2col + GEMM.
  const int64_t channels_in = backprop_input ? args.out_depth : args.w.in_depth;
  if (channels_in <= 4 && DirectFeasible(args, backprop_input, element_size)) {
    return ConvAlgorithm::kDirect;
  }
  // kIm2col everywhere else: strided or dilated-and-padded geometries, and
  // enough channels that the patch copies are long runs and BLAS does the
  // work.
  return ConvAlgorithm::kIm2col;
}

// Whether all n values are finite (split over the pool). Winograd's
// transforms mix a tile's inputs: a NaN or Inf input spreads to its whole 4x4
// output tile (Inf - Inf), where a direct convolution (and TensorFlow) puts
// it only in the outputs that read it. Such results are recomputed by
// im2col: the check costs one pass over the output.
template <typename T>
bool AllFinite(ThreadPool* pool, const T* values, int64_t n) {
  using S = conv_internal::Simd<T>;
  std::atomic<bool> finite{true};
  ParallelForParts(pool, n, [&](int, int64_t begin, int64_t end) {
    typename S::Vec acc = {};
    int64_t i = begin;
    for (; i + S::kLanes <= end; i += S::kLanes) {
      const typename S::Vec v = S::Load(values + i);
      acc += v - v;  // 0, or NaN for an Inf or a NaN
    }
    T tail = 0;
    for (; i < end; ++i) tail += values[i] - values[i];
    for (int lane = 0; lane < S::kLanes; ++lane) tail += acc[lane];
    if (tail != tail) finite.store(false, std::memory_order_relaxed);
  });
  return finite.load();
}

template <typename T>
void FastConv2D(ThreadPool* pool, const Conv2DArgs& a, const T* input,
                const T* filter, T* output, ConvAlgorithm algorithm) {
  switch (ChooseConvAlgorithm(a, ConvPass::kForward, sizeof(T), algorithm)) {
    case ConvAlgorithm::kDirect:
      DirectConv2D(pool, a, input, filter, output);
      return;
    case ConvAlgorithm::kWinograd:
      WinogradConv2D(pool, a, input, filter, output);
      if (AllFinite(pool, output,
                    a.w.batch * a.w.out_rows * a.w.out_cols * a.out_depth)) {
        return;
      }
      break;  // recomputed below
    default:
      break;
  }
  Im2colConv2D(pool, a, input, filter, output);
}

template <typename T>
void FastConv2DBackpropInput(ThreadPool* pool, const Conv2DArgs& a,
                             const T* filter, const T* out_backprop,
                             T* in_backprop, ConvAlgorithm algorithm) {
  switch (
      ChooseConvAlgorithm(a, ConvPass::kBackpropInput, sizeof(T), algorithm)) {
    case ConvAlgorithm::kDirect:
      DirectBackpropInput(pool, a, filter, out_backprop, in_backprop);
      return;
    case ConvAlgorithm::kWinograd:
      WinogradBackpropInput(pool, a, filter, out_backprop, in_backprop);
      if (AllFinite(pool, in_backprop,
                    a.w.batch * a.w.in_rows * a.w.in_cols * a.w.in_depth)) {
        return;
      }
      break;  // recomputed below
    default:
      break;
  }
  Im2colBackpropInput(pool, a, filter, out_backprop, in_backprop);
}

template <typename T>
void FastConv2DBackpropFilter(ThreadPool* pool, const Conv2DArgs& a,
                              const T* input, const T* out_backprop,
                              T* filter_backprop, ConvAlgorithm algorithm) {
  switch (
      ChooseConvAlgorithm(a, ConvPass::kBackpropFilter, sizeof(T), algorithm)) {
    case ConvAlgorithm::kDirect:
      DirectBackpropFilter(pool, a, input, out_backprop, filter_backprop);
      return;
    case ConvAlgorithm::kWinograd:
      WinogradBackpropFilter(pool, a, input, out_backprop, filter_backprop);
      if (AllFinite(
              pool, filter_backprop,
              a.w.window_rows * a.w.window_cols * a.w.in_depth * a.out_depth)) {
        return;
      }
      break;  // recomputed below
    default:
      break;
  }
  Im2colBackpropFilter(pool, a, input, out_backprop, filter_backprop);
}

#define TW_INSTANTIATE(T)                                                     \
  template bool AllFinite<T>(ThreadPool*, const T*, int64_t);                 \
  template void FastConv2D<T>(ThreadPool*, const Conv2DArgs&, const T*,       \
                              const T*, T*, ConvAlgorithm);                   \
  template void FastConv2DBackpropInput<T>(                                   \
      ThreadPool*, const Conv2DArgs&, const T*, const T*, T*, ConvAlgorithm); \
  template void FastConv2DBackpropFilter<T>(                                  \
      ThreadPool*, const Conv2DArgs&, const T*, const T*, T*, ConvAlgorithm);
TW_INSTANTIATE(float)
TW_INSTANTIATE(double)
#undef TW_INSTANTIATE

}  // namespace tensorweave
