//===- AffineAccess.h - Pointer tiles as affine functions of the index -*- C++ -*-===//
//
// The bulk tensor copy engine (TMA) moves a box of a 2-D tensor given a base
// address, extents and strides (a tensor map built at launch) and the box's
// coordinates (computed by the kernel). A load can use it when its pointer
// tile is
//
//     ptr[i0, i1] = Base + (c0 + i0) * s0 + (c1 + i1) * s1      (elements)
//
// with Base a pointer parameter, one stride 1, the other a polynomial in the
// integer parameters, and when its mask is a conjunction of
//
//   * bounds `c_d + i_d < B_d` with B_d a polynomial in the parameters (the
//     map's extent: the engine fills what lies outside with zeros; other
//     terms of the right-hand side, as the loop counter of `rk < K - k`,
//     move into the coordinate), and
//   * scalar guards (when one is false the whole tile reads as zeros).
//
// This analysis finds that form. Scalars are polynomials over "atoms"
// (parameters, program ids, and any scalar it does not look through), and
// integer and pointer tiles are such a polynomial plus one per dimension
// times the index. Loop inductions (phi = start + n * step, step constant or
// loop-invariant) are rewritten in terms of one representative induction per
// loop, so that a pointer advanced by a 64-bit offset and an index advanced
// by a 32-bit one are recognized as the same coordinate. Integer overflow is
// assumed not to happen (as the axis-info analysis assumes).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/Dominance.h"
#include "tritonc/ir/IR.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tritonc::analysis {

/// A polynomial with integer coefficients over atoms (scalar IR values,
/// numbered by the analysis in the order it meets them).
class Poly {
public:
  using Monomial = std::vector<unsigned>; ///< Sorted atom ids; empty: the constant term.
  Poly() = default;
  static Poly constant(int64_t C);
  static Poly atom(unsigned Id);
  /// C times the product of the atoms of M (sorted).
  static Poly term(Monomial M, int64_t C);

  const std::map<Monomial, int64_t> &terms() const { return Terms; }
  bool isZero() const { return Terms.empty(); }
  std::optional<int64_t> asConstant() const;
  bool operator==(const Poly &) const = default;

  /// nullopt on coefficient overflow.
  static std::optional<Poly> add(const Poly &A, const Poly &B, int64_t BScale = 1);
  static std::optional<Poly> mul(const Poly &A, const Poly &B);
  /// A / D when every term of A is a multiple of the single term D.
  static std::optional<Poly> divide(const Poly &A, const Poly &D);

private:
  std::map<Monomial, int64_t> Terms;
};

/// An integer or pointer tile (or scalar: no dimensions):
/// value[i] = Base + Offset + sum_d i_d * Steps[d], in elements for pointers.
struct AffineTile {
  const ir::Argument *Base = nullptr; ///< Pointers only.
  Poly Offset;
  std::vector<Poly> Steps;
};

/// A load or store that a 2-D tensor map can serve (see the file comment).
struct TensorAccess {
  const ir::Argument *Base = nullptr;
  /// The tile dimension with stride 1, and the other one's stride
  /// (elements; atoms are integer parameters only).
  unsigned UnitDim = 1;
  Poly OuterStride;
  /// Per tile dimension: the extent the mask checks (parameters only), if any.
  std::optional<Poly> Bound[2];
  /// Per tile dimension: the coordinate of the tile's first element.
  Poly Coord[2];
  /// Scalar i1 values that must all be true, else the tile reads as zeros
  /// (a load) or nothing is written (a store).
  std::vector<const ir::Value *> Guards;
};

class AffineAccessAnalysis {
public:
  AffineAccessAnalysis(const ir::Function &F, const ir::DominatorTree &DT);

  /// The tensor-map form of a load, masked_load, store, masked_store or
  /// cp_async (a load into a slot) of a 2-D tile, if it has one. (The caller checks that a masked
  /// load's `other` is zero.) For a store, Guards and Bounds say which elements are written.
  /// Without one, Why (if given) says why not, in a kernel author's words (for optimization
  /// remarks).
  std::optional<TensorAccess> tensorAccessOf(const ir::Instruction &Access,
                                             std::string *Why = nullptr);

  /// The affine form of an integer or pointer value, if it has one.
  std::optional<AffineTile> affineOf(const ir::Value *V);

  /// The scalar value behind an atom id.
  const ir::Value *atomValue(unsigned Id) const { return Atoms[Id]; }
  /// Whether every atom of P is an integer parameter of the function.
  bool isOverParameters(const Poly &P) const;
  /// Why P's value may be negative, in a kernel author's words, or "" when it is provably
  /// non-negative: a sum of terms with positive coefficients over atoms that are (see
  /// nonNegative), a loop's representative induction counted as its start plus its iterations
  /// times its (positive) step.
  std::string whyMayBeNegative(const Poly &P);
  /// "3*%M*%lda + %pm" (for tests and messages).
  std::string str(const Poly &P) const;

private:
  struct Conjunct {
    const ir::Value *Guard = nullptr; ///< A scalar i1, or null for a bound.
    AffineTile Lhs, Rhs;              ///< Bound: Lhs < Rhs element-wise.
  };
  std::optional<std::vector<Conjunct>> conjunctsOf(const ir::Value *Mask);
  std::optional<AffineTile> compute(const ir::Value *V);
  std::optional<Poly> induction(const ir::Instruction &Phi);
  /// Whether the atom V is provably non-negative (Depth bounds the search).
  bool nonNegative(const ir::Value *V, unsigned Depth);
  std::string whyMayBeNegative(const Poly &P, unsigned Depth);
  unsigned atomId(const ir::Value *V);

  const ir::Function &F;
  const ir::DominatorTree &DT;
  std::vector<const ir::Value *> Atoms;
  std::unordered_map<const ir::Value *, unsigned> AtomIds;
  std::unordered_map<const ir::Value *, std::optional<AffineTile>> Memo;
  /// Per loop header: the induction phi others are expressed in, and its
  /// start and (constant) step.
  struct Representative {
    const ir::Instruction *Phi = nullptr;
    Poly Start;
    int64_t Step = 0;
  };
  std::map<const ir::BasicBlock *, std::optional<Representative>> Representatives;
};

} // namespace tritonc::analysis
