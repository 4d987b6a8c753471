//===- Configurations.cpp - The tuning space of a define list, from Python -===//
//
// `_tritonc.list_configs(defines, num_warps_list, num_stages_list)`: the
// configurations that the bracketed lists of a define list and the option
// lists span (`{"TM": [64, 128]}` -> two), each as its complete define
// list, its num_warps and num_stages (None where not tuned) and its
// description. The Python layer uses it to
// autotune over the tuning space of a compiled kernel and to resolve the
// defines of the selected configuration for a callable grid's `meta`.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "tritonc/driver/Compiler.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <stdexcept>

namespace nb = nanobind;
using namespace nb::literals;

namespace tritonc::python {

void bindConfigurations(nb::module_ &M) {
  M.def(
      "list_configs",
      [](const DefineList &Defines, const std::vector<unsigned> &NumWarps,
         const std::vector<unsigned> &NumStages) {
        std::vector<driver::Configuration> Configs;
        std::string Error;
        if (!driver::listConfigurations(Defines, {NumWarps, NumStages}, Configs, Error))
          throw std::invalid_argument(Error);
        std::vector<
            std::tuple<DefineList, std::optional<unsigned>, std::optional<unsigned>, std::string>>
            Out;
        for (const driver::Configuration &C : Configs)
          Out.emplace_back(C.Defines, C.NumWarps, C.NumStages, C.Description);
        return Out;
      },
      "defines"_a, "num_warps_list"_a = std::vector<unsigned>(),
      "num_stages_list"_a = std::vector<unsigned>(),
      "[(defines, num_warps, num_stages, description)] of every configuration the tuning lists "
      "of defines and of the options span (num_warps, num_stages: None where not tuned).");
}

} // namespace tritonc::python
