//===- Preprocessor.h - C preprocessor and tuning lists ---------*- C++ -*-===//
//
// Token-based C preprocessor: object- and function-like #define, #undef,
// #if/#ifdef/#ifndef/#elif/#else/#endif with integer expressions and
// `defined`, #include "..." / <...> (relative to the including file, then the
// -I directories), and -D definitions whose values may contain commas,
// colons and brackets (-DSHAPE_A=TM,TK, -DBROADCAST_AK=newaxis,:).
//
// A -D value written as a bracketed list (-DTM=[32,64,128]) is a *tuning
// list*: the set of all such lists defines a configuration space (their cross
// product). TuningSpace enumerates it; each configuration is an ordinary set
// of -D definitions.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/lang/Token.h"
#include "tritonc/support/Diagnostics.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tritonc {

/// NAME=VALUE definitions in command-line order.
using DefineList = std::vector<std::pair<std::string, std::string>>;

struct PreprocessorOptions {
  DefineList Defines;
  std::vector<std::string> IncludeDirs;
  /// Macro expansion stops with an error after producing this many tokens
  /// (exponential macro definitions would otherwise exhaust memory).
  size_t MaxExpansionTokens = 1000000;
};

/// Runs the preprocessor over a main file and returns the expanded tokens
/// (ending with an eof token). Errors go to Diags; on error the returned
/// tokens are still usable for further diagnostics.
std::vector<Token> preprocess(SourceManager &SM, FileId MainFile, const PreprocessorOptions &Opts,
                              DiagnosticEngine &Diags);

/// Renders tokens back to text (one logical line per source line); used for
/// cache keys and `--emit=pp`.
std::string tokensToString(const std::vector<Token> &Tokens);

/// The configuration space described by -D tuning lists.
class TuningSpace {
public:
  /// Largest space accepted: each configuration is a compilation, and
  /// --list-configs prints one line each.
  static constexpr size_t MaxConfigurations = 100000;

  /// Splits defines into fixed ones and lists. Returns false (with an error
  /// in Diags) when a list is malformed, e.g. "[32,", or the lists give more
  /// than MaxConfigurations configurations.
  bool init(const DefineList &Defines, DiagnosticEngine &Diags);

  /// Number of configurations (1 when there is no list).
  size_t size() const;
  /// The parameters that vary, in command-line order, with their values.
  const std::vector<std::pair<std::string, std::vector<std::string>>> &lists() const {
    return Lists;
  }
  /// The full define list of configuration Index (0 <= Index < size()):
  /// fixed defines plus one value of each list. The last list varies fastest.
  DefineList configuration(size_t Index) const;

private:
  /// One define in command-line order: a fixed value or a tuning list.
  struct Slot {
    bool IsList;
    size_t Index; ///< Into Fixed or Lists.
  };
  DefineList Fixed;
  std::vector<std::pair<std::string, std::vector<std::string>>> Lists;
  std::vector<Slot> Order;
  size_t Size = 1;
};

} // namespace tritonc
