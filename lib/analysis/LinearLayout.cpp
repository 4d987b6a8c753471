//===- LinearLayout.cpp - Layouts as linear maps over GF(2) ---------------===//

#include "tritonc/analysis/LinearLayout.h"

#include "tritonc/support/Diagnostics.h"

#include <algorithm>
#include <array>
#include <bit>
#include <sstream>

namespace tritonc::analysis {

namespace {

bool isPowerOfTwo(int64_t X) { return X > 0 && (X & (X - 1)) == 0; }

int32_t log2Exact(int64_t X, const char *What) {
  if (!isPowerOfTwo(X))
    reportInternalError(std::string("LinearLayout: ") + What + " " + std::to_string(X) +
                        " is not a power of two");
  return std::countr_zero(static_cast<uint64_t>(X));
}

/// A row-echelon basis of bit vectors that remembers, for every stored
/// vector, which of the inserted vectors XOR to it. Solving M y = v this way
/// only ever uses the columns that were independent when inserted.
class XorBasis {
public:
  /// Inserts V (the vector whose "combination" is Combo); returns false if V
  /// was already in the span.
  bool insert(uint64_t V, uint64_t Combo) {
    for (int Bit = 63; Bit >= 0; --Bit) {
      if (!(V >> Bit & 1))
        continue;
      if (!Pivots[Bit].Vector) {
        Pivots[Bit] = {V, Combo};
        ++Rank;
        return true;
      }
      V ^= Pivots[Bit].Vector;
      Combo ^= Pivots[Bit].Combo;
    }
    return false;
  }

  /// The combination of inserted vectors that XORs to V, if V is in the span.
  std::optional<uint64_t> solve(uint64_t V) const {
    uint64_t Combo = 0;
    for (int Bit = 63; Bit >= 0; --Bit) {
      if (!(V >> Bit & 1))
        continue;
      if (!Pivots[Bit].Vector)
        return std::nullopt;
      V ^= Pivots[Bit].Vector;
      Combo ^= Pivots[Bit].Combo;
    }
    return Combo;
  }

  int32_t getRank() const { return Rank; }

private:
  struct Row {
    uint64_t Vector = 0;
    uint64_t Combo = 0;
  };
  std::array<Row, 64> Pivots{};
  int32_t Rank = 0;
};

XorBasis basisOf(const std::vector<uint64_t> &Columns) {
  XorBasis B;
  for (size_t J = 0; J < Columns.size(); ++J)
    B.insert(Columns[J], uint64_t(1) << J);
  return B;
}

} // namespace

LinearLayout::LinearLayout(std::vector<InDim> InDims, std::vector<OutDim> OutDims)
    : Ins(std::move(InDims)), Outs(std::move(OutDims)) {
  for (size_t I = 0; I < Outs.size(); ++I) {
    log2Exact(Outs[I].Size, "output dimension size");
    for (size_t J = 0; J < I; ++J)
      if (Outs[J].Name == Outs[I].Name)
        reportInternalError("LinearLayout: duplicate output dimension " + Outs[I].Name);
  }
  for (size_t I = 0; I < Ins.size(); ++I) {
    for (size_t J = 0; J < I; ++J)
      if (Ins[J].Name == Ins[I].Name)
        reportInternalError("LinearLayout: duplicate input dimension " + Ins[I].Name);
    for (const Basis &B : Ins[I].Bases) {
      if (B.size() != Outs.size())
        reportInternalError("LinearLayout: basis of " + Ins[I].Name +
                            " has the wrong number of coordinates");
      for (size_t O = 0; O < Outs.size(); ++O)
        if (B[O] < 0 || B[O] >= Outs[O].Size)
          reportInternalError("LinearLayout: basis of " + Ins[I].Name + " is out of range in " +
                              Outs[O].Name);
    }
  }
  if (getTotalInBits() > 63 || getTotalOutBits() > 63)
    reportInternalError("LinearLayout: more than 63 input or output bits");
}

LinearLayout LinearLayout::identity1D(int32_t Size, std::string InName, std::string OutName) {
  int32_t Bits = log2Exact(Size, "identity size");
  InDim In{std::move(InName), {}};
  for (int32_t I = 0; I < Bits; ++I)
    In.Bases.push_back({int32_t(1) << I});
  return LinearLayout({std::move(In)}, {{std::move(OutName), Size}});
}

LinearLayout LinearLayout::zeros1D(int32_t Size, std::string InName, std::string OutName,
                                   int32_t OutSize) {
  int32_t Bits = log2Exact(Size, "zeros size");
  InDim In{std::move(InName), std::vector<Basis>(Bits, Basis{0})};
  return LinearLayout({std::move(In)}, {{std::move(OutName), OutSize}});
}

int32_t LinearLayout::inIndex(const std::string &Name) const {
  for (size_t I = 0; I < Ins.size(); ++I)
    if (Ins[I].Name == Name)
      return static_cast<int32_t>(I);
  reportInternalError("LinearLayout: no input dimension " + Name);
}

int32_t LinearLayout::outIndex(const std::string &Name) const {
  for (size_t I = 0; I < Outs.size(); ++I)
    if (Outs[I].Name == Name)
      return static_cast<int32_t>(I);
  reportInternalError("LinearLayout: no output dimension " + Name);
}

std::vector<std::string> LinearLayout::getInDimNames() const {
  std::vector<std::string> Names;
  for (const InDim &D : Ins)
    Names.push_back(D.Name);
  return Names;
}

std::vector<std::string> LinearLayout::getOutDimNames() const {
  std::vector<std::string> Names;
  for (const OutDim &D : Outs)
    Names.push_back(D.Name);
  return Names;
}

bool LinearLayout::hasInDim(const std::string &Name) const {
  return std::any_of(Ins.begin(), Ins.end(), [&](const InDim &D) { return D.Name == Name; });
}

bool LinearLayout::hasOutDim(const std::string &Name) const {
  return std::any_of(Outs.begin(), Outs.end(), [&](const OutDim &D) { return D.Name == Name; });
}

int32_t LinearLayout::getInDimSizeLog2(const std::string &Name) const {
  return static_cast<int32_t>(Ins[inIndex(Name)].Bases.size());
}

int32_t LinearLayout::getInDimSize(const std::string &Name) const {
  return int32_t(1) << getInDimSizeLog2(Name);
}

int32_t LinearLayout::getOutDimSizeLog2(const std::string &Name) const {
  return std::countr_zero(static_cast<uint32_t>(getOutDimSize(Name)));
}

int32_t LinearLayout::getOutDimSize(const std::string &Name) const {
  return Outs[outIndex(Name)].Size;
}

int32_t LinearLayout::getTotalInBits() const {
  int32_t Bits = 0;
  for (const InDim &D : Ins)
    Bits += static_cast<int32_t>(D.Bases.size());
  return Bits;
}

int32_t LinearLayout::getTotalOutBits() const {
  int32_t Bits = 0;
  for (const OutDim &D : Outs)
    Bits += std::countr_zero(static_cast<uint32_t>(D.Size));
  return Bits;
}

const LinearLayout::Basis &LinearLayout::getBasis(const std::string &Name, int32_t Bit) const {
  const InDim &D = Ins[inIndex(Name)];
  if (Bit < 0 || Bit >= static_cast<int32_t>(D.Bases.size()))
    reportInternalError("LinearLayout: bit " + std::to_string(Bit) + " out of range in " + Name);
  return D.Bases[Bit];
}

int32_t LinearLayout::getBasis(const std::string &Name, int32_t Bit, const std::string &Out) const {
  return getBasis(Name, Bit)[outIndex(Out)];
}

uint64_t LinearLayout::flattenOut(const Basis &B) const {
  uint64_t Flat = 0;
  int32_t Shift = 0;
  for (size_t O = 0; O < Outs.size(); ++O) {
    Flat |= static_cast<uint64_t>(B[O]) << Shift;
    Shift += std::countr_zero(static_cast<uint32_t>(Outs[O].Size));
  }
  return Flat;
}

LinearLayout::Basis LinearLayout::unflattenOut(uint64_t Flat) const {
  Basis B(Outs.size());
  for (size_t O = 0; O < Outs.size(); ++O) {
    B[O] = static_cast<int32_t>(Flat & static_cast<uint64_t>(Outs[O].Size - 1));
    Flat >>= std::countr_zero(static_cast<uint32_t>(Outs[O].Size));
  }
  return B;
}

std::vector<uint64_t> LinearLayout::flatBases() const {
  std::vector<uint64_t> Flat;
  for (const InDim &D : Ins)
    for (const Basis &B : D.Bases)
      Flat.push_back(flattenOut(B));
  return Flat;
}

std::vector<int32_t> LinearLayout::apply(const std::vector<int32_t> &Inputs) const {
  if (Inputs.size() != Ins.size())
    reportInternalError("LinearLayout::apply: expected one value per input dimension");
  Basis Out(Outs.size(), 0);
  for (size_t I = 0; I < Ins.size(); ++I) {
    int64_t Size = int64_t(1) << Ins[I].Bases.size();
    if (Inputs[I] < 0 || Inputs[I] >= Size)
      reportInternalError("LinearLayout::apply: value " + std::to_string(Inputs[I]) +
                          " out of range for " + Ins[I].Name);
    for (size_t Bit = 0; Bit < Ins[I].Bases.size(); ++Bit)
      if (Inputs[I] >> Bit & 1)
        for (size_t O = 0; O < Outs.size(); ++O)
          Out[O] ^= Ins[I].Bases[Bit][O];
  }
  return Out;
}

DimValues LinearLayout::apply(const DimValues &Inputs) const {
  if (Inputs.size() != Ins.size())
    reportInternalError("LinearLayout::apply: every input dimension must be named once");
  std::vector<int32_t> Values(Ins.size(), 0);
  std::vector<bool> Seen(Ins.size(), false);
  for (const auto &[Name, Value] : Inputs) {
    int32_t I = inIndex(Name);
    if (Seen[I])
      reportInternalError("LinearLayout::apply: input dimension " + Name + " named twice");
    Seen[I] = true;
    Values[I] = Value;
  }
  std::vector<int32_t> Out = apply(Values);
  DimValues Result;
  for (size_t O = 0; O < Outs.size(); ++O)
    Result.emplace_back(Outs[O].Name, Out[O]);
  return Result;
}

uint64_t LinearLayout::applyFlat(uint64_t Input) const {
  int32_t Bits = getTotalInBits();
  if (Input >> Bits)
    reportInternalError("LinearLayout::applyFlat: input out of range");
  uint64_t Out = 0;
  std::vector<uint64_t> Flat = flatBases();
  for (int32_t Bit = 0; Bit < Bits; ++Bit)
    if (Input >> Bit & 1)
      Out ^= Flat[Bit];
  return Out;
}

DimValues LinearLayout::getFreeVariableMasks() const {
  DimValues Masks;
  for (const InDim &D : Ins) {
    int32_t Mask = 0;
    for (size_t Bit = 0; Bit < D.Bases.size(); ++Bit)
      if (std::all_of(D.Bases[Bit].begin(), D.Bases[Bit].end(), [](int32_t C) { return C == 0; }))
        Mask |= int32_t(1) << Bit;
    Masks.emplace_back(D.Name, Mask);
  }
  return Masks;
}

bool LinearLayout::isSurjective() const {
  return basisOf(flatBases()).getRank() == getTotalOutBits();
}

bool LinearLayout::isInjective() const {
  return basisOf(flatBases()).getRank() == getTotalInBits();
}

LinearLayout operator*(const LinearLayout &A, const LinearLayout &B) {
  using InDim = LinearLayout::InDim;
  using OutDim = LinearLayout::OutDim;
  std::vector<OutDim> Outs = A.Outs;
  for (const OutDim &D : B.Outs) {
    if (A.hasOutDim(D.Name))
      Outs[A.outIndex(D.Name)].Size *= D.Size;
    else
      Outs.push_back(D);
  }
  // Where B's coordinates go in the product, and how far they shift.
  std::vector<size_t> BPos(B.Outs.size());
  std::vector<int32_t> BShift(B.Outs.size(), 0);
  for (size_t O = 0; O < B.Outs.size(); ++O) {
    const std::string &Name = B.Outs[O].Name;
    for (size_t P = 0; P < Outs.size(); ++P)
      if (Outs[P].Name == Name)
        BPos[O] = P;
    if (A.hasOutDim(Name))
      BShift[O] = A.getOutDimSizeLog2(Name);
  }
  auto FromA = [&](const LinearLayout::Basis &Bs) {
    LinearLayout::Basis R(Outs.size(), 0);
    std::copy(Bs.begin(), Bs.end(), R.begin());
    return R;
  };
  auto FromB = [&](const LinearLayout::Basis &Bs) {
    LinearLayout::Basis R(Outs.size(), 0);
    for (size_t O = 0; O < Bs.size(); ++O)
      R[BPos[O]] = Bs[O] << BShift[O];
    return R;
  };
  std::vector<InDim> Ins;
  for (const InDim &D : A.Ins) {
    InDim N{D.Name, {}};
    for (const auto &Bs : D.Bases)
      N.Bases.push_back(FromA(Bs));
    Ins.push_back(std::move(N));
  }
  for (const InDim &D : B.Ins) {
    size_t Pos = Ins.size();
    for (size_t I = 0; I < A.Ins.size(); ++I)
      if (A.Ins[I].Name == D.Name)
        Pos = I;
    if (Pos == Ins.size())
      Ins.push_back({D.Name, {}});
    for (const auto &Bs : D.Bases)
      Ins[Pos].Bases.push_back(FromB(Bs));
  }
  return LinearLayout(std::move(Ins), std::move(Outs));
}

LinearLayout LinearLayout::compose(const LinearLayout &Outer, const LinearLayout &Inner) {
  for (const OutDim &D : Inner.Outs) {
    if (!Outer.hasInDim(D.Name) || D.Size > Outer.getInDimSize(D.Name))
      reportInternalError("LinearLayout::compose: inner output " + D.Name +
                          " is not an outer input of at least its size");
  }
  std::vector<InDim> NewIns;
  for (const InDim &D : Inner.Ins) {
    InDim N{D.Name, {}};
    for (const Basis &B : D.Bases) {
      Basis Image(Outer.Outs.size(), 0);
      for (size_t O = 0; O < Inner.Outs.size(); ++O) {
        const InDim &OuterIn = Outer.Ins[Outer.inIndex(Inner.Outs[O].Name)];
        for (size_t Bit = 0; Bit < OuterIn.Bases.size(); ++Bit)
          if (B[O] >> Bit & 1)
            for (size_t P = 0; P < Image.size(); ++P)
              Image[P] ^= OuterIn.Bases[Bit][P];
      }
      N.Bases.push_back(std::move(Image));
    }
    NewIns.push_back(std::move(N));
  }
  return LinearLayout(std::move(NewIns), Outer.Outs);
}

std::optional<LinearLayout> LinearLayout::invertAndCompose(const LinearLayout &Outer) const {
  for (const OutDim &D : Outs)
    if (!Outer.hasOutDim(D.Name) || D.Size > Outer.getOutDimSize(D.Name))
      reportInternalError("LinearLayout::invertAndCompose: output " + D.Name +
                          " is not an output of the other layout of at least its size");
  XorBasis Solver = basisOf(Outer.flatBases());
  std::vector<OutDim> NewOuts;
  for (const InDim &D : Outer.Ins)
    NewOuts.push_back({D.Name, int32_t(1) << D.Bases.size()});
  std::vector<InDim> NewIns;
  for (const InDim &D : Ins) {
    InDim N{D.Name, {}};
    for (const Basis &B : D.Bases) {
      Basis InOuter(Outer.Outs.size(), 0);
      for (size_t O = 0; O < Outs.size(); ++O)
        InOuter[Outer.outIndex(Outs[O].Name)] = B[O];
      std::optional<uint64_t> Combo = Solver.solve(Outer.flattenOut(InOuter));
      if (!Combo)
        return std::nullopt;
      // Split the flat combination of Outer's input bits per input dimension.
      Basis Pre(NewOuts.size(), 0);
      uint64_t Rest = *Combo;
      for (size_t I = 0; I < Outer.Ins.size(); ++I) {
        size_t Bits = Outer.Ins[I].Bases.size();
        Pre[I] = static_cast<int32_t>(Rest & ((uint64_t(1) << Bits) - 1));
        Rest >>= Bits;
      }
      N.Bases.push_back(std::move(Pre));
    }
    NewIns.push_back(std::move(N));
  }
  return LinearLayout(std::move(NewIns), std::move(NewOuts));
}

std::optional<LinearLayout> LinearLayout::pseudoinvert() const {
  if (!isSurjective())
    return std::nullopt;
  LinearLayout Identity;
  for (const OutDim &D : Outs)
    Identity *= identity1D(D.Size, D.Name, D.Name);
  return Identity.invertAndCompose(*this);
}

std::optional<LinearLayout> LinearLayout::invert() const {
  if (!isInvertible())
    return std::nullopt;
  return pseudoinvert();
}

LinearLayout LinearLayout::transposeOuts(const std::vector<std::string> &NewOrder) const {
  if (NewOrder.size() != Outs.size())
    reportInternalError("LinearLayout::transposeOuts: not a permutation");
  std::vector<int32_t> Perm;
  std::vector<OutDim> NewOuts;
  for (const std::string &Name : NewOrder) {
    int32_t O = outIndex(Name);
    if (std::find(Perm.begin(), Perm.end(), O) != Perm.end())
      reportInternalError("LinearLayout::transposeOuts: " + Name + " named twice");
    Perm.push_back(O);
    NewOuts.push_back(Outs[O]);
  }
  std::vector<InDim> NewIns = Ins;
  for (InDim &D : NewIns)
    for (Basis &B : D.Bases) {
      Basis Old = B;
      for (size_t P = 0; P < Perm.size(); ++P)
        B[P] = Old[Perm[P]];
    }
  return LinearLayout(std::move(NewIns), std::move(NewOuts));
}

LinearLayout LinearLayout::transposeIns(const std::vector<std::string> &NewOrder) const {
  if (NewOrder.size() != Ins.size())
    reportInternalError("LinearLayout::transposeIns: not a permutation");
  std::vector<InDim> NewIns;
  for (const std::string &Name : NewOrder)
    NewIns.push_back(Ins[inIndex(Name)]);
  // The constructor rejects a name given twice (a duplicate input dimension).
  return LinearLayout(std::move(NewIns), Outs);
}

LinearLayout LinearLayout::reshapeOuts(const std::vector<OutDim> &NewOuts) const {
  LinearLayout Target({}, NewOuts);
  if (Target.getTotalOutBits() != getTotalOutBits())
    reportInternalError("LinearLayout::reshapeOuts: total size changes");
  std::vector<InDim> NewIns = Ins;
  for (InDim &D : NewIns)
    for (Basis &B : D.Bases)
      B = Target.unflattenOut(flattenOut(B));
  return LinearLayout(std::move(NewIns), NewOuts);
}

LinearLayout
LinearLayout::reshapeIns(const std::vector<std::pair<std::string, int32_t>> &NewInSizes) const {
  std::vector<Basis> All;
  for (const InDim &D : Ins)
    All.insert(All.end(), D.Bases.begin(), D.Bases.end());
  std::vector<InDim> NewIns;
  size_t Next = 0;
  for (const auto &[Name, Size] : NewInSizes) {
    int32_t Bits = log2Exact(Size, "input dimension size");
    if (Next + Bits > All.size())
      reportInternalError("LinearLayout::reshapeIns: total size changes");
    NewIns.push_back({Name, std::vector<Basis>(All.begin() + Next, All.begin() + Next + Bits)});
    Next += Bits;
  }
  if (Next != All.size())
    reportInternalError("LinearLayout::reshapeIns: total size changes");
  return LinearLayout(std::move(NewIns), Outs);
}

LinearLayout LinearLayout::sublayout(const std::vector<std::string> &InNames,
                                     const std::vector<std::string> &OutNames) const {
  std::vector<int32_t> Keep;
  std::vector<OutDim> NewOuts;
  for (const std::string &Name : OutNames) {
    Keep.push_back(outIndex(Name));
    NewOuts.push_back(Outs[Keep.back()]);
  }
  std::vector<InDim> NewIns;
  for (const std::string &Name : InNames) {
    InDim N{Name, {}};
    for (const Basis &B : Ins[inIndex(Name)].Bases) {
      Basis Kept;
      for (int32_t O : Keep)
        Kept.push_back(B[O]);
      N.Bases.push_back(std::move(Kept));
    }
    NewIns.push_back(std::move(N));
  }
  return LinearLayout(std::move(NewIns), std::move(NewOuts));
}

LinearLayout LinearLayout::renameInDim(const std::string &From, const std::string &To) const {
  std::vector<InDim> NewIns = Ins;
  NewIns[inIndex(From)].Name = To;
  return LinearLayout(std::move(NewIns), Outs);
}

LinearLayout LinearLayout::renameOutDim(const std::string &From, const std::string &To) const {
  std::vector<OutDim> NewOuts = Outs;
  NewOuts[outIndex(From)].Name = To;
  return LinearLayout(Ins, std::move(NewOuts));
}

LinearLayout LinearLayout::removeZeroBases(const std::string &InName) const {
  std::vector<InDim> NewIns = Ins;
  std::vector<Basis> &Bases = NewIns[inIndex(InName)].Bases;
  std::erase_if(Bases, [](const Basis &B) {
    return std::all_of(B.begin(), B.end(), [](int32_t C) { return C == 0; });
  });
  return LinearLayout(std::move(NewIns), Outs);
}

std::string LinearLayout::str() const {
  std::ostringstream OS;
  for (const InDim &D : Ins) {
    OS << " - " << D.Name << ":";
    if (D.Bases.empty())
      OS << " (size 1)";
    for (const Basis &B : D.Bases) {
      OS << " [";
      for (size_t O = 0; O < B.size(); ++O)
        OS << (O ? "," : "") << B[O];
      OS << "]";
    }
    OS << "\n";
  }
  OS << "where out dims are: [";
  for (size_t O = 0; O < Outs.size(); ++O)
    OS << (O ? ", " : "") << Outs[O].Name << " (size " << Outs[O].Size << ")";
  OS << "]\n";
  return OS.str();
}

} // namespace tritonc::analysis
