//===- Tune.h - `tritonc tune`: the fastest configuration on the GPU -*- C++ -*-===//
//
// Every configuration of a tuning space (the -D, --num-warps and
// --num-stages lists) is compiled and loaded into the driver in parallel,
// one thread per core (the cold compile is dominated by the driver's
// PTX -> SASS step, which parallelizes), then launched once to check it and
// timed with CUDA events on the same prepared arguments, each run after an
// L2 flush. The grid is given per configuration as expressions over its
// defines ("cdiv(1000, TM),cdiv(800, TN)").
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/driver/Jit.h"
#include "tritonc/driver/Launch.h"

#include <iosfwd>
#include <limits>
#include <string>
#include <vector>

namespace tritonc::driver {

/// Evaluates one grid dimension: integers, the defines of Config by name,
/// + - * / % (C semantics on int64), parentheses and cdiv(a, b). The error
/// names what it could not read.
runtime::Expected<int64_t> evaluateGridExpression(std::string_view Text, const DefineList &Config);
/// "X[,Y[,Z]]" of such expressions (commas inside parentheses belong to the
/// expression); each dimension must come out in 1 .. 2^31-1.
runtime::Expected<Grid3> evaluateGrid(std::string_view Text, const DefineList &Config);

/// One configuration's outcome.
struct TuneResult {
  size_t Config = 0;
  std::string Description; ///< "TM=64 TN=32" (the tuned values).
  /// Empty when it compiled and launched; else why it was skipped.
  std::string Error;
  double Milliseconds = std::numeric_limits<double>::infinity(); ///< Median device time.
};

struct TuneOptions {
  unsigned Warmup = 3;
  unsigned Runs = 20;
};

/// Tunes Src over the configurations of Opts.Front.Defines on the device
/// with the prepared arguments L (uploaded once; their contents after the
/// call are not defined) and the grid expressions GridText. Progress lines go
/// to Progress. Fails without a device or when no configuration ran.
runtime::Expected<std::vector<TuneResult>>
tuneOnDevice(const KernelSource &Src, const DeviceCompileOptions &Opts, PreparedLaunch &L,
             const std::string &GridText, const TuneOptions &TOpts, std::ostream &Progress);

} // namespace tritonc::driver
