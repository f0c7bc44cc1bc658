// GPU Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter (NHWC input,
// HWIO filter, SAME/VALID, strides, dilations: the CPU kernels' attrs and
// checks, through ConvOpBase and MakeConv2DArgs of core/kernels/conv_ops.h).
//
// Two paths:
//  - cuDNN 9 (legacy API, loaded at run time, cudnn_api.h) for float32 when
//    the padding is symmetric (cuDNN pads both sides alike; SAME with an odd
//    total padding is not): descriptors and the algorithm (Get*_v7
//    heuristics, limited to kCudnnWorkspaceLimit, FMA math: no TF32) are
//    chosen once per input shape and cached in the kernel. The filter is
//    transposed HWIO <-> OHWI (cuDNN's NHWC filter layout) by a small kernel.
//  - im2col + cuBLAS GEMM (col2im for the input gradient) for the rest:
//    float64, asymmetric padding, cuDNN missing (the reason is printed once
//    to stderr) or disabled with TW_GPU_DISABLE_CUDNN=1 (read when the
//    kernel is constructed).
// Every buffer comes from ctx->allocate_temp; work runs on the device's
// stream only (capturable).
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/gpu/cudnn_api.h"
#include "core/gpu/gpu_device.h"
#include "core/gpu/gpu_kernel_util.h"
#include "core/gpu/kernels/gpu_gemm.h"
#include "core/kernels/conv_ops.h"

namespace tensorweave {
namespace gpu {
namespace {

constexpr size_t kCudnnWorkspaceLimit = size_t{1} << 30;   // 1 GiB
constexpr int64_t kIm2colBytesLimit = int64_t{256} << 20;  // per chunk

struct ConvGeom {
  int64_t batch, in_rows, in_cols, in_depth, out_rows, out_cols, out_depth;
  int64_t window_rows, window_cols, stride_rows, stride_cols;
  int64_t dilation_rows, dilation_cols, pad_rows, pad_cols;
};

ConvGeom ToGeom(const Conv2DArgs& a) {
  const Window2D& w = a.w;
  return {w.batch,         w.in_rows,     w.in_cols,     w.in_depth,
          w.out_rows,      w.out_cols,    a.out_depth,   w.window_rows,
          w.window_cols,   w.stride_rows, w.stride_cols, w.dilation_rows,
          w.dilation_cols, w.pad_rows,    w.pad_cols};
}

// col[p, (ky, kx, c)] for the output pixels p of images [n0, n0 + images).
template <typename T>
__global__ void Im2colKernel(ConvGeom g, const T* in, int64_t n0, T* col,
                             int64_t total) {
  const int64_t k = g.window_rows * g.window_cols * g.in_depth;
  TW_GPU_LOOP(i, total) {
    const int64_t kk = i % k;
    const int64_t p = i / k;
    const int64_t c = kk % g.in_depth;
    const int64_t kx = (kk / g.in_depth) % g.window_cols;
    const int64_t ky = kk / (g.in_depth * g.window_cols);
    const int64_t ox = p % g.out_cols;
    const int64_t oy = (p / g.out_cols) % g.out_rows;
    const int64_t n = n0 + p / (g.out_cols * g.out_rows);
    const int64_t y = oy * g.stride_rows - g.pad_rows + ky * g.dilation_rows;
    const int64_t x = ox * g.stride_cols - g.pad_cols + kx * g.dilation_cols;
    col[i] = (y >= 0 && y < g.in_rows && x >= 0 && x < g.in_cols)
                 ? in[((n * g.in_rows + y) * g.in_cols + x) * g.in_depth + c]
                 : T(0);
  }
}

// in_backprop of images [n0, n0 + images) from dcol (the col layout):
// each input element gathers the taps that read it (no atomics).
template <typename T>
__global__ void Col2imKernel(ConvGeom g, const T* dcol, int64_t n0, T* din,
                             int64_t total) {
  const int64_t k = g.window_rows * g.window_cols * g.in_depth;
  TW_GPU_LOOP(i, total) {
    const int64_t c = i % g.in_depth;
    const int64_t x = (i / g.in_depth) % g.in_cols;
    const int64_t y = (i / (g.in_depth * g.in_cols)) % g.in_rows;
    const int64_t n = i / (g.in_depth * g.in_cols * g.in_rows);  // in chunk
    T sum = T(0);
    for (int64_t ky = 0; ky < g.window_rows; ++ky) {
      const int64_t ty = y + g.pad_rows - ky * g.dilation_rows;
      if (ty < 0 || ty % g.stride_rows != 0) continue;
      const int64_t oy = ty / g.stride_rows;
      if (oy >= g.out_rows) continue;
      for (int64_t kx = 0; kx < g.window_cols; ++kx) {
        const int64_t tx = x + g.pad_cols - kx * g.dilation_cols;
        if (tx < 0 || tx % g.stride_cols != 0) continue;
        const int64_t ox = tx / g.stride_cols;
        if (ox >= g.out_cols) continue;
        const int64_t p = (n * g.out_rows + oy) * g.out_cols + ox;
        sum += dcol[p * k + (ky * g.window_cols + kx) * g.in_depth + c];
      }
    }
    din[i] = sum;
  }
  (void)n0;
}

// HWIO [r, s, c, m] -> OHWI [m, r, s, c] (to_ohwi) or back.
template <typename T>
__global__ void FilterTransposeKernel(const T* src, T* dst, int64_t rsc,
                                      int64_t m, bool to_ohwi, int64_t total) {
  TW_GPU_LOOP(i, total) {
    // i indexes HWIO: i = j * m + o, j in [0, rsc).
    const int64_t o = i % m;
    const int64_t j = i / m;
    if (to_ohwi) {
      dst[o * rsc + j] = src[i];
    } else {
      dst[i] = src[o * rsc + j];
    }
  }
}

// Held around every use of the shared per-device cuDNN handle (kernels may
// run Compute on several executor threads; a handle is not thread-safe).
std::mutex& CudnnCallMutex() {
  static std::mutex* mu = new std::mutex();
  return *mu;
}

enum class Pass { kForward, kBackpropInput, kBackpropFilter };

// One shape's cuDNN setup.
struct CudnnPlan {
  bool usable = false;  // else the im2col path
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  int algo = 0;
  size_t workspace = 0;
};

Status ZeroFill(GpuDevice* device, Tensor* t) {
  if (t->num_elements() == 0) return Status::OK();
  return CudaStatus(
      cudaMemsetAsync(t->raw_data(), 0, t->num_bytes(), device->stream()),
      "cudaMemsetAsync");
}

template <Pass kPass>
class ConvGpuOp : public ConvOpBase {
 public:
  explicit ConvGpuOp(OpKernelConstruction* ctx) : ConvOpBase(ctx) {
    if (!ctx->status().ok()) return;
    if (CudnnDisabledByEnv()) return;
    const CudnnApi* api;
    Status s = GetCudnn(&api);
    if (s.ok()) {
      s = GetCudnnHandle(GetGpuDevice(ctx)->ordinal(), &handle_);
    }
    if (!s.ok()) {
      static std::once_flag warned;
      std::call_once(warned, [&] {
        std::fprintf(stderr,
                     "tensorweave: GPU convolutions use the im2col + cuBLAS "
                     "fallback: %s\n",
                     s.ToString().c_str());
      });
      return;
    }
    api_ = api;
  }

  // Compute only enqueues work: run it inline (ConvOpBase says expensive,
  // which would hand it to the inter-op pool).
  bool IsExpensive() const override { return false; }

  ~ConvGpuOp() override {
    if (api_ == nullptr) return;
    for (auto& [key, plan] : plans_) {
      if (plan.x) api_->DestroyTensorDescriptor(plan.x);
      if (plan.y) api_->DestroyTensorDescriptor(plan.y);
      if (plan.w) api_->DestroyFilterDescriptor(plan.w);
      if (plan.conv) api_->DestroyConvolutionDescriptor(plan.conv);
    }
  }

  void Compute(OpKernelContext* ctx) override {
    Conv2DArgs args;
    TensorShape input_shape, filter_shape, out_shape;
    if constexpr (kPass == Pass::kForward) {
      input_shape = ctx->input(0).shape();
      filter_shape = ctx->input(1).shape();
      OP_REQUIRES_OK(
          ctx, MakeConv2DArgs(input_shape, filter_shape, strides_, dilations_,
                              padding_, explicit_paddings_, false, &args,
                              &out_shape));
    } else {
      constexpr bool kInput = kPass == Pass::kBackpropInput;
      TensorShape result_shape;
      OP_REQUIRES_OK(ctx,
                     ShapeFromSizes(ctx->input(kInput ? 0 : 1),
                                    kInput ? "input_sizes" : "filter_sizes",
                                    &result_shape));
      input_shape = kInput ? result_shape : ctx->input(0).shape();
      filter_shape = kInput ? ctx->input(1).shape() : result_shape;
      OP_REQUIRES_OK(
          ctx, MakeConv2DArgs(input_shape, filter_shape, strides_, dilations_,
                              padding_, explicit_paddings_, false, &args,
                              &out_shape));
      OP_REQUIRES_OK(ctx, CheckOutBackprop(ctx->input(2), out_shape));
    }
    const TensorShape& result_shape =
        kPass == Pass::kForward
            ? out_shape
            : (kPass == Pass::kBackpropInput ? input_shape : filter_shape);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, result_shape, &out));
    if (out->num_elements() == 0) return;
    GpuDevice* device = GetGpuDevice(ctx);
    // Nothing to sum: zeros (as the CPU kernels).
    if (out_shape.num_elements() == 0 || filter_shape.num_elements() == 0 ||
        input_shape.num_elements() == 0) {
      OP_REQUIRES_OK(ctx, ZeroFill(device, out));
      return;
    }
    const DataType dtype = ctx->input(kPass == Pass::kForward ? 0 : 2).dtype();
    if (dtype == DT_FLOAT && api_ != nullptr) {
      const CudnnPlan* plan;
      OP_REQUIRES_OK(ctx, PlanFor(ctx, args, input_shape, &plan));
      if (plan->usable) {
        OP_REQUIRES_OK(ctx, RunCudnn(ctx, args, *plan, out));
        return;
      }
    }
    if (dtype != DT_FLOAT || api_ == nullptr) {
      // (No plan was made: say which path serves the kernel, once.)
      std::call_once(said_im2col_, [&] {
        if (const char* v = std::getenv("TW_GPU_CONV_VERBOSE");
            v && *v == '1') {
          std::fprintf(stderr,
                       "tensorweave: %s %s input %s: im2col+cuBLAS (%s)\n",
                       name().c_str(), type_string().c_str(),
                       input_shape.ToString().c_str(),
                       dtype != DT_FLOAT ? "not float32"
                                         : "cuDNN disabled or not loaded");
        }
      });
    }
    OP_REQUIRES_OK(ctx, DispatchType<TW_FLOAT_TYPES>(dtype, [&](auto t) {
                     using T = decltype(t);
                     return RunIm2col<T>(ctx, args, out);
                   }));
  }

 private:
  std::once_flag said_im2col_;
  // The cached cuDNN setup for this input shape (made on first sight).
  Status PlanFor(OpKernelContext* ctx, const Conv2DArgs& args,
                 const TensorShape& input_shape, const CudnnPlan** out) {
    const ConvGeom g = ToGeom(args);
    std::vector<int64_t> key = input_shape.dims();
    key.push_back(args.out_depth);
    key.push_back(g.window_rows);
    key.push_back(g.window_cols);
    std::lock_guard<std::mutex> lock(mu_);
    auto it = plans_.find(key);
    if (it != plans_.end()) {
      *out = &it->second;
      return Status::OK();
    }
    CudnnPlan& plan = plans_[key];
    *out = &plan;
    Status s = MakePlan(ctx, args, &plan);
    if (!s.ok()) {
      // cuDNN refused this shape (or a sub-library failed to load): the
      // im2col path serves it, and the reason is said once.
      plan.usable = false;
      static std::once_flag warned;
      std::call_once(warned, [&] {
        std::fprintf(stderr,
                     "tensorweave: a GPU convolution falls back to im2col + "
                     "cuBLAS: %s\n",
                     s.ToString().c_str());
      });
    }
    if (const char* v = std::getenv("TW_GPU_CONV_VERBOSE"); v && *v == '1') {
      std::fprintf(
          stderr,
          "tensorweave: %s %s input %s: %s (algo %d, workspace %zu "
          "bytes)\n",
          name().c_str(), type_string().c_str(), input_shape.ToString().c_str(),
          plan.usable ? "cuDNN" : "im2col+cuBLAS", plan.algo, plan.workspace);
    }
    return Status::OK();
  }

  // Descriptors and algorithm of one shape into *plan (usable when cuDNN
  // can run it).
  Status MakePlan(OpKernelContext* ctx, const Conv2DArgs& args,
                  CudnnPlan* plan_out) {
    const ConvGeom g = ToGeom(args);
    CudnnPlan& plan = *plan_out;
    // cuDNN pads symmetrically: usable only when its output size with
    // pad_before on both sides is the one wanted.
    auto fits = [](int64_t in, int64_t window, int64_t dilation, int64_t stride,
                   int64_t pad, int64_t want) {
      const int64_t eff = (window - 1) * dilation + 1;
      return in + 2 * pad >= eff && (in + 2 * pad - eff) / stride + 1 == want;
    };
    if (!fits(g.in_rows, g.window_rows, g.dilation_rows, g.stride_rows,
              g.pad_rows, g.out_rows) ||
        !fits(g.in_cols, g.window_cols, g.dilation_cols, g.stride_cols,
              g.pad_cols, g.out_cols)) {
      return Status::OK();  // im2col
    }
    for (int64_t v :
         {g.batch, g.in_rows, g.in_cols, g.in_depth, g.out_rows, g.out_cols,
          g.out_depth, g.pad_rows, g.pad_cols, g.stride_rows, g.stride_cols,
          g.dilation_rows, g.dilation_cols}) {
      if (v > INT32_MAX) return Status::OK();
    }
    if (g.batch * g.in_rows * g.in_cols * g.in_depth > INT32_MAX ||
        g.batch * g.out_rows * g.out_cols * g.out_depth > INT32_MAX) {
      return Status::OK();
    }
    const CudnnApi* a = api_;
    auto i32 = [](int64_t v) { return static_cast<int>(v); };
    TW_RETURN_IF_ERROR(CudnnCheck(a->CreateTensorDescriptor(&plan.x),
                                  "cudnnCreateTensorDescriptor"));
    TW_RETURN_IF_ERROR(CudnnCheck(a->CreateTensorDescriptor(&plan.y),
                                  "cudnnCreateTensorDescriptor"));
    TW_RETURN_IF_ERROR(CudnnCheck(a->CreateFilterDescriptor(&plan.w),
                                  "cudnnCreateFilterDescriptor"));
    TW_RETURN_IF_ERROR(CudnnCheck(a->CreateConvolutionDescriptor(&plan.conv),
                                  "cudnnCreateConvolutionDescriptor"));
    TW_RETURN_IF_ERROR(CudnnCheck(
        a->SetTensor4dDescriptor(plan.x, kCudnnTensorNhwc, kCudnnDataFloat,
                                 i32(g.batch), i32(g.in_depth), i32(g.in_rows),
                                 i32(g.in_cols)),
        "cudnnSetTensor4dDescriptor(x)"));
    TW_RETURN_IF_ERROR(CudnnCheck(
        a->SetTensor4dDescriptor(plan.y, kCudnnTensorNhwc, kCudnnDataFloat,
                                 i32(g.batch), i32(g.out_depth),
                                 i32(g.out_rows), i32(g.out_cols)),
        "cudnnSetTensor4dDescriptor(y)"));
    TW_RETURN_IF_ERROR(CudnnCheck(
        a->SetFilter4dDescriptor(plan.w, kCudnnDataFloat, kCudnnTensorNhwc,
                                 i32(g.out_depth), i32(g.in_depth),
                                 i32(g.window_rows), i32(g.window_cols)),
        "cudnnSetFilter4dDescriptor"));
    TW_RETURN_IF_ERROR(CudnnCheck(
        a->SetConvolution2dDescriptor(
            plan.conv, i32(g.pad_rows), i32(g.pad_cols), i32(g.stride_rows),
            i32(g.stride_cols), i32(g.dilation_rows), i32(g.dilation_cols),
            kCudnnCrossCorrelation, kCudnnDataFloat),
        "cudnnSetConvolution2dDescriptor"));
    TW_RETURN_IF_ERROR(
        CudnnCheck(a->SetConvolutionMathType(plan.conv, kCudnnFmaMath),
                   "cudnnSetConvolutionMathType(CUDNN_FMA_MATH)"));
    GpuDevice* device = GetGpuDevice(ctx);
    std::lock_guard<std::mutex> cudnn_lock(CudnnCallMutex());
    TW_RETURN_IF_ERROR(
        CudnnCheck(a->SetStream(handle_, device->stream()), "cudnnSetStream"));
    constexpr int kMaxAlgos = 16;
    CudnnAlgoPerf perf[kMaxAlgos];
    int returned = 0;
    const char* what;
    if constexpr (kPass == Pass::kForward) {
      what = "cudnnGetConvolutionForwardAlgorithm_v7";
      TW_RETURN_IF_ERROR(CudnnCheck(a->GetConvolutionForwardAlgorithm_v7(
                                        handle_, plan.x, plan.w, plan.conv,
                                        plan.y, kMaxAlgos, &returned, perf),
                                    what));
    } else if constexpr (kPass == Pass::kBackpropInput) {
      what = "cudnnGetConvolutionBackwardDataAlgorithm_v7";
      TW_RETURN_IF_ERROR(CudnnCheck(a->GetConvolutionBackwardDataAlgorithm_v7(
                                        handle_, plan.w, plan.y, plan.conv,
                                        plan.x, kMaxAlgos, &returned, perf),
                                    what));
    } else {
      what = "cudnnGetConvolutionBackwardFilterAlgorithm_v7";
      TW_RETURN_IF_ERROR(CudnnCheck(a->GetConvolutionBackwardFilterAlgorithm_v7(
                                        handle_, plan.x, plan.y, plan.conv,
                                        plan.w, kMaxAlgos, &returned, perf),
                                    what));
    }
    for (int i = 0; i < returned && i < kMaxAlgos; ++i) {
      const CudnnAlgoPerf& p = perf[i];
      // No tensor-op math (TF32): CUDNN_TENSOR_OP_MATH(_ALLOW_CONVERSION).
      if (p.status != 0 || p.math_type == 1 || p.math_type == 2) continue;
      size_t bytes = 0;
      cudnnStatus_t st;
      if constexpr (kPass == Pass::kForward) {
        st = a->GetConvolutionForwardWorkspaceSize(
            handle_, plan.x, plan.w, plan.conv, plan.y, p.algo, &bytes);
      } else if constexpr (kPass == Pass::kBackpropInput) {
        st = a->GetConvolutionBackwardDataWorkspaceSize(
            handle_, plan.w, plan.y, plan.conv, plan.x, p.algo, &bytes);
      } else {
        st = a->GetConvolutionBackwardFilterWorkspaceSize(
            handle_, plan.x, plan.y, plan.conv, plan.w, p.algo, &bytes);
      }
      if (st != 0 || bytes > kCudnnWorkspaceLimit) continue;
      plan.algo = p.algo;
      plan.workspace = bytes;
      plan.usable = true;
      break;
    }
    return Status::OK();  // none usable: im2col
  }

  Status RunCudnn(OpKernelContext* ctx, const Conv2DArgs& args,
                  const CudnnPlan& plan, Tensor* out) {
    GpuDevice* device = GetGpuDevice(ctx);
    const ConvGeom g = ToGeom(args);
    const CudnnApi* a = api_;
    std::lock_guard<std::mutex> cudnn_lock(CudnnCallMutex());
    TW_RETURN_IF_ERROR(
        CudnnCheck(a->SetStream(handle_, device->stream()), "cudnnSetStream"));
    Tensor workspace;
    if (plan.workspace > 0) {
      TW_RETURN_IF_ERROR(ctx->allocate_temp(
          DT_UINT8, TensorShape({static_cast<int64_t>(plan.workspace)}),
          &workspace));
    }
    void* ws = plan.workspace > 0 ? workspace.raw_data() : nullptr;
    const int64_t rsc = g.window_rows * g.window_cols * g.in_depth;
    const int64_t fsize = rsc * g.out_depth;
    // The filter in cuDNN's OHWI layout.
    Tensor filter_ohwi;
    TW_RETURN_IF_ERROR(
        ctx->allocate_temp(DT_FLOAT, TensorShape({fsize}), &filter_ohwi));
    const float one = 1.0f, zero = 0.0f;
    if constexpr (kPass != Pass::kBackpropFilter) {
      FilterTransposeKernel<float>
          <<<BlocksFor(fsize), kThreadsPerBlock, 0, device->stream()>>>(
              ctx->input(1).data<float>(), filter_ohwi.data<float>(), rsc,
              g.out_depth, true, fsize);
      TW_RETURN_IF_ERROR(CheckLaunch(device, "FilterTranspose(HWIO->OHWI)"));
    }
    if constexpr (kPass == Pass::kForward) {
      return CudnnCheck(
          a->ConvolutionForward(
              handle_, &one, plan.x, ctx->input(0).data<float>(), plan.w,
              filter_ohwi.data<float>(), plan.conv, plan.algo, ws,
              plan.workspace, &zero, plan.y, out->data<float>()),
          "cudnnConvolutionForward");
    } else if constexpr (kPass == Pass::kBackpropInput) {
      return CudnnCheck(
          a->ConvolutionBackwardData(
              handle_, &one, plan.w, filter_ohwi.data<float>(), plan.y,
              ctx->input(2).data<float>(), plan.conv, plan.algo, ws,
              plan.workspace, &zero, plan.x, out->data<float>()),
          "cudnnConvolutionBackwardData");
    } else {
      TW_RETURN_IF_ERROR(CudnnCheck(
          a->ConvolutionBackwardFilter(
              handle_, &one, plan.x, ctx->input(0).data<float>(), plan.y,
              ctx->input(2).data<float>(), plan.conv, plan.algo, ws,
              plan.workspace, &zero, plan.w, filter_ohwi.data<float>()),
          "cudnnConvolutionBackwardFilter"));
      FilterTransposeKernel<float>
          <<<BlocksFor(fsize), kThreadsPerBlock, 0, device->stream()>>>(
              filter_ohwi.data<float>(), out->data<float>(), rsc, g.out_depth,
              false, fsize);
      return CheckLaunch(device, "FilterTranspose(OHWI->HWIO)");
    }
  }

  template <typename T>
  Status RunIm2col(OpKernelContext* ctx, const Conv2DArgs& args, Tensor* out) {
    GpuDevice* device = GetGpuDevice(ctx);
    const CublasApi* blas;
    cublasHandle_t handle;
    TW_RETURN_IF_ERROR(device->Cublas(&blas, &handle));
    const ConvGeom g = ToGeom(args);
    const int64_t k = g.window_rows * g.window_cols * g.in_depth;
    const int64_t pixels = g.out_rows * g.out_cols;  // per image
    const int64_t in_image = g.in_rows * g.in_cols * g.in_depth;
    const int64_t out_image = pixels * g.out_depth;
    // A 1x1, stride-1, unpadded convolution's col matrix is its input.
    const bool direct = g.window_rows == 1 && g.window_cols == 1 &&
                        g.stride_rows == 1 && g.stride_cols == 1 &&
                        g.pad_rows == 0 && g.pad_cols == 0;
    const int64_t per_image_bytes =
        std::max<int64_t>(1, pixels * k * static_cast<int64_t>(sizeof(T)));
    const int64_t chunk = std::max<int64_t>(
        1, std::min<int64_t>(g.batch, kIm2colBytesLimit / per_image_bytes));
    Tensor col;
    if (!direct) {
      TW_RETURN_IF_ERROR(ctx->allocate_temp(
          DataTypeOf<T>::value, TensorShape({chunk * pixels * k}), &col));
    }
    const T one = 1, zero = 0;
    for (int64_t n0 = 0; n0 < g.batch; n0 += chunk) {
      const int64_t images = std::min(chunk, g.batch - n0);
      const int64_t p = images * pixels;
      if constexpr (kPass == Pass::kBackpropInput) {
        // dcol [p, k] = dy [p, M] x W^T (W is [k, M]); then col2im.
        const T* dy = ctx->input(2).data<T>() + n0 * out_image;
        T* din = out->data<T>() + n0 * in_image;
        T* dcol = direct ? din : col.data<T>();
        TW_RETURN_IF_ERROR(
            RowMajorGemm<T>(blas, handle, false, true, p, k, g.out_depth, &one,
                            dy, ctx->input(1).data<T>(), &zero, dcol));
        if (!direct) {
          const int64_t total = images * in_image;
          Col2imKernel<T>
              <<<BlocksFor(total), kThreadsPerBlock, 0, device->stream()>>>(
                  g, dcol, n0, din, total);
          TW_RETURN_IF_ERROR(CheckLaunch(device, "Col2im"));
        }
      } else {
        const T* in = ctx->input(0).data<T>();
        const T* cols = in + n0 * in_image;
        if (!direct) {
          const int64_t total = p * k;
          Im2colKernel<T>
              <<<BlocksFor(total), kThreadsPerBlock, 0, device->stream()>>>(
                  g, in, n0, col.data<T>(), total);
          TW_RETURN_IF_ERROR(CheckLaunch(device, "Im2col"));
          cols = col.data<T>();
        }
        if constexpr (kPass == Pass::kForward) {
          // out [p, M] = col [p, k] x W [k, M].
          TW_RETURN_IF_ERROR(RowMajorGemm<T>(
              blas, handle, false, false, p, g.out_depth, k, &one, cols,
              ctx->input(1).data<T>(), &zero, out->data<T>() + n0 * out_image));
        } else {
          // dW [k, M] (+)= col^T [k, p] x dy [p, M].
          TW_RETURN_IF_ERROR(RowMajorGemm<T>(
              blas, handle, true, false, k, g.out_depth, p, &one, cols,
              ctx->input(2).data<T>() + n0 * out_image, n0 == 0 ? &zero : &one,
              out->data<T>()));
        }
      }
    }
    return Status::OK();
  }

  const CudnnApi* api_ = nullptr;  // null: im2col only
  cudnnHandle_t handle_ = nullptr;
  std::mutex mu_;
  std::map<std::vector<int64_t>, CudnnPlan> plans_;
};

#define TW_CONV_GPU(name, pass, ...)                                           \
  REGISTER_KERNEL(KernelDef(name)                                              \
                      .Device(DEVICE_GPU)                                      \
                      .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}) __VA_ARGS__, \
                  ConvGpuOp<pass>)
TW_CONV_GPU("Conv2D", Pass::kForward, );
TW_CONV_GPU("Conv2DBackpropInput", Pass::kBackpropInput, .HostMemoryInput(0));
TW_CONV_GPU("Conv2DBackpropFilter", Pass::kBackpropFilter, .HostMemoryInput(1));
#undef TW_CONV_GPU

}  // namespace
}  // namespace gpu
}  // namespace tensorweave
