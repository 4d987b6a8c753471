//===- Bindings.h - Shared pieces of the _tritonc extension -----*- C++ -*-===//
//
// The exception types and the grid conversion that the extension's source
// files share, and the functions that each file uses to add its classes to
// the module (Module.cpp defines NB_MODULE and calls them).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/driver/Jit.h"

#include <nanobind/nanobind.h>

#include <stdexcept>

namespace tritonc::python {

/// A compilation failed; the message is the formatted diagnostics
/// (tritonc.CompileError).
struct CompileFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// No driver or device, a failed load, launch or copy, or a kernel that
/// failed on the interpreter (tritonc.LaunchError).
struct LaunchFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A launch grid: an int or a sequence of 1 to 3 positive ints, as (x, y, z).
driver::Grid3 toGrid(nanobind::handle G);

/// InterpretedKernel and compile_for_interpreter (Interpret.cpp).
void bindInterpreter(nanobind::module_ &M);
/// list_configs (Configurations.cpp).
void bindConfigurations(nanobind::module_ &M);

} // namespace tritonc::python
