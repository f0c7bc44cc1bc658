// CONV_2D's optimized paths, by name: which one a node runs is chosen once,
// in prepare, by ChooseConv2DPath (conv_2d.cc says why each one wins), and
// can be observed (tests) or logged (TWL_LITE_LOG_CONV_PATHS=1 prints each
// node's path to stderr when it is prepared). TWL_LITE_CONV_WINOGRAD=0 turns
// kWinograd off (the geometry then runs the path it would without it).
#ifndef TENSORWEAVE_LITE_RUNTIME_KERNELS_CONV_2D_H_
#define TENSORWEAVE_LITE_RUNTIME_KERNELS_CONV_2D_H_

namespace twl {

enum class Conv2DPath {
  kReference,         // the plain loops (InterpreterOptions::use_reference)
  kPointwise,         // 1x1, stride 1, no padding: GEMM on the input itself
  kIm2col,            // patches into scratch, then pixels x Cout GEMM
  kTransposedIm2col,  // Cout < 16: Cout x pixels GEMM on packed patches
  kDirectRows,        // Cout < 16, one input channel, stride_w 1
  kInPlaceRows,       // Cout a multiple of 16, Cin < 16: input read in place
  kWinograd,          // 3x3 stride 1, many channels: F(4x4, 3x3) tiles
};

const char* Conv2DPathName(Conv2DPath path);

// Geometry of one CONV_2D: input [batch, in_h, in_w, in_c], filter OHWI
// [out_c, k_h, k_w, in_c], output [batch, out_h, out_w, out_c].
struct Conv2DGeometry {
  int batch, in_h, in_w, in_c, out_h, out_w, out_c, k_h, k_w;
  int stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
};

// The path a CONV_2D of this geometry runs (kReference when asked for).
Conv2DPath ChooseConv2DPath(const Conv2DGeometry& g, bool use_reference);

// Called by every CONV_2D prepare with the node's index in the execution
// plan and its path; null (the default) calls nothing. Process-wide: set it
// while no interpreter is preparing (tests).
typedef void (*Conv2DPathObserver)(int node_index, Conv2DPath path);
void SetConv2DPathObserver(Conv2DPathObserver observer);

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_KERNELS_CONV_2D_H_
