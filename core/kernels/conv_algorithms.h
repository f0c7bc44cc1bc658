// The convolution algorithms behind FastConv2D* (conv_ops.h), one file each:
//   conv_im2col.cc  kIm2col: any geometry; patches + one BLAS GEMM per image.
//   conv_direct.cc  kDirect: stride 1, few channels; SIMD over output rows.
//   conv_winograd.cc  kWinograd: 3x3 stride 1, many channels; F(4x4, 3x3).
// conv_algorithms.cc chooses among them (ChooseConvAlgorithm); the plain
// loops that define the ops are in conv_reference.cc.
#ifndef TENSORWEAVE_CORE_KERNELS_CONV_ALGORITHMS_H_
#define TENSORWEAVE_CORE_KERNELS_CONV_ALGORITHMS_H_

#include "core/kernels/conv_ops.h"
#include "core/platform/thread_pool.h"

namespace tensorweave {

// Whether all n values are finite (split over the pool): the check on
// Winograd's results (conv_algorithms.cc).
template <typename T>
bool AllFinite(ThreadPool* pool, const T* values, int64_t n);

// kIm2col (conv_im2col.cc): runs any args.
template <typename T>
void Im2colConv2D(ThreadPool* pool, const Conv2DArgs& args, const T* input,
                  const T* filter, T* output);
template <typename T>
void Im2colBackpropInput(ThreadPool* pool, const Conv2DArgs& args,
                         const T* filter, const T* out_backprop,
                         T* in_backprop);
template <typename T>
void Im2colBackpropFilter(ThreadPool* pool, const Conv2DArgs& args,
                          const T* input, const T* out_backprop,
                          T* filter_backprop);

// kDirect (conv_direct.cc): only where DirectFeasible(args, pass is the
// input gradient, sizeof(T)) holds: stride 1, and the expanded image of one
// channel plane set within 1 MiB (the backprop filter uses the forward
// geometry).
bool DirectFeasible(const Conv2DArgs& args, bool backprop_input,
                    int element_size);
template <typename T>
void DirectConv2D(ThreadPool* pool, const Conv2DArgs& args, const T* input,
                  const T* filter, T* output);
template <typename T>
void DirectBackpropInput(ThreadPool* pool, const Conv2DArgs& args,
                         const T* filter, const T* out_backprop,
                         T* in_backprop);
template <typename T>
void DirectBackpropFilter(ThreadPool* pool, const Conv2DArgs& args,
                          const T* input, const T* out_backprop,
                          T* filter_backprop);

// act(conv + bias) (activation 0 none, 1 Relu, 2 Relu6: _FusedConv2D's) by
// the direct algorithm's stores, in float; false where it has no such
// kernel (the caller then convolves and adds the bias itself).
bool DirectConv2DBiasActivation(ThreadPool* pool, const Conv2DArgs& a,
                                const float* input, const float* filter,
                                const float* bias, int activation,
                                float* output);

// kWinograd (conv_winograd.cc): only where WinogradFeasible(args) holds: a
// 3x3 window, stride 1, no dilation (any padding). Exact in
// real arithmetic; in float its rounding errors are a few times im2col's.
bool WinogradFeasible(const Conv2DArgs& args);
template <typename T>
void WinogradConv2D(ThreadPool* pool, const Conv2DArgs& args, const T* input,
                    const T* filter, T* output);
// act(conv + bias) (activation 0 none, 1 Relu, 2 Relu6: _FusedConv2D's),
// applied to each output tile as it is stored; false if the output is not
// all finite (a NaN or Inf input spreads over Winograd's whole tiles: the
// caller recomputes by im2col, as FastConv2D* do).
template <typename T>
bool WinogradConv2DBiasActivation(ThreadPool* pool, const Conv2DArgs& args,
                                  const T* input, const T* filter,
                                  const T* bias, int activation, T* output);
template <typename T>
void WinogradBackpropInput(ThreadPool* pool, const Conv2DArgs& args,
                           const T* filter, const T* out_backprop,
                           T* in_backprop);
template <typename T>
void WinogradBackpropFilter(ThreadPool* pool, const Conv2DArgs& args,
                            const T* input, const T* out_backprop,
                            T* filter_backprop);

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_CONV_ALGORITHMS_H_
