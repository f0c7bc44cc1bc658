// The bridge from the PyFunc kernels to the Python front end: the Python
// extension installs one callback; the kernels call it with the function's
// token and inputs. The core itself has no Python dependency.
#ifndef TENSORWEAVE_CORE_KERNELS_SCRIPT_OPS_H_
#define TENSORWEAVE_CORE_KERNELS_SCRIPT_OPS_H_

#include <functional>
#include <string>
#include <vector>

#include "core/framework/status.h"
#include "core/framework/tensor.h"

namespace tensorweave {

// Runs the Python function registered under `token` on `inputs`; fills
// `outputs` (their count and dtypes are checked by the kernel).
using PyFuncCallback = std::function<Status(const std::string& token,
                                            const std::vector<Tensor>& inputs,
                                            std::vector<Tensor>* outputs)>;

// Installs the callback (the Python extension does, once, at import).
void SetPyFuncCallback(PyFuncCallback callback);

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_SCRIPT_OPS_H_
