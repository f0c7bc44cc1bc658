// Geometry of 2-D windowed ops (convolutions, pooling) in NHWC, as
// TensorFlow defines it: output sizes and padding for SAME, VALID and (for
// convolutions) EXPLICIT, shared by the shape functions and the kernels so
// that both agree.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_WINDOW_GEOMETRY_H_
#define TENSORWEAVE_CORE_FRAMEWORK_WINDOW_GEOMETRY_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/framework/status.h"

namespace tensorweave {

// Output size and padding before the first element along one spatial dim.
// in < 0 (unknown) gives out = -1.
inline Status WindowedOutputSize(int64_t in, int64_t window, int64_t stride,
                                 int64_t dilation, const std::string& padding,
                                 int64_t* out, int64_t* pad_before) {
  if (window <= 0 || stride <= 0 || dilation <= 0) {
    return errors::InvalidArgument("window ", window, ", stride ", stride,
                                   " and dilation ", dilation,
                                   " must be positive");
  }
  *pad_before = 0;
  if (in < 0) {
    *out = -1;
    return Status::OK();
  }
  // Each step is checked or rearranged not to overflow: windows, strides and
  // dilations come from attrs and input values (2^62 is a valid int).
  int64_t effective;  // (window - 1) * dilation + 1
  if (__builtin_mul_overflow(window - 1, dilation, &effective) ||
      __builtin_add_overflow(effective, 1, &effective)) {
    return errors::InvalidArgument("window ", window, " with dilation ",
                                   dilation, " is too large");
  }
  if (padding == "VALID") {
    if (in < effective) {
      return errors::InvalidArgument("input size ", in,
                                     " is smaller than the window ", effective,
                                     " (VALID padding)");
    }
    *out = (in - effective) / stride + 1;
  } else if (padding == "SAME") {
    *out = in / stride + (in % stride != 0 ? 1 : 0);
    // (out - 1) * stride <= in: no overflow, and the sum is at most effective.
    const int64_t total =
        std::max<int64_t>(((*out - 1) * stride - in) + effective, 0);
    *pad_before = total / 2;
  } else {
    return errors::InvalidArgument("padding must be SAME or VALID, got '",
                                   padding, "'");
  }
  return Status::OK();
}

// The geometry of one NHWC windowed op with a 2-D window.
struct Window2D {
  int64_t batch = 0, in_rows = 0, in_cols = 0, in_depth = 0;
  int64_t window_rows = 0, window_cols = 0;
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t dilation_rows = 1, dilation_cols = 1;
  int64_t out_rows = 0, out_cols = 0;
  int64_t pad_rows = 0, pad_cols = 0;  // padding before the first row/col

  // SAME or VALID; or EXPLICIT with `explicit_paddings` (checked by
  // CheckExplicitPaddings): the window runs VALID over the input padded by
  // [before, after] on each spatial dim.
  Status Compute(const std::string& padding,
                 const std::vector<int64_t>& explicit_paddings = {}) {
    if (padding != "EXPLICIT") {
      TW_RETURN_IF_ERROR(WindowedOutputSize(in_rows, window_rows, stride_rows,
                                            dilation_rows, padding, &out_rows,
                                            &pad_rows));
      return WindowedOutputSize(in_cols, window_cols, stride_cols,
                                dilation_cols, padding, &out_cols, &pad_cols);
    }
    if (explicit_paddings.size() != 8) {
      return errors::InvalidArgument(
          "explicit_paddings attribute must contain 8 values, but got: ",
          explicit_paddings.size());
    }
    auto padded = [](int64_t in, int64_t before, int64_t after, int64_t window,
                     int64_t stride, int64_t dilation, int64_t* out,
                     int64_t* pad) {
      *pad = before;
      int64_t unused;
      // Pads are at most 2^31 (CheckExplicitPaddings): no overflow.
      return WindowedOutputSize(in < 0 ? in : in + before + after, window,
                                stride, dilation, "VALID", out, &unused);
    };
    TW_RETURN_IF_ERROR(padded(in_rows, explicit_paddings[2],
                              explicit_paddings[3], window_rows, stride_rows,
                              dilation_rows, &out_rows, &pad_rows));
    return padded(in_cols, explicit_paddings[4], explicit_paddings[5],
                  window_cols, stride_cols, dilation_cols, &out_cols,
                  &pad_cols);
  }
};

// The window of an NHWC op over input rows x cols with a window_rows x
// window_cols window and NHWC strides and dilations ([1, h, w, 1]; checked
// by the caller); Compute fills the output sizes and padding.
inline Window2D MakeWindow2D(int64_t in_rows, int64_t in_cols,
                             int64_t window_rows, int64_t window_cols,
                             const std::vector<int64_t>& strides,
                             const std::vector<int64_t>& dilations) {
  Window2D w;
  w.in_rows = in_rows;
  w.in_cols = in_cols;
  w.window_rows = window_rows;
  w.window_cols = window_cols;
  w.stride_rows = strides[1];
  w.stride_cols = strides[2];
  w.dilation_rows = dilations[1];
  w.dilation_cols = dilations[2];
  return w;
}

// A convolution's explicit_paddings attr against its padding, as
// TensorFlow checks it: empty unless padding is EXPLICIT; then 8 values
// ([before, after] for N, H, W, C), non-negative, zero on N and C.
inline Status CheckExplicitPaddings(
    const std::string& padding, const std::vector<int64_t>& explicit_paddings) {
  if (padding != "EXPLICIT") {
    if (!explicit_paddings.empty()) {
      return errors::InvalidArgument(
          "explicit_paddings attribute must be empty if the padding attribute "
          "is not EXPLICIT");
    }
    return Status::OK();
  }
  if (explicit_paddings.size() != 8) {
    return errors::InvalidArgument(
        "explicit_paddings attribute must contain 8 values, but got: ",
        explicit_paddings.size());
  }
  for (int64_t pad : explicit_paddings) {
    if (pad < 0) {
      return errors::InvalidArgument(
          "All elements of explicit_paddings must be nonnegative, got ", pad);
    }
    if (pad > (int64_t{1} << 31)) {
      return errors::InvalidArgument("explicit padding ", pad, " is too large");
    }
  }
  if (explicit_paddings[0] != 0 || explicit_paddings[1] != 0 ||
      explicit_paddings[6] != 0 || explicit_paddings[7] != 0) {
    return errors::InvalidArgument(
        "Nonzero explicit padding in the batch or depth dimensions is not "
        "supported");
  }
  return Status::OK();
}

// Calls fn(oy, ox, ky, kx, iy, ix) for every output position of one image
// and every filter tap whose input position (iy, ix) lies inside the input.
template <typename Fn>
void ForEachImageTap(const Window2D& w, Fn fn) {
  for (int64_t oy = 0; oy < w.out_rows; ++oy) {
    for (int64_t ox = 0; ox < w.out_cols; ++ox) {
      for (int64_t ky = 0; ky < w.window_rows; ++ky) {
        const int64_t iy =
            oy * w.stride_rows + ky * w.dilation_rows - w.pad_rows;
        if (iy < 0 || iy >= w.in_rows) continue;
        for (int64_t kx = 0; kx < w.window_cols; ++kx) {
          const int64_t ix =
              ox * w.stride_cols + kx * w.dilation_cols - w.pad_cols;
          if (ix < 0 || ix >= w.in_cols) continue;
          fn(oy, ox, ky, kx, iy, ix);
        }
      }
    }
  }
}

// Checks a 4-element NHWC strides/dilations/ksize attr whose batch and depth
// entries must be 1.
inline Status CheckNhwcAttr(const std::vector<int64_t>& values,
                            const char* what) {
  if (values.size() != 4) {
    return errors::InvalidArgument(what, " must have 4 elements, got ",
                                   values.size());
  }
  if (values[0] != 1 || values[3] != 1) {
    return errors::InvalidArgument(
        what, " in the batch and depth dimensions must be 1 (NHWC), got [",
        values[0], ",", values[1], ",", values[2], ",", values[3], "]");
  }
  for (int64_t v : values) {
    if (v <= 0) {
      return errors::InvalidArgument(what, " must be positive, got ", v);
    }
  }
  return Status::OK();
}

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_WINDOW_GEOMETRY_H_
