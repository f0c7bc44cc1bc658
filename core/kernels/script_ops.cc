// PyFunc / PyFuncStateless: call a Python function (tf.py_func,
// tf.numpy_function) through the callback the Python extension installs.
#include "core/kernels/script_ops.h"

#include <mutex>
#include <utility>

#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

std::mutex& CallbackMutex() {
  static std::mutex mu;
  return mu;
}

PyFuncCallback& Callback() {
  static PyFuncCallback* callback = new PyFuncCallback();
  return *callback;
}

class PyFuncOp : public OpKernel {
 public:
  explicit PyFuncOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("token", &token_));
    ctx->SetStatus(ctx->GetAttr("Tout", &tout_));
  }
  bool IsExpensive() const override { return true; }
  void Compute(OpKernelContext* ctx) override {
    PyFuncCallback callback;
    {
      std::lock_guard<std::mutex> lock(CallbackMutex());
      callback = Callback();
    }
    OP_REQUIRES(ctx, static_cast<bool>(callback),
                errors::FailedPrecondition(
                    "no Python interpreter to run ", token_,
                    " (PyFunc runs only in the process that built it)"));
    std::vector<Tensor> inputs;
    for (int i = 0; i < ctx->num_inputs(); ++i) inputs.push_back(ctx->input(i));
    std::vector<Tensor> outputs;
    OP_REQUIRES_OK(ctx, callback(token_, inputs, &outputs));
    OP_REQUIRES(ctx, outputs.size() == tout_.size(),
                errors::InvalidArgument(token_, " returns ", outputs.size(),
                                        " values, but expects to see ",
                                        tout_.size(), " values."));
    for (size_t i = 0; i < outputs.size(); ++i) {
      OP_REQUIRES(
          ctx, outputs[i].dtype() == tout_[i],
          errors::InvalidArgument(i, "-th value returned by ", token_, " is ",
                                  DataTypeName(outputs[i].dtype()),
                                  ", but expects ", DataTypeName(tout_[i])));
      ctx->set_output(static_cast<int>(i), std::move(outputs[i]));
    }
  }

 private:
  std::string token_;
  std::vector<DataType> tout_;
};

REGISTER_KERNEL(KernelDef("PyFunc"), PyFuncOp);
REGISTER_KERNEL(KernelDef("PyFuncStateless"), PyFuncOp);

}  // namespace

void SetPyFuncCallback(PyFuncCallback callback) {
  std::lock_guard<std::mutex> lock(CallbackMutex());
  Callback() = std::move(callback);
}

}  // namespace tensorweave
