// The parts of cuDNN 9's legacy convolution API the GPU kernels call,
// loaded at run time (dlopen of libcudnn.so.9, as cuda_libs.h does for
// cuBLAS), so that the GPU library neither links nor needs cuDNN: without
// it, convolution runs on its im2col + cuBLAS fallback. The prototypes and
// enum values follow cudnn_graph.h / cudnn_ops.h / cudnn_cnn.h of the
// nvidia-cudnn-cu13 9.x wheel; enums are passed as int (same ABI).
#ifndef TENSORWEAVE_CORE_GPU_CUDNN_API_H_
#define TENSORWEAVE_CORE_GPU_CUDNN_API_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "core/framework/status.h"

struct cudnnContext;
typedef struct cudnnContext* cudnnHandle_t;
struct cudnnTensorStruct;
typedef struct cudnnTensorStruct* cudnnTensorDescriptor_t;
struct cudnnFilterStruct;
typedef struct cudnnFilterStruct* cudnnFilterDescriptor_t;
struct cudnnConvolutionStruct;
typedef struct cudnnConvolutionStruct* cudnnConvolutionDescriptor_t;
typedef int cudnnStatus_t;  // 0: CUDNN_STATUS_SUCCESS

namespace tensorweave {
namespace gpu {

// Enum values (cudnn_graph.h).
inline constexpr int kCudnnDataFloat = 0;   // CUDNN_DATA_FLOAT
inline constexpr int kCudnnDataDouble = 1;  // CUDNN_DATA_DOUBLE
inline constexpr int kCudnnTensorNchw = 0;  // CUDNN_TENSOR_NCHW
inline constexpr int kCudnnTensorNhwc = 1;  // CUDNN_TENSOR_NHWC
inline constexpr int kCudnnCrossCorrelation = 1;
inline constexpr int kCudnnDefaultMath = 0;  // CUDNN_DEFAULT_MATH
inline constexpr int kCudnnFmaMath = 3;      // CUDNN_FMA_MATH: no TF32

// cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t (one layout for all
// three; the algo enums as int).
struct CudnnAlgoPerf {
  int algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  int determinism;
  int math_type;
  int reserved[3];
};

struct CudnnApi {
  size_t (*GetVersion)();
  const char* (*GetErrorString)(cudnnStatus_t);
  cudnnStatus_t (*Create)(cudnnHandle_t*);
  cudnnStatus_t (*SetStream)(cudnnHandle_t, cudaStream_t);
  cudnnStatus_t (*CreateTensorDescriptor)(cudnnTensorDescriptor_t*);
  cudnnStatus_t (*DestroyTensorDescriptor)(cudnnTensorDescriptor_t);
  cudnnStatus_t (*SetTensor4dDescriptor)(cudnnTensorDescriptor_t, int format,
                                         int data_type, int n, int c, int h,
                                         int w);
  cudnnStatus_t (*CreateFilterDescriptor)(cudnnFilterDescriptor_t*);
  cudnnStatus_t (*DestroyFilterDescriptor)(cudnnFilterDescriptor_t);
  cudnnStatus_t (*SetFilter4dDescriptor)(cudnnFilterDescriptor_t, int data_type,
                                         int format, int k, int c, int h,
                                         int w);
  cudnnStatus_t (*CreateConvolutionDescriptor)(cudnnConvolutionDescriptor_t*);
  cudnnStatus_t (*DestroyConvolutionDescriptor)(cudnnConvolutionDescriptor_t);
  cudnnStatus_t (*SetConvolution2dDescriptor)(cudnnConvolutionDescriptor_t,
                                              int pad_h, int pad_w, int u,
                                              int v, int dilation_h,
                                              int dilation_w, int mode,
                                              int compute_type);
  cudnnStatus_t (*SetConvolutionMathType)(cudnnConvolutionDescriptor_t,
                                          int math_type);
  cudnnStatus_t (*GetConvolutionForwardAlgorithm_v7)(
      cudnnHandle_t, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
      cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t y, int requested,
      int* returned, CudnnAlgoPerf* results);
  cudnnStatus_t (*GetConvolutionForwardWorkspaceSize)(
      cudnnHandle_t, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
      cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t y, int algo,
      size_t* bytes);
  cudnnStatus_t (*ConvolutionForward)(
      cudnnHandle_t, const void* alpha, cudnnTensorDescriptor_t x_desc,
      const void* x, cudnnFilterDescriptor_t w_desc, const void* w,
      cudnnConvolutionDescriptor_t, int algo, void* workspace,
      size_t workspace_bytes, const void* beta, cudnnTensorDescriptor_t y_desc,
      void* y);
  cudnnStatus_t (*GetConvolutionBackwardDataAlgorithm_v7)(
      cudnnHandle_t, cudnnFilterDescriptor_t w, cudnnTensorDescriptor_t dy,
      cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t dx, int requested,
      int* returned, CudnnAlgoPerf* results);
  cudnnStatus_t (*GetConvolutionBackwardDataWorkspaceSize)(
      cudnnHandle_t, cudnnFilterDescriptor_t w, cudnnTensorDescriptor_t dy,
      cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t dx, int algo,
      size_t* bytes);
  cudnnStatus_t (*ConvolutionBackwardData)(
      cudnnHandle_t, const void* alpha, cudnnFilterDescriptor_t w_desc,
      const void* w, cudnnTensorDescriptor_t dy_desc, const void* dy,
      cudnnConvolutionDescriptor_t, int algo, void* workspace,
      size_t workspace_bytes, const void* beta, cudnnTensorDescriptor_t dx_desc,
      void* dx);
  cudnnStatus_t (*GetConvolutionBackwardFilterAlgorithm_v7)(
      cudnnHandle_t, cudnnTensorDescriptor_t x, cudnnTensorDescriptor_t dy,
      cudnnConvolutionDescriptor_t, cudnnFilterDescriptor_t dw, int requested,
      int* returned, CudnnAlgoPerf* results);
  cudnnStatus_t (*GetConvolutionBackwardFilterWorkspaceSize)(
      cudnnHandle_t, cudnnTensorDescriptor_t x, cudnnTensorDescriptor_t dy,
      cudnnConvolutionDescriptor_t, cudnnFilterDescriptor_t dw, int algo,
      size_t* bytes);
  cudnnStatus_t (*ConvolutionBackwardFilter)(
      cudnnHandle_t, const void* alpha, cudnnTensorDescriptor_t x_desc,
      const void* x, cudnnTensorDescriptor_t dy_desc, const void* dy,
      cudnnConvolutionDescriptor_t, int algo, void* workspace,
      size_t workspace_bytes, const void* beta, cudnnFilterDescriptor_t dw_desc,
      void* dw);
};

// The process's cuDNN, loaded on first use from, in order:
// $TW_CUDNN_LIBRARY, libcudnn.so.9 on the loader's path, each dir of
// $TW_NVIDIA_LIB_DIRS (dir/nvidia/cudnn/lib/, dir/nvidia/cu13/lib/),
// $CUDA_HOME/lib64, /usr/local/cuda/lib64. FailedPrecondition naming every
// place tried (and dlerror's reason) when none loads, or the symbols
// missing.
Status GetCudnn(const CudnnApi** api);

// A cuDNN handle for CUDA device `ordinal`, created once per ordinal and
// kept for the process (creating one allocates GPU memory: call this at
// kernel construction, not while a step may be captured). Callers set the
// stream (SetStream) before each use; the device runs its kernels one at a
// time on its compute stream.
Status GetCudnnHandle(int ordinal, cudnnHandle_t* handle);

// "CUDNN_STATUS_BAD_PARAM (3)"-like text.
std::string CudnnStatusString(cudnnStatus_t status);
// OK for 0, else Internal naming `what` and the status.
Status CudnnCheck(cudnnStatus_t status, const char* what);

// True when $TW_GPU_DISABLE_CUDNN is set to a non-empty value other than 0.
bool CudnnDisabledByEnv();

}  // namespace gpu
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_GPU_CUDNN_API_H_
