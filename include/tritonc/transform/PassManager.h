//===- PassManager.h - Runs named passes over Triton-IR --------*- C++ -*-===//
//
// Passes are function passes: the manager runs each pass of the pipeline on
// every function of the module before moving on to the next pass, so that
// `--print-after-all` shows the whole module once per pass. Passes are
// registered by name in Passes.def; the pipeline is a comma-separated list of
// those names. Analyses (dominator tree, loop info) are computed on demand by
// the AnalysisManager, cached per function, and dropped whenever a pass
// reports that it changed the function.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"

#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <typeindex>
#include <utility>
#include <vector>

namespace tritonc {
class DiagnosticEngine;
} // namespace tritonc

namespace tritonc::transform {

/// Debugging and measurement options of a pipeline run (the `tritonc opt`
/// flags of the same names).
struct PassOptions {
  bool PrintAfterAll = false; ///< Print the module after every pass.
  bool VerifyEach = false;    ///< Verify the module after every pass.
  bool TimePasses = false;    ///< Print a wall-time table at the end.
  std::ostream *Log = &std::cerr;
};

/// Caches analyses per function. An analysis is any class constructible from
/// `(const ir::Function &, AnalysisManager &)` (so that it can ask for the
/// analyses it depends on) or else from `(const ir::Function &)`.
class AnalysisManager {
public:
  /// Returns the cached analysis T of F, computing it first if needed.
  template <typename T> T &get(const ir::Function &F) {
    auto Key = std::type_index(typeid(T));
    auto FIt = Cache.find(&F);
    if (FIt != Cache.end()) {
      auto It = FIt->second.find(Key);
      if (It != FIt->second.end())
        return static_cast<Holder<T> &>(*It->second).Value;
    }
    // Build before inserting: building may itself call get() for the
    // analyses T depends on.
    std::unique_ptr<Holder<T>> H;
    if constexpr (std::is_constructible_v<T, const ir::Function &, AnalysisManager &>)
      H = std::make_unique<Holder<T>>(F, *this);
    else
      H = std::make_unique<Holder<T>>(F);
    ++NumComputed;
    T &Result = H->Value;
    Cache[&F][Key] = std::move(H);
    return Result;
  }

  /// True when T is cached for F (for tests and debugging).
  template <typename T> bool isCached(const ir::Function &F) const {
    auto FIt = Cache.find(&F);
    return FIt != Cache.end() && FIt->second.count(std::type_index(typeid(T)));
  }

  /// Drops every analysis of F; called after a pass changes F.
  void invalidate(const ir::Function &F) { Cache.erase(&F); }
  /// Drops everything.
  void clear() { Cache.clear(); }
  /// How many analyses were computed so far (cache misses).
  unsigned numComputed() const { return NumComputed; }
  /// The pipeline's log stream (PassOptions::Log), where printer passes
  /// write; set by the PassManager.
  std::ostream &log() const { return *Log; }
  void setLog(std::ostream *OS) { Log = OS ? OS : &std::cerr; }
  /// Where passes report optimization remarks (DiagnosticEngine::remark);
  /// null when the pipeline runs without a compilation (unit tests).
  DiagnosticEngine *diagnostics() const { return Diags; }
  void setDiagnostics(DiagnosticEngine *D) { Diags = D; }

private:
  struct HolderBase {
    virtual ~HolderBase() = default;
  };
  template <typename T> struct Holder : HolderBase {
    template <typename... Args> explicit Holder(Args &&...A) : Value(std::forward<Args>(A)...) {}
    T Value;
  };
  std::map<const ir::Function *, std::map<std::type_index, std::unique_ptr<HolderBase>>> Cache;
  unsigned NumComputed = 0;
  std::ostream *Log = &std::cerr;
  DiagnosticEngine *Diags = nullptr;
};

/// Thrown by a pass that cannot handle the user's input (not a compiler
/// bug): the pipeline stops and the driver reports Message at Loc as an
/// ordinary error.
struct PassInputError {
  std::string Message;
  SourceLoc Loc;
};

/// A transformation of one function.
class Pass {
public:
  virtual ~Pass();
  /// The registry name ("dce"), used in messages and timing tables.
  virtual const char *name() const = 0;
  /// Transforms F; returns true if it changed the function. A pass that
  /// changes F may not rely on analyses it fetched before the change.
  virtual bool run(ir::Function &F, AnalysisManager &AM) = 0;
};

/// Runs a sequence of passes over modules.
class PassManager {
public:
  explicit PassManager(PassOptions O = {});
  ~PassManager();

  /// Appends the passes of a comma-separated list of registered names ("a,b,c";
  /// the empty string adds nothing), each optionally with options in braces
  /// (`assign-layouts{num-warps=8,wgmma}`, PassOptions.h). On an unknown or
  /// empty name, or options a pass does not take, nothing is added and Error
  /// says why (listing the known passes for a name).
  bool addPipeline(const std::string &CommaList, std::string &Error);
  /// Appends one pass object (tests use it for passes not in the registry).
  void addPass(std::unique_ptr<Pass> P);
  /// Number of passes in the pipeline.
  size_t size() const { return Passes.size(); }

  /// Runs every pass on every function, in pipeline order. Returns false with
  /// Error when --verify-each finds a broken module (the message names the
  /// pass that broke it) or a pass raised an internal error.
  bool run(ir::Module &M, std::string &Error);

  /// Runs the pipeline and reports a failure to Diags: the input problem a
  /// pass raised (PassInputError) as a located error, anything else as an
  /// internal error naming What (e.g. "the back end's passes").
  bool run(ir::Module &M, DiagnosticEngine &Diags, const std::string &What);

  AnalysisManager &getAnalysisManager() { return AM; }
  /// After run() failed: the input problem a pass reported, if that was the
  /// cause (otherwise the failure is the compiler's).
  const std::optional<PassInputError> &inputError() const { return InputError; }

private:
  void printTimingReport() const;

  PassOptions Opts;
  std::vector<std::unique_ptr<Pass>> Passes;
  AnalysisManager AM;
  std::optional<PassInputError> InputError;
  /// Accumulated wall time per pass name, in first-run order.
  std::vector<std::pair<std::string, std::chrono::duration<double>>> Timings;
};

/// Creates a registered pass by name; null if the name is unknown.
std::unique_ptr<Pass> createPassByName(const std::string &Name);
/// Every registered pass as (name, description), in registry order.
std::vector<std::pair<std::string, std::string>> registeredPasses();
/// The pipeline `tritonc` runs by default, as a comma-separated list.
std::string defaultPipeline();

} // namespace tritonc::transform
