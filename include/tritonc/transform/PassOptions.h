//===- PassOptions.h - Options of a pass in a pipeline text -----*- C++ -*-===//
//
// A pipeline text names a pass with options as `name{key=value,flag}`, e.g.
// `assign-layouts{num-warps=8,wgmma}`, so that `tritonc opt` runs a back-end
// pass for the target facts the GPU back end gives it (codegen/CodeGen.cpp)
// and lit tests can check what the pass does for them on IR input.
//
//===----------------------------------------------------------------------===//
#ifndef TRITONC_TRANSFORM_PASSOPTIONS_H
#define TRITONC_TRANSFORM_PASSOPTIONS_H

#include "tritonc/transform/PassManager.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tritonc::transform {

/// The options of one pass, in the order written: (key, value), the value
/// empty for a flag (`wgmma`).
using PassOptionList = std::vector<std::pair<std::string, std::string>>;

/// Splits "key=value,flag" (the text between the braces) into options;
/// false with Error on an empty key.
bool parsePassOptions(const std::string &Text, PassOptionList &Out, std::string &Error);

/// Creates the registered pass Name with Options; null with Error when the
/// pass takes no options, an option is unknown or a value is out of range.
std::unique_ptr<Pass> createPassWithOptions(const std::string &Name, const PassOptionList &Options,
                                            std::string &Error);

} // namespace tritonc::transform

#endif
