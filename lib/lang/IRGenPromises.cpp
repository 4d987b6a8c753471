//===- IRGenPromises.cpp - Checks of the promises attributes make ---------===//
//
// `__readonly` on a pointer parameter promises that the kernel never writes
// through it; the back end relies on it (read-only loads, no barriers
// between its loads and other parameters' stores). A store or atomic whose
// pointer may be computed from such a parameter breaks the promise and is
// an error at the store, with a note at the parameter.
//
// `__multipleof(N)` on an integer local promises that every value assigned
// to it is a multiple of N: the value's instruction carries the hint
// (Instruction::MultipleOf) for the axis analysis, and the interpreter checks
// it when the instruction runs.
//
//===----------------------------------------------------------------------===//
#include "IRGenImpl.h"

#include "tritonc/lang/Parser.h"

#include <unordered_set>

namespace tritonc::lang {

using namespace ir;

/// A `__readonly` parameter that Ptr may be computed from (through offsets,
/// reshapes, loop phis and selects), or null.
static const Argument *readOnlySource(const Value *Ptr) {
  std::vector<const Value *> Work{Ptr};
  std::unordered_set<const Value *> Seen{Ptr};
  while (!Work.empty()) {
    const Value *V = Work.back();
    Work.pop_back();
    if (V->getValueKind() == ValueKind::Argument) {
      const auto *A = static_cast<const Argument *>(V);
      if (A->attrs().ReadOnly)
        return A;
      continue;
    }
    const Instruction *I = asInstruction(const_cast<Value *>(V));
    if (!I)
      continue;
    std::vector<const Value *> From;
    switch (I->getOpcode()) {
    case Opcode::GEP:
    case Opcode::Splat:
    case Opcode::Broadcast:
    case Opcode::Reshape:
    case Opcode::Trans:
    case Opcode::MakeTensorDesc: // its base
      From.push_back(I->getOperand(0));
      break;
    case Opcode::Phi:
      for (const Value *In : I->operands())
        From.push_back(In);
      break;
    case Opcode::Select:
      From = {I->getOperand(1), I->getOperand(2)};
      break;
    default:
      break;
    }
    for (const Value *F : From)
      if (Seen.insert(F).second)
        Work.push_back(F);
  }
  return nullptr;
}

void IRGenerator::checkReadOnlyStores(const ast::FunctionDecl &F) {
  for (const auto &BB : Fn->blocks())
    for (const auto &I : BB->instructions()) {
      Opcode Op = I->getOpcode();
      bool Writes = Op == Opcode::Store || Op == Opcode::MaskedStore || Op == Opcode::AtomicRMW ||
                    Op == Opcode::AtomicCAS || Op == Opcode::DescStore;
      if (!Writes)
        continue;
      const Argument *A = readOnlySource(I->getOperand(0));
      if (!A)
        continue;
      const char *What =
          Op == Opcode::AtomicRMW || Op == Opcode::AtomicCAS ? "an atomic" : "a store";
      Diags.error(SourceRange(I->Loc), std::string(What) + " writes through '" + A->getName() +
                                           "', which is declared __readonly");
      if (A->getIndex() < F.Params.size())
        Diags.note(F.Params[A->getIndex()].NameRange,
                   "'" + A->getName() + "' declared __readonly here");
    }
}

int64_t IRGenerator::localAttributes(const ast::Declarator &D, const FEType &T) {
  int64_t MultipleOf = 1;
  for (const ast::Attribute &At : D.Attrs) {
    if (At.K != ast::Attribute::MultipleOf) {
      Diags.warning(At.Range, "'" + attributeSpelling(At) +
                                  "' on a local variable is ignored (it applies to parameters)");
      continue;
    }
    if (!T.isInt() || T.isBool())
      Diags.error(At.Range, "'__multipleof' applies only to integer variables ('" + D.Name +
                                "' has type '" + T.str() + "')");
    else if (At.Value <= 0)
      Diags.error(At.Range,
                  "'__multipleof' needs a positive value (got " + std::to_string(At.Value) + ")");
    else
      MultipleOf = At.Value;
  }
  return MultipleOf;
}

void IRGenerator::applyMultipleOf(VarInfo *V, Value *Val) {
  if (V->MultipleOf <= 1)
    return;
  Value *Scalar = Val;
  if (Instruction *I = asInstruction(Val); I && I->getOpcode() == Opcode::Splat)
    Scalar = I->getOperand(0);
  if (Constant *C = asConstant(Scalar); C && !C->isUndef()) {
    if (C->getInt() % V->MultipleOf != 0)
      Diags.error(SourceRange(LastLoc), "value " + std::to_string(C->getInt()) + " assigned to '" +
                                            V->Name + "' is not a multiple of " +
                                            std::to_string(V->MultipleOf) + " (__multipleof)");
    return;
  }
  if (Instruction *I = asInstruction(Val)) {
    I->MultipleOf = V->MultipleOf;
    return;
  }
  // A parameter's value: the hint belongs on the parameter itself.
  Diags.warning(SourceRange(LastLoc), "'__multipleof' of '" + V->Name +
                                          "' does not apply to a parameter's value; put it on "
                                          "the parameter");
}

} // namespace tritonc::lang
