//===- Configurations.h - Tuning spaces: defines and back-end options -*- C++ -*-===//
//
// A tuning configuration is a set of -D definitions plus the back end's
// options (num_warps, num_stages). Bracketed -D values (-DTM=[32,64]) and
// option lists (--num-warps=[4,8], num_warps=[4, 8], autotune's Config) span
// a configuration space, their cross product: the defines first in
// command-line order, then num_warps, then num_stages, the last varying
// fastest. The preprocessor sees a configuration's defines only; its options
// go to codegen::CodeGenOptions (compileForDevice), never into a macro.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/lang/Preprocessor.h"
#include "tritonc/support/Diagnostics.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tritonc::driver {

/// Back-end options tuned like -D lists: the values to try, each list one
/// dimension of the tuning space (named "num_warps", "num_stages"). Empty:
/// not tuned, the compilation uses CodeGenOptions' own value.
struct TunedOptions {
  std::vector<unsigned> NumWarps;
  std::vector<unsigned> NumStages;

  bool empty() const { return NumWarps.empty() && NumStages.empty(); }
  /// "num_warps=[4,8] num_stages=[3]" for the lists that are given ("" when none).
  std::string str() const;
};

/// One configuration of a tuning space.
struct Configuration {
  /// The complete -D list of this configuration (fixed defines included).
  DefineList Defines;
  /// The back-end options this configuration sets (unset: not tuned).
  std::optional<unsigned> NumWarps;
  std::optional<unsigned> NumStages;
  /// Only the tuned parameters, "TM=32 num_warps=8" (empty when nothing is tuned).
  std::string Description;
};

/// The defines that used to carry the option lists as macros; a -D of
/// either is an error that points to --num-warps / --num-stages.
inline constexpr const char *RetiredNumWarpsDefine = "TRITONC_NUM_WARPS";
inline constexpr const char *RetiredNumStagesDefine = "TRITONC_NUM_STAGES";

/// The configuration space of defines and tuned options.
class ConfigurationSpace {
public:
  /// Splits the defines into fixed ones and lists and adds the option lists.
  /// Returns false (with errors in Diags) when a list is malformed, a define
  /// names a retired option macro, or the space has more than
  /// TuningSpace::MaxConfigurations configurations.
  bool init(const DefineList &Defines, const TunedOptions &Tuned, DiagnosticEngine &Diags);

  /// Number of configurations (1 when nothing is tuned).
  size_t size() const;
  /// Number of tuned parameters (define lists and option lists).
  size_t numLists() const;
  /// The tuned parameters' names, "TM, num_warps".
  std::string listNames() const;
  /// Configuration Index (0 <= Index < size()).
  Configuration configuration(size_t Index) const;

private:
  TuningSpace Defines;
  TunedOptions Tuned;
};

/// Enumerates the configuration space of Defines and Tuned (one
/// configuration, with an empty description, when nothing is tuned).
/// Returns false with the reason in Error when a list is malformed or the
/// space is too large (see ConfigurationSpace::init).
bool listConfigurations(const DefineList &Defines, const TunedOptions &Tuned,
                        std::vector<Configuration> &Out, std::string &Error);
/// As listConfigurations, handing each configuration to Visit in order
/// instead of collecting them (the listing streams; nothing is kept).
bool forEachConfiguration(const DefineList &Defines, const TunedOptions &Tuned,
                          const std::function<void(size_t, const Configuration &)> &Visit,
                          std::string &Error);
/// Configuration Index of the space, or nullopt when the space is invalid or
/// has no such configuration (the front end reports both, located).
std::optional<Configuration> findConfiguration(const DefineList &Defines, const TunedOptions &Tuned,
                                               size_t Index);

} // namespace tritonc::driver
