// What the extension's bindings share: a failed Status becomes the
// tensorweave.errors exception of its code (an OpError subclass, with the
// message).
#ifndef TENSORWEAVE_PYTHON_PYWRAP_PYWRAP_STATUS_H_
#define TENSORWEAVE_PYTHON_PYWRAP_PYWRAP_STATUS_H_

#include <pybind11/pybind11.h>

#include <stdexcept>

#include "core/framework/status.h"

namespace tensorweave {

// Raises the tensorweave.errors exception for a failed status (the caller
// holds the GIL).
inline void ThrowIfError(const Status& status) {
  if (status.ok()) return;
  static pybind11::object* raise_fn = new pybind11::object(
      pybind11::module_::import("tensorweave._src.framework.errors")
          .attr("_raise_from_status"));
  (*raise_fn)(static_cast<int>(status.code()), status.message());
  throw std::runtime_error("unreachable: _raise_from_status returned");
}

}  // namespace tensorweave

#endif  // TENSORWEAVE_PYTHON_PYWRAP_PYWRAP_STATUS_H_
