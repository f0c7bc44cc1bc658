// The choice among the convolution algorithms (conv_algorithms.h), in one
// place: ChooseConvAlgorithm says which one runs and why; FastConv2D* run
// it.
#include "core/kernels/conv_algorithms.h"

#include <algorithm>

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

template <typename T>
void FastConv2D(ThreadPool* pool, const Conv2DArgs& a, const T* input,
                const T* filter, T* output, ConvAlgorithm algorithm) {
  switch (ChooseConvAlgorithm(a, ConvPass::kForward, sizeof(T), algorithm)) {
    case ConvAlgorithm::kDirect:
      DirectConv2D(pool, a, input, filter, output);
      return;
    case ConvAlgorithm::kWinograd:
      WinogradConv2D(pool, a, input, filter, output);
      return;
    default:
      Im2colConv2D(pool, a, input, filter, output);
      return;
  }
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
      return;
    default:
      Im2colBackpropInput(pool, a, filter, out_backprop, in_backprop);
      return;
  }
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
      return;
    default:
      Im2colBackpropFilter(pool, a, input, out_backprop, filter_backprop);
      return;
  }
}

#define TW_INSTANTIATE(T)                                                     \
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
