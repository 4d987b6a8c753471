//===- CSE.cpp - Dominator-scoped common subexpression elimination --------===//
#include "tritonc/transform/CSE.h"

#include "tritonc/ir/Dominance.h"
#include "tritonc/transform/Passes.h"
#include "tritonc/transform/Utils.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace tritonc::transform {

using namespace ir;

namespace {

/// Everything that determines the value of a pure instruction.
struct ExprKey {
  Opcode Op;
  const Type *Ty;
  std::vector<Value *> Operands;
  CmpPredicate Predicate;
  ReduceKind Reduction;
  int64_t Axis, RangeStart, RangeEnd;

  auto tie() const {
    return std::tie(Op, Ty, Operands, Predicate, Reduction, Axis, RangeStart, RangeEnd);
  }
  bool operator<(const ExprKey &O) const { return tie() < O.tie(); }
};

/// Operations whose two operands can be swapped without changing the result
/// bit for bit. fmin/fmax are left out: the sign of a zero result may depend
/// on the order.
bool isCommutative(const Instruction &I) {
  switch (I.getOpcode()) {
  case Opcode::Add:
  case Opcode::Mul:
  case Opcode::And:
  case Opcode::Or:
  case Opcode::Xor:
  case Opcode::SMin:
  case Opcode::SMax:
  case Opcode::UMin:
  case Opcode::UMax:
  case Opcode::FAdd:
  case Opcode::FMul:
    return true;
  case Opcode::ICmp:
    return I.Predicate == CmpPredicate::EQ || I.Predicate == CmpPredicate::NE;
  case Opcode::FCmp:
    return I.Predicate == CmpPredicate::OEQ || I.Predicate == CmpPredicate::ONE ||
           I.Predicate == CmpPredicate::UNE;
  default:
    return false;
  }
}

ExprKey keyOf(const Instruction &I) {
  ExprKey K{I.getOpcode(), I.getType(), I.operands(), I.Predicate,
            I.Reduction,   I.Axis,      I.RangeStart, I.RangeEnd};
  // Attributes that do not apply to the opcode may hold stale values; zero
  // them so they never prevent a match.
  if (I.getCategory() != OpCategory::Cmp)
    K.Predicate = CmpPredicate::EQ;
  if (I.getOpcode() != Opcode::Reduce)
    K.Reduction = ReduceKind::Add;
  if (I.getOpcode() != Opcode::Reduce && I.getOpcode() != Opcode::GetProgramId &&
      I.getOpcode() != Opcode::GetNumPrograms)
    K.Axis = 0;
  if (I.getOpcode() != Opcode::MakeRange)
    K.RangeStart = K.RangeEnd = 0;
  if (isCommutative(I) && K.Operands.size() == 2 &&
      std::less<Value *>()(K.Operands[1], K.Operands[0]))
    std::swap(K.Operands[0], K.Operands[1]);
  return K;
}

class CSEWalker {
public:
  explicit CSEWalker(const DominatorTree &DT) : DT(DT) {}

  /// Processes BB and, recursively, the blocks it immediately dominates.
  void visit(BasicBlock *BB) {
    std::vector<ExprKey> Added;
    for (auto It = BB->instructions().begin(); It != BB->instructions().end();) {
      Instruction *I = It->get();
      ++It;
      if (!isPure(*I))
        continue;
      ExprKey K = keyOf(*I);
      auto Found = Table.find(K);
      if (Found != Table.end()) {
        I->replaceAllUsesWith(Found->second);
        I->dropAllOperands();
        I->eraseFromParent();
        ++NumRemoved;
        continue;
      }
      Table.emplace(K, I);
      Added.push_back(std::move(K));
    }
    for (BasicBlock *Child : DT.getChildren(BB))
      visit(Child);
    // Leaving the scope: the values of BB do not dominate BB's siblings.
    for (const ExprKey &K : Added)
      Table.erase(K);
  }

  unsigned NumRemoved = 0;

private:
  const DominatorTree &DT;
  std::map<ExprKey, Instruction *> Table;
};

} // namespace

bool CSEPass::run(Function &F, AnalysisManager &AM) {
  const DominatorTree &DT = AM.get<DominatorTree>(F);
  if (!DT.getRoot())
    return false;
  CSEWalker W(DT);
  W.visit(DT.getRoot());
  return W.NumRemoved != 0;
}

std::unique_ptr<Pass> createCSEPass() { return std::make_unique<CSEPass>(); }

} // namespace tritonc::transform
