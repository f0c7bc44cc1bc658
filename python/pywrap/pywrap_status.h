// What the extension's bindings share: a failed Status becomes the
// tensorweave.errors exception of its code (an OpError subclass, with the
// message).
#ifndef TENSORWEAVE_PYTHON_PYWRAP_PYWRAP_STATUS_H_
#define TENSORWEAVE_PYTHON_PYWRAP_PYWRAP_STATUS_H_

#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

#include "core/framework/status.h"

namespace tensorweave {

// Raises the tensorweave.errors exception for a failed status (the caller
// holds the GIL).
inline void ThrowIfError(const Status& status) {
  if (status.ok()) return;
  static pybind11::object* raise_fn = new pybind11::object(
      pybind11::module_::import("tensorweave._src.framework.errors")
          .attr("_raise_from_status"));
  // A message may quote bytes from a corrupt file: invalid UTF-8 is replaced,
  // never a UnicodeDecodeError in place of the error.
  const std::string& message = status.message();
  pybind11::object text =
      pybind11::reinterpret_steal<pybind11::object>(PyUnicode_DecodeUTF8(
          message.data(), static_cast<Py_ssize_t>(message.size()), "replace"));
  if (!text) throw pybind11::error_already_set();
  (*raise_fn)(static_cast<int>(status.code()), text);
  throw std::runtime_error("unreachable: _raise_from_status returned");
}

}  // namespace tensorweave

#endif  // TENSORWEAVE_PYTHON_PYWRAP_PYWRAP_STATUS_H_
