//===- Configurations.cpp - The tuning space of a define list, from Python -===//
//
// `_tritonc.list_configs(defines)`: the configurations that the bracketed
// lists of a define list span (`{"TM": [64, 128]}` -> two), each as its
// complete define list and its description. The Python layer uses it to
// autotune over the tuning space of a compiled kernel and to resolve the
// defines of the selected configuration for a callable grid's `meta`.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "tritonc/driver/Compiler.h"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <stdexcept>

namespace nb = nanobind;
using namespace nb::literals;

namespace tritonc::python {

void bindConfigurations(nb::module_ &M) {
  M.def(
      "list_configs",
      [](const DefineList &Defines) {
        std::vector<driver::Configuration> Configs;
        std::string Error;
        if (!driver::listConfigurations(Defines, Configs, Error))
          throw std::invalid_argument(Error);
        std::vector<std::pair<DefineList, std::string>> Out;
        for (const driver::Configuration &C : Configs)
          Out.emplace_back(C.Defines, C.Description);
        return Out;
      },
      "defines"_a,
      "[(defines, description)] of every configuration the tuning lists of defines span.");
}

} // namespace tritonc::python
