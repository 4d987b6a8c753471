//===- AxisInfo.h - Contiguity/divisibility/constancy of tiles -*- C++ -*-===//
//
// The axis-info analysis (thesis section 5.3.3, "contiguity analysis")
// describes, per dimension d of every integer and pointer value, how its
// elements are laid out, so that the GPU back end can decide when a tile of
// pointers may be read or written with wide vector instructions.
//
// Definitions (per dimension d of size n; every number below is a power of
// two that divides the power-of-two part of n, so "gcd" is simply "min"):
//  - Contiguity C: cut dimension d into aligned blocks of C indices
//    [kC, kC+C). Inside each block the elements increase by exactly one step
//    per index: +1 for integers, +sizeof(pointee) bytes for pointers.
//  - Divisibility D: every element whose index along d is a multiple of C
//    (the first element of each block) is a multiple of D. Integers: of the
//    value (two's complement); pointers: of the address in BYTES. D is capped
//    at MaxDivisibility (a value known to be 0 gets the cap).
//  - Constancy K: inside each aligned block of K indices along d all the
//    elements are equal.
// Scalars use one entry (a dimension of size 1): C = K = 1 and D describes
// the value. The analysis also keeps exact integer constants (of scalars and
// splats) and whether every element is known to be non-negative (which makes
// signed division and remainder by powers of two behave like shifts/masks).
//
// Assumption: index arithmetic does not overflow (as upstream Triton, and as
// Triton-C's signed integers promise). Every claim is otherwise sound for all
// argument values satisfying the `multipleof`/`aligned` attributes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tritonc::analysis {

/// The largest divisibility ever claimed (also that of the value 0).
constexpr int64_t MaxDivisibility = int64_t(1) << 30;

/// Facts about one value; see the file comment for the exact meaning.
struct AxisInfo {
  std::vector<int64_t> Contiguity;   ///< One entry per dimension (1 for scalars).
  std::vector<int64_t> Divisibility; ///< One entry per dimension (1 for scalars).
  std::vector<int64_t> Constancy;    ///< One entry per dimension (1 for scalars).
  /// The value of every element, when known (integers only).
  std::optional<int64_t> Constant;
  /// Every element is >= 0 as a signed integer (integers only).
  bool NonNegative = false;

  /// The weakest facts (all 1s) about a value of type T.
  static AxisInfo pessimistic(const ir::Type *T);
  unsigned rank() const { return static_cast<unsigned>(Contiguity.size()); }
  /// "contiguity=[1,4] divisibility=[16,16] constancy=[1,1]" (plus
  /// " constant=N" when known).
  std::string str() const;
  bool operator==(const AxisInfo &) const = default;
};

/// Computes AxisInfo for every argument and instruction of a function with a
/// forward data-flow fixpoint (optimistic at phis; see AxisInfo.cpp). The
/// results are a snapshot: recompute after changing the function. Usable
/// through transform::AnalysisManager::get<AxisInfoAnalysis>(F).
class AxisInfoAnalysis {
public:
  explicit AxisInfoAnalysis(const ir::Function &F);

  /// Facts about V (an argument, instruction or constant of the function).
  /// Values the analysis never reached (unreachable code, foreign values)
  /// get pessimistic facts.
  const AxisInfo &get(const ir::Value *V) const;

  /// How many sweeps over the blocks the fixpoint took (for tests).
  unsigned numIterations() const { return Iterations; }

private:
  std::unordered_map<const ir::Value *, AxisInfo> Infos;
  mutable std::unordered_map<const ir::Value *, AxisInfo> Extra;
  unsigned Iterations = 0;
};

/// Facts about a scalar integer or pointer constant (exact).
AxisInfo constantInfo(const ir::Constant &C);

/// The largest power of two dividing V, capped at MaxDivisibility (V == 0
/// gives the cap).
int64_t largestPow2Divisor(int64_t V);

} // namespace tritonc::analysis
