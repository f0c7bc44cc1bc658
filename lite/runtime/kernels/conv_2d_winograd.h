// CONV_2D's Winograd path (Conv2DPath::kWinograd): F(4x4, 3x3) for 3x3,
// stride-1, undilated convolutions with many channels. conv_2d.cc chooses
// it and plans its memory; this file holds the transforms and the tiles'
// loop. Internal to the builtin kernels.
#ifndef TENSORWEAVE_LITE_RUNTIME_KERNELS_CONV_2D_WINOGRAD_H_
#define TENSORWEAVE_LITE_RUNTIME_KERNELS_CONV_2D_WINOGRAD_H_

#include <cstddef>
#include <cstdint>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/conv_2d.h"

namespace twl {

class ThreadPool;

// Floats of the transformed, packed filter: 36 matrices Cin x Cout, each
// packed for the GEMM (PackGemmB).
int64_t WinogradFilterFloats(int in_c, int out_c);

// Transforms the OHWI filter [out_c, 3, 3, in_c] into U_e = (G g G^T)_e,
// e < 36, each packed with PackGemmB into packed + e * PackedGemmBSize(out_c,
// in_c). `tmp` holds 36 * in_c * out_c floats.
void WinogradTransformFilter(const float* filter, int in_c, int out_c,
                             float* tmp, float* packed);

// Tiles per block (a block's transformed inputs and products, 36 x tiles x
// (in_c + out_c) floats, stay in the caches while its 36 GEMMs run).
int WinogradBlockTiles(const Conv2DGeometry& g);

// Floats of scratch one task needs (its block's buffers).
int64_t WinogradTaskScratchFloats(const Conv2DGeometry& g);

// The convolution: `packed` from WinogradTransformFilter, bias (null: none)
// and the fused activation applied as each output tile is stored. `scratch`
// holds max_tasks * WinogradTaskScratchFloats(g) floats; pool may not be
// null.
void WinogradConv2D(const Conv2DGeometry& g, const float* in,
                    const float* packed, const float* bias,
                    ActivationFunctionType act, ThreadPool* pool, int max_tasks,
                    float* scratch, float* out);

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_KERNELS_CONV_2D_WINOGRAD_H_
