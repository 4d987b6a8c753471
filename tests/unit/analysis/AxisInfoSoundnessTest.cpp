//===- AxisInfoSoundnessTest.cpp - Axis-info claims hold on real values ---===//
//
// A small concrete evaluator runs functions on random arguments that satisfy
// their `multipleof`/`aligned` attributes and checks, for every integer and
// pointer value each execution produces, every claim of the analysis
// (contiguity, divisibility, constancy, constants, non-negativity). The
// functions are the bundled kernels (with and without the default
// pipeline), hand-written snippets, and randomly generated programs. Values
// the evaluator does not model (loads, floats converted to integers, ...)
// get random elements that respect only the constancy the analysis claims
// (true for any element-wise op of equal inputs).
//
//===----------------------------------------------------------------------===//
#include "AxisInfoTestUtil.h"

#include "tritonc/driver/Compiler.h"

#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <sstream>

using namespace tritonc;
using namespace tritonc::ir;
using namespace tritonc::analysis;
using namespace tritonc::analysis::test;

namespace {

/// Statistics, so that the tests can insist that they checked something.
struct Stats {
  uint64_t ValuesChecked = 0, RunsCompleted = 0, RunsOverflowed = 0;
} Counters;

struct Tile {
  Shape Dims; // {1} for scalars
  std::vector<int64_t> Data;
};

Shape dimsOf(const Type *T) { return T->isTile() ? T->getShape() : Shape{1}; }

std::vector<int64_t> strides(const Shape &S) {
  std::vector<int64_t> St(S.size(), 1);
  for (int I = static_cast<int>(S.size()) - 2; I >= 0; --I)
    St[I] = St[I + 1] * S[I + 1];
  return St;
}

/// Runs one function; records a failure message for the first wrong claim.
class Evaluator {
public:
  Evaluator(const Function &F, const AxisInfoAnalysis &AI, std::mt19937_64 &Rng)
      : F(F), AI(AI), Rng(Rng) {}

  /// Returns an empty string when every claim held.
  std::string run() {
    for (unsigned I = 0; I < F.getNumArgs(); ++I)
      seedArg(*F.getArg(I));
    const BasicBlock *BB = F.getEntryBlock(), *Pred = nullptr;
    for (unsigned Steps = 0; BB && Steps < 64 && Failure.empty(); ++Steps) {
      // Phis read their inputs all at once.
      std::vector<std::pair<const Instruction *, Tile>> PhiVals;
      for (const auto &I : BB->instructions())
        if (I->getOpcode() == Opcode::Phi && tracked(I->getType()))
          PhiVals.emplace_back(I.get(), value(I->getIncomingValueFor(Pred), I->getType()));
      for (auto &[I, T] : PhiVals)
        define(*I, std::move(T));
      const BasicBlock *Next = nullptr;
      for (const auto &IPtr : BB->instructions()) {
        const Instruction &I = *IPtr;
        if (I.getOpcode() == Opcode::Phi)
          continue;
        if (I.getOpcode() == Opcode::Br) {
          Next = I.successors()[0];
          break;
        }
        if (I.getOpcode() == Opcode::CondBr) {
          bool C = Vals.count(I.getOperand(0)) ? value(I.getOperand(0), nullptr).Data[0] != 0
                                               : (Rng() & 1);
          Next = I.successors()[C ? 0 : 1];
          break;
        }
        if (I.getOpcode() == Opcode::Ret)
          break;
        if (!I.getType()->isVoid() && tracked(I.getType())) {
          Tile V = eval(I);
          if (Overflowed) {
            ++Counters.RunsOverflowed;
            return Failure;
          }
          define(I, std::move(V));
        }
        if (!Failure.empty())
          break;
      }
      Pred = BB;
      BB = Next;
    }
    ++Counters.RunsCompleted;
    return Failure;
  }

private:
  static bool tracked(const Type *T) { return T->isIntOrIntTile() || T->isPointerOrPointerTile(); }

  int64_t pick(int64_t Lo, int64_t Hi) {
    return std::uniform_int_distribution<int64_t>(Lo, Hi)(Rng);
  }

  void seedArg(const Argument &A) {
    const Type *T = A.getType();
    if (T->isIntOrIntTile()) {
      int64_t M = std::max<int64_t>(1, A.attrs().MultipleOf);
      int64_t V = M * pick(-8, 40);
      if (T->getIntBits() < 32)
        V = normalizeInt(V, T->getIntBits());
      Vals[&A] = Tile{{1}, {V}};
    } else if (T->isPointerOrPointerTile()) {
      int64_t Al = std::max<int64_t>(1, A.attrs().Aligned);
      Vals[&A] = Tile{{1}, {Al * pick(1, 1 << 16)}};
    }
  }

  Tile value(const Value *V, const Type *Hint) {
    if (!V)
      return Tile{{1}, {0}};
    if (const auto *C = asConstant(const_cast<Value *>(V)))
      return Tile{{1}, {C->isUndef() ? 0 : C->getInt()}};
    auto It = Vals.find(V);
    if (It != Vals.end())
      return It->second;
    // Not evaluated (a float, or a value of code that did not run).
    return randomTile(*V);
  }

  Tile randomTile(const Value &V) {
    const Type *T = V.getType();
    Tile R{dimsOf(T), {}};
    int64_t N = 1;
    for (int64_t D : R.Dims)
      N *= D;
    R.Data.resize(N);
    for (auto &E : R.Data)
      E = pick(-1000, 1000);
    if (T->isIntOrIntTile())
      for (auto &E : R.Data)
        E = normalizeInt(E, T->getIntBits());
    // Respect the claimed constancy: copy each block's first element.
    const AxisInfo &Info = AI.get(&V);
    auto St = strides(R.Dims);
    for (unsigned D = 0; D < R.Dims.size() && D < Info.rank(); ++D)
      for (int64_t I = 0; I < N; ++I) {
        int64_t Idx = (I / St[D]) % R.Dims[D];
        int64_t Src = I - (Idx % Info.Constancy[D]) * St[D];
        R.Data[I] = R.Data[Src];
      }
    return R;
  }

  void define(const Instruction &I, Tile T) {
    check(I, T);
    Vals[&I] = std::move(T);
  }

  void check(const Value &V, const Tile &T) {
    ++Counters.ValuesChecked;
    const AxisInfo &Info = AI.get(&V);
    const Type *Ty = V.getType();
    int64_t Step = Ty->isPointerOrPointerTile() ? Ty->getPointee()->getScalarSizeInBytes() : 1;
    auto St = strides(T.Dims);
    int64_t N = static_cast<int64_t>(T.Data.size());
    auto Fail = [&](const std::string &What, int64_t At) {
      if (!Failure.empty())
        return;
      std::ostringstream OS;
      OS << printInstruction(*static_cast<const Instruction *>(&V)) << ": " << What
         << " fails at flat index " << At << " (claim " << Info.str() << ")\n  values:";
      for (int64_t I = 0; I < N && I < 64; ++I)
        OS << " " << T.Data[I];
      Failure = OS.str();
    };
    if (Info.rank() != T.Dims.size())
      return Fail("rank", 0);
    for (int64_t I = 0; I < N; ++I) {
      int64_t X = T.Data[I];
      if (Info.Constant && X != *Info.Constant)
        return Fail("constant", I);
      if (Info.NonNegative && X < 0)
        return Fail("non-negative", I);
      for (unsigned D = 0; D < T.Dims.size(); ++D) {
        int64_t Idx = (I / St[D]) % T.Dims[D];
        int64_t C = Info.Contiguity[D], K = Info.Constancy[D], Div = Info.Divisibility[D];
        if (T.Dims[D] % C || T.Dims[D] % K)
          return Fail("block size divides the dimension", I);
        if (Idx % C == 0) {
          if (X % Div != 0)
            return Fail("divisibility along " + std::to_string(D), I);
          for (int64_t J = 1; J < C; ++J)
            if (T.Data[I + J * St[D]] != X + J * Step)
              return Fail("contiguity along " + std::to_string(D), I);
        }
        if (Idx % K == 0)
          for (int64_t J = 1; J < K; ++J)
            if (T.Data[I + J * St[D]] != X)
              return Fail("constancy along " + std::to_string(D), I);
      }
    }
  }

  static int64_t wrap(int64_t V, const Type *T) {
    return T->isIntOrIntTile() ? normalizeInt(V, T->getIntBits()) : V;
  }

  Tile eval(const Instruction &I) {
    const Type *T = I.getType();
    Shape Dims = dimsOf(T);
    int64_t N = 1;
    for (int64_t D : Dims)
      N *= D;
    Tile R{Dims, std::vector<int64_t>(N, 0)};
    auto Op = [&](unsigned K) { return value(I.getOperand(K), I.getOperand(K)->getType()); };
    auto Elem = [&](const Tile &X, int64_t J) {
      return X.Data.size() == 1 ? X.Data[0] : X.Data[J];
    };
    switch (I.getOpcode()) {
    case Opcode::MakeRange:
      for (int64_t J = 0; J < N; ++J)
        R.Data[J] = I.RangeStart + J;
      return R;
    case Opcode::Splat: {
      Tile A = Op(0);
      for (auto &E : R.Data)
        E = A.Data[0];
      return R;
    }
    case Opcode::Reshape: {
      Tile A = Op(0);
      R.Data = A.Data;
      return R;
    }
    case Opcode::Broadcast: {
      Tile A = Op(0);
      auto SO = strides(Dims), SI = strides(A.Dims);
      for (int64_t J = 0; J < N; ++J) {
        int64_t Src = 0;
        for (unsigned D = 0; D < Dims.size(); ++D) {
          int64_t Idx = (J / SO[D]) % Dims[D];
          Src += (A.Dims[D] == 1 ? 0 : Idx) * SI[D];
        }
        R.Data[J] = A.Data[Src];
      }
      return R;
    }
    case Opcode::Trans: {
      Tile A = Op(0);
      for (int64_t Row = 0; Row < Dims[0]; ++Row)
        for (int64_t Col = 0; Col < Dims[1]; ++Col)
          R.Data[Row * Dims[1] + Col] = A.Data[Col * A.Dims[1] + Row];
      return R;
    }
    case Opcode::GetProgramId:
      return Tile{{1}, {pick(0, 9)}};
    case Opcode::GetNumPrograms:
      return Tile{{1}, {pick(1, 9)}};
    case Opcode::GEP: {
      Tile P = Op(0), O = Op(1);
      int64_t Es = T->getPointee()->getScalarSizeInBytes();
      for (int64_t J = 0; J < N; ++J)
        R.Data[J] = Elem(P, J) + Elem(O, J) * Es;
      return R;
    }
    case Opcode::Select: {
      Tile C = Op(0), A = Op(1), B = Op(2);
      for (int64_t J = 0; J < N; ++J)
        R.Data[J] = Elem(C, J) ? Elem(A, J) : Elem(B, J);
      return R;
    }
    case Opcode::ICmp: {
      Tile A = Op(0), B = Op(1);
      unsigned Bits = I.getOperand(0)->getType()->isIntOrIntTile()
                          ? I.getOperand(0)->getType()->getIntBits()
                          : 64;
      for (int64_t J = 0; J < N; ++J) {
        int64_t X = Elem(A, J), Y = Elem(B, J);
        uint64_t M = Bits >= 64 ? ~0ull : ((1ull << Bits) - 1);
        uint64_t UX = uint64_t(X) & M, UY = uint64_t(Y) & M;
        bool V = false;
        switch (I.Predicate) {
        case CmpPredicate::EQ:
          V = X == Y;
          break;
        case CmpPredicate::NE:
          V = X != Y;
          break;
        case CmpPredicate::SLT:
          V = X < Y;
          break;
        case CmpPredicate::SLE:
          V = X <= Y;
          break;
        case CmpPredicate::SGT:
          V = X > Y;
          break;
        case CmpPredicate::SGE:
          V = X >= Y;
          break;
        case CmpPredicate::ULT:
          V = UX < UY;
          break;
        case CmpPredicate::ULE:
          V = UX <= UY;
          break;
        case CmpPredicate::UGT:
          V = UX > UY;
          break;
        case CmpPredicate::UGE:
          V = UX >= UY;
          break;
        default:
          break;
        }
        R.Data[J] = V;
      }
      return R;
    }
    case Opcode::SExt:
    case Opcode::Trunc:
    case Opcode::ZExt:
    case Opcode::PtrToInt:
    case Opcode::IntToPtr:
    case Opcode::Bitcast: {
      const Type *ST = I.getOperand(0)->getType();
      if (!tracked(ST))
        return randomTile(I);
      Tile A = Op(0);
      for (int64_t J = 0; J < N; ++J) {
        int64_t X = Elem(A, J);
        if (I.getOpcode() == Opcode::SExt && ST->getIntBits() == 1)
          X = X ? -1 : 0;
        if (I.getOpcode() == Opcode::ZExt && ST->getIntBits() < 64)
          X = int64_t(uint64_t(X) & ((1ull << ST->getIntBits()) - 1));
        R.Data[J] = wrap(X, T);
      }
      return R;
    }
    case Opcode::IAbs: {
      Tile A = Op(0);
      for (int64_t J = 0; J < N; ++J)
        R.Data[J] = wrap(A.Data[J] < 0 ? -A.Data[J] : A.Data[J], T);
      if (T->getIntBits() > 1)
        for (int64_t X : A.Data)
          noteOverflow(X < 0 ? -(__int128)X : (__int128)X, T->getIntBits());
      return R;
    }
    default:
      break;
    }
    if (I.getCategory() != OpCategory::Binary || !T->isIntOrIntTile())
      return randomTile(I);
    Tile A = Op(0), B = Op(1);
    int64_t Bits = T->getIntBits();
    uint64_t Mask = Bits >= 64 ? ~0ull : ((1ull << Bits) - 1);
    for (int64_t J = 0; J < N; ++J) {
      int64_t X = Elem(A, J), Y = Elem(B, J);
      uint64_t UX = uint64_t(X) & Mask, UY = uint64_t(Y) & Mask;
      int64_t V = 0;
      switch (I.getOpcode()) {
      case Opcode::Add:
        V = int64_t(uint64_t(X) + uint64_t(Y));
        noteOverflow((__int128)X + Y, Bits);
        break;
      case Opcode::Sub:
        V = int64_t(uint64_t(X) - uint64_t(Y));
        noteOverflow((__int128)X - Y, Bits);
        break;
      case Opcode::Mul:
        V = int64_t(uint64_t(X) * uint64_t(Y));
        noteOverflow((__int128)X * Y, Bits);
        break;
      case Opcode::SDiv:
        V = (Y == 0 || Y == -1) ? 0 : X / Y;
        break;
      case Opcode::SRem:
        V = (Y == 0 || Y == -1) ? 0 : X % Y;
        break;
      case Opcode::UDiv:
        V = UY == 0 ? 0 : int64_t(UX / UY);
        break;
      case Opcode::URem:
        V = UY == 0 ? 0 : int64_t(UX % UY);
        break;
      case Opcode::Shl:
        V = (Y < 0 || Y >= Bits) ? 0 : int64_t(uint64_t(X) << Y);
        break;
      case Opcode::LShr:
        V = (Y < 0 || Y >= Bits) ? 0 : int64_t(UX >> Y);
        break;
      case Opcode::AShr:
        V = (Y < 0 || Y >= Bits) ? (X < 0 ? -1 : 0) : (X >> Y);
        break;
      case Opcode::And:
        V = X & Y;
        break;
      case Opcode::Or:
        V = X | Y;
        break;
      case Opcode::Xor:
        V = X ^ Y;
        break;
      case Opcode::SMin:
        V = std::min(X, Y);
        break;
      case Opcode::SMax:
        V = std::max(X, Y);
        break;
      case Opcode::UMin:
        V = UX < UY ? X : Y;
        break;
      case Opcode::UMax:
        V = UX > UY ? X : Y;
        break;
      default:
        return randomTile(I);
      }
      R.Data[J] = wrap(V, T);
    }
    return R;
  }

  /// The analysis assumes that add/sub/mul do not overflow (signed); a run
  /// that overflows proves nothing and stops.
  void noteOverflow(__int128 Exact, int64_t Bits) {
    if (Bits >= 2 && Bits <= 64) {
      __int128 Max = ((__int128)1 << (Bits - 1)) - 1;
      if (Exact > Max || Exact < -Max - 1)
        Overflowed = true;
    }
  }

  const Function &F;
  const AxisInfoAnalysis &AI;
  std::mt19937_64 &Rng;
  bool Overflowed = false;
  std::map<const Value *, Tile> Vals;
  std::string Failure;
};

/// Runs every function of M Runs times; returns the first failure.
std::string checkModule(const Module &M, unsigned Runs, uint64_t Seed) {
  std::mt19937_64 Rng(Seed);
  for (const auto &F : M.functions()) {
    if (F->blocks().empty())
      continue;
    AxisInfoAnalysis AI(*F);
    for (unsigned R = 0; R < Runs; ++R) {
      std::string Fail = Evaluator(*F, AI, Rng).run();
      if (!Fail.empty())
        return "@" + F->getName() + ": " + Fail + "\n" + printFunction(*F).substr(0, 6000);
    }
  }
  return "";
}

/// From CMake (not from __FILE__, which a compiler cache may have made
/// relative to another folder).
std::string kernelsDir() { return TRITONC_KERNELS_DIR; }

TEST(AxisInfoSoundness, BundledKernels) {
  unsigned Compiled = 0;
  for (const auto &Entry : std::filesystem::directory_iterator(kernelsDir())) {
    if (Entry.path().extension() != ".tc")
      continue;
    for (bool Optimize : {true, false}) {
      driver::CompileOptions Opts;
      Opts.UsePipelineDefault = Optimize;
      Opts.Pipeline = "";
      driver::CompileResult R = driver::compileFile(Entry.path().string(), Opts);
      if (!R.ok() || !R.module())
        continue; // kernels with tuning lists need a configuration
      ++Compiled;
      EXPECT_EQ(checkModule(*R.module(), 40, Compiled), "") << Entry.path();
    }
  }
  EXPECT_GE(Compiled, 10u);
}

// Hand-written patterns the back end cares about.
TEST(AxisInfoSoundness, Snippets) {
  const char *Text =
      R"(define kernel void @t(f32* %X aligned(32), i32 %ldx multipleof(8), i32 %n multipleof(16), i32 %k) {
entry:
  %pid = get_program_id 0 : i32
  %base = mul %pid, i32 32 : i32
  %r = make_range 0, 32 : i32<32>
  %bs = splat %base : i32<32>
  %rm = add %bs, %r : i32<32>
  %k1 = splat i32 4 : i32<32>
  %q = sdiv %rm, %k1 : i32<32>
  %k2 = splat i32 3 : i32<32>
  %q2 = lshr %rm, %k2 : i32<32>
  %k3 = splat i32 8 : i32<32>
  %m = srem %rm, %k3 : i32<32>
  %k4 = splat i32 -8 : i32<32>
  %mm = and %rm, %k4 : i32<32>
  %k5 = splat i32 15 : i32<32>
  %ml = and %rm, %k5 : i32<32>
  %r2 = make_range 3, 35 : i32<32>
  %k6 = splat i32 4 : i32<32>
  %q3 = sdiv %r2, %k6 : i32<32>
  %k7 = splat i32 4 : i32<32>
  %m3 = urem %r2, %k7 : i32<32>
  %ns = splat %n : i32<32>
  %mask = icmp slt %rm, %ns : i1<32>
  %mask2 = icmp sgt %ns, %r2 : i1<32>
  %ks = splat %k : i32<32>
  %neg = sub %ks, %r : i32<32>
  %k8 = splat i32 4 : i32<32>
  %nq = sdiv %neg, %k8 : i32<32>
  %k9 = splat i32 4 : i32<32>
  %nr = srem %neg, %k9 : i32<32>
  %k10 = splat i32 2 : i32<32>
  %na = ashr %neg, %k10 : i32<32>
  %k11 = splat i32 2 : i32<32>
  %nl = lshr %neg, %k11 : i32<32>
  %k12 = splat i32 4 : i32<32>
  %nu = udiv %neg, %k12 : i32<32>
  %z = zext %neg : i64<32>
  %tr = trunc %neg : i8<32>
  %sel = select %mask, %rm, %ns : i32<32>
  %c = reshape %rm : i32<32,1>
  %l = splat %ldx : i32<32,1>
  %cl = mul %c, %l : i32<32,1>
  %xs = splat %X : f32*<32,1>
  %p0 = gep %xs, %cl : f32*<32,1>
  %row = reshape %r : i32<1,32>
  %pb = broadcast %p0 : f32*<32,32>
  %rb = broadcast %row : i32<32,32>
  %px = gep %pb, %rb : f32*<32,32>
  %pt = trans %px : f32*<32,32>
  %flat = reshape %px : f32*<1024>
  %half = reshape %rb : i32<64,16>
  %ai = ptrtoint %px : i64<32,32>
  br ^loop
loop:
  %i = phi [i32 0, ^entry], [%i1, ^loop] : i32
  %pa = phi [%px, ^entry], [%pn, ^loop] : f32*<32,32>
  %off = phi [%rm, ^entry], [%offn, ^loop] : i32<32>
  %st = splat i32 16 : i32<32,32>
  %pn = gep %pa, %st : f32*<32,32>
  %s32 = splat i32 32 : i32<32>
  %offn = add %off, %s32 : i32<32>
  %i1 = add %i, i32 1 : i32
  %cnd = icmp slt %i1, i32 5 : i1
  cond_br %cnd, ^loop, ^exit
exit:
  ret
}
)";
  auto P = parse(Text);
  ASSERT_TRUE(P->M) << P->Errors;
  EXPECT_EQ(checkModule(*P->M, 300, 7), "");
}

//===----------------------------------------------------------------------===//
// Random programs
//===----------------------------------------------------------------------===//

/// Writes random straight-line code and a loop over int/pointer tiles.
class Generator {
public:
  explicit Generator(uint64_t Seed) : Rng(Seed) {}

  std::string function() {
    OS << "define kernel void @g(i32 %a0 multipleof(" << pow2(0, 6)
       << "), i32 %a1, i64 %a2 multipleof(" << pow2(0, 5) << "), f32* %p0 aligned(" << pow2(0, 5)
       << "), i8* %p1 aligned(" << pow2(0, 4) << "), f16* %p2 aligned(" << pow2(0, 5)
       << ")) {\nentry:\n";
    Pool = {{"%a0", "i32"},  {"%a1", "i32"}, {"%a2", "i64"},
            {"%p0", "f32*"}, {"%p1", "i8*"}, {"%p2", "f16*"}};
    emit("get_program_id 0", "i32");
    for (int I = 0; I < 3; ++I)
      makeRange();
    for (int I = 0; I < 30; ++I)
      step();
    // A loop carrying a tile.
    std::string Carried = pickOfShape(true);
    std::string Ty = typeOf(Carried);
    OS << "  br ^loop\nloop:\n";
    OS << "  %it = phi [i32 0, ^entry], [%it1, ^loop] : i32\n";
    OS << "  %car = phi [" << Carried << ", ^entry], [%carn, ^loop] : " << Ty << "\n";
    Pool.push_back({"%car", Ty});
    for (int I = 0; I < 12; ++I)
      step();
    std::string Inc = operandLike(Ty);
    bool IsPtr = Ty.find('*') != std::string::npos;
    if (IsPtr)
      OS << "  %carn = gep %car, " << Inc << " : " << Ty << "\n";
    else
      OS << "  %carn = add %car, " << Inc << " : " << Ty << "\n";
    OS << "  %it1 = add %it, i32 1 : i32\n  %c = icmp slt %it1, i32 4 : i1\n  cond_br %c, ^loop, "
          "^exit\n"
       << "exit:\n  ret\n}\n";
    return OS.str();
  }

private:
  struct Val {
    std::string Name, Ty;
  };

  int64_t pick(int64_t Lo, int64_t Hi) {
    return std::uniform_int_distribution<int64_t>(Lo, Hi)(Rng);
  }
  int64_t pow2(int Lo, int Hi) { return int64_t(1) << pick(Lo, Hi); }

  static std::string elemOf(const std::string &Ty) { return Ty.substr(0, Ty.find('<')); }
  static std::string shapeOf(const std::string &Ty) {
    auto P = Ty.find('<');
    return P == std::string::npos ? "" : Ty.substr(P);
  }
  static bool isPtr(const std::string &Ty) { return Ty.find('*') != std::string::npos; }
  std::string typeOf(const std::string &Name) {
    for (auto &V : Pool)
      if (V.Name == Name)
        return V.Ty;
    return "i32";
  }

  std::string emit(const std::string &Body, const std::string &Ty) {
    std::string Name = "%v" + std::to_string(Counter++);
    OS << "  " << Name << " = " << Body << " : " << Ty << "\n";
    Pool.push_back({Name, Ty});
    return Name;
  }

  void makeRange() {
    static const int64_t Starts[] = {0, 0, 0, 4, 3, 16, 8, 64, 1};
    int64_t S = Starts[pick(0, 8)];
    int64_t N = pick(0, 1) ? 32 : 8;
    emit("make_range " + std::to_string(S) + ", " + std::to_string(S + N),
         "i32<" + std::to_string(N) + ">");
  }

  std::string constant(const std::string &Elem) {
    int64_t V;
    switch (pick(0, 5)) {
    case 0:
      V = pow2(0, 6);
      break;
    case 1:
      V = pow2(1, 5) - 1;
      break;
    case 2:
      V = -pow2(0, 5);
      break;
    case 3:
      V = pick(-9, 9);
      break;
    default:
      V = pow2(0, 3);
      break;
    }
    if (Elem == "i8")
      V = std::clamp<int64_t>(V, -128, 127);
    return Elem + " " + std::to_string(V);
  }

  /// A value of type Ty: an existing one or a new (splat) constant.
  std::string operandLike(const std::string &Ty) {
    std::vector<std::string> Same;
    for (auto &V : Pool)
      if (V.Ty == Ty)
        Same.push_back(V.Name);
    std::string Elem = elemOf(Ty), Shape = shapeOf(Ty);
    if (isPtr(Ty)) {
      // Offsets for gep: an int of the same shape.
      return operandLike("i32" + Shape);
    }
    if (!Same.empty() && pick(0, 2))
      return Same[pick(0, Same.size() - 1)];
    std::string C = constant(Elem);
    if (Shape.empty())
      return C;
    if (pick(0, 1)) {
      // splat of a scalar of the pool
      for (auto &V : Pool)
        if (V.Ty == Elem && pick(0, 1))
          return emit("splat " + V.Name, Ty);
    }
    return emit("splat " + C, Ty);
  }

  std::string pickOfShape(bool Tile) {
    std::vector<std::string> Cand;
    for (auto &V : Pool)
      if (!shapeOf(V.Ty).empty() == Tile && V.Ty.substr(0, 2) != "i1")
        Cand.push_back(V.Name);
    if (Cand.empty())
      return Pool[0].Name;
    return Cand[pick(0, Cand.size() - 1)];
  }

  std::string pickAny() {
    std::vector<std::string> Cand;
    for (auto &V : Pool)
      if (V.Ty.substr(0, 2) != "i1")
        Cand.push_back(V.Name);
    // Prefer recent values, to build deeper expressions.
    if (pick(0, 1))
      return Cand[pick(std::max<int64_t>(0, Cand.size() - 6), Cand.size() - 1)];
    return Cand[pick(0, Cand.size() - 1)];
  }

  void step() {
    std::string X = pickAny();
    std::string Ty = typeOf(X), Elem = elemOf(Ty), Shape = shapeOf(Ty);
    static const char *Bin[] = {"add",  "sub", "mul", "sdiv", "udiv", "srem", "urem", "shl", "lshr",
                                "ashr", "and", "or",  "xor",  "smin", "smax", "umin", "umax"};
    static const char *Preds[] = {"slt", "sge", "sgt", "sle", "ult", "uge", "eq", "ne"};
    int Kind = pick(0, 11);
    if (isPtr(Ty)) {
      if (Shape.empty()) {
        std::string S = pick(0, 1) ? "<32>" : "<8,32>";
        X = emit("splat " + X, Ty + S);
        Ty += S;
        Shape = S;
      }
      if (Kind < 8) {
        emit("gep " + X + ", " + operandLike("i32" + Shape), Ty);
      } else if (Kind < 10) {
        reshapeLike(X, Ty);
      } else {
        emit("ptrtoint " + X, "i64" + Shape);
      }
      return;
    }
    if (Kind < 5) {
      std::string Op = Bin[pick(0, 16)];
      std::string Y = operandLike(Ty);
      if (pick(0, 1) && Op != "sub" && Op != "sdiv" && Op != "udiv" && Op != "srem" &&
          Op != "urem" && Op != "shl" && Op != "lshr" && Op != "ashr")
        std::swap(X, Y);
      if (std::string("shl lshr ashr").find(Op) != std::string::npos && pick(0, 2))
        Y = Shape.empty() ? Elem + " " + std::to_string(pick(0, 5))
                          : emit("splat " + Elem + " " + std::to_string(pick(0, 5)), Ty);
      emit(Op + " " + X + ", " + Y, Ty);
    } else if (Kind == 5 && !Shape.empty()) {
      std::string Y = operandLike(Ty);
      std::string P = Preds[pick(0, 7)];
      std::string C = emit("icmp " + P + " " + X + ", " + Y, "i1" + Shape);
      emit("select " + C + ", " + X + ", " + operandLike(Ty), Ty);
    } else if (Kind == 6) {
      if (Elem == "i32")
        emit(pick(0, 1) ? "sext " + X : "zext " + X, "i64" + Shape);
      else if (Elem == "i64")
        emit("trunc " + X, (pick(0, 1) ? "i32" : "i8") + Shape);
      else
        emit("sext " + X, "i32" + Shape);
    } else if (Kind < 9 && !Shape.empty()) {
      reshapeLike(X, Ty);
    } else if (Kind == 9 && Shape.empty()) {
      emit("splat " + X, Ty + (pick(0, 1) ? "<32>" : "<8,32>"));
    } else if (Kind == 10 && Elem == "i32" && !Shape.empty()) {
      static const char *Ptrs[] = {"%p0", "%p1", "%p2"};
      static const char *PTys[] = {"f32*", "i8*", "f16*"};
      int K = pick(0, 2);
      std::string S = emit(std::string("splat ") + Ptrs[K], PTys[K] + Shape);
      emit("gep " + S + ", " + X, PTys[K] + Shape);
    } else {
      makeRange();
    }
  }

  /// Reshape, broadcast or transpose X.
  void reshapeLike(const std::string &X, const std::string &Ty) {
    std::string Elem = elemOf(Ty), S = shapeOf(Ty);
    if (S == "<32>" || S == "<8>") {
      std::string N = S.substr(1, S.size() - 2);
      if (pick(0, 1)) {
        std::string C = emit("reshape " + X, Elem + "<" + N + ",1>");
        emit("broadcast " + C, Elem + "<" + N + "," + (N == "8" ? "32" : "8") + ">");
      } else {
        std::string C = emit("reshape " + X, Elem + "<1," + N + ">");
        emit("broadcast " + C, Elem + "<" + (N == "8" ? "32" : "8") + "," + N + ">");
      }
      return;
    }
    if (S == "<8,32>" || S == "<32,8>") {
      switch (pick(0, 3)) {
      case 0:
        emit("trans " + X, Elem + (S == "<8,32>" ? "<32,8>" : "<8,32>"));
        return;
      case 1:
        emit("reshape " + X, Elem + "<256>");
        return;
      case 2:
        emit("reshape " + X, Elem + (S == "<8,32>" ? "<16,16>" : "<64,4>"));
        return;
      default:
        emit("reshape " + X, Elem + "<4,2,32>");
        return;
      }
    }
    // Any other shape: flatten, or split off rows of 8.
    int64_t N = 1;
    std::string Dims = S.substr(1, S.size() - 2);
    for (size_t Pos = 0; Pos < Dims.size();) {
      size_t Comma = Dims.find(',', Pos);
      N *= std::stoll(
          Dims.substr(Pos, Comma == std::string::npos ? std::string::npos : Comma - Pos));
      Pos = Comma == std::string::npos ? Dims.size() : Comma + 1;
    }
    if (N % 8 == 0 && N > 8 && pick(0, 1))
      emit("reshape " + X, Elem + "<" + std::to_string(N / 8) + ",8>");
    else
      emit("reshape " + X, Elem + "<" + std::to_string(N) + ">");
  }

  std::mt19937_64 Rng;
  std::ostringstream OS;
  std::vector<Val> Pool;
  unsigned Counter = 0;
};

TEST(AxisInfoSoundness, RandomPrograms) {
  unsigned Parsed = 0;
  for (uint64_t Seed = 1; Seed <= 400; ++Seed) {
    std::string Text = Generator(Seed).function();
    auto P = parse(Text);
    if (!P->M) {
      ADD_FAILURE() << "generator produced invalid IR (seed " << Seed << "): " << P->Errors << "\n"
                    << Text;
      continue;
    }
    ++Parsed;
    std::string Fail = checkModule(*P->M, 10, Seed);
    EXPECT_EQ(Fail, "") << "seed " << Seed;
    if (!Fail.empty())
      break;
  }
  EXPECT_EQ(Parsed, 400u);
  // Overflowing runs prove nothing; most runs must complete.
  EXPECT_GT(Counters.RunsCompleted, 4 * Counters.RunsOverflowed);
  EXPECT_GT(Counters.ValuesChecked, 100000u);
  std::cout << "checked " << Counters.ValuesChecked << " values in " << Counters.RunsCompleted
            << " runs (" << Counters.RunsOverflowed << " overflowing runs stopped early)\n";
}

// The checker itself must be able to fail: a deliberately wrong claim.
TEST(AxisInfoSoundness, CheckerDetectsWrongClaims) {
  auto P = parse(R"(define void @f(i32 %a) {
entry:
  %r = make_range 0, 32 : i32<32>
  %k13 = splat i32 2 : i32<32>
  %x = mul %r, %k13 : i32<32>
  ret
}
)");
  ASSERT_TRUE(P->M) << P->Errors;
  const Function &F = *P->M->functions()[0];
  AxisInfoAnalysis AI(F);
  // Forge a claim: pretend %x (0, 2, 4, ...) is contiguous.
  auto &Info = const_cast<AxisInfo &>(AI.get(findValue(F, "%x")));
  Info.Contiguity[0] = 4;
  std::mt19937_64 Rng(1);
  EXPECT_NE(Evaluator(F, AI, Rng).run(), "");
}

} // namespace
