//===- IRSignature.cpp - Kernel signatures from Triton-IR ------------------===//
#include "tritonc/runtime/IRSignature.h"

namespace tritonc::runtime {

Expected<ArgKind> argKindFromIR(const ir::Type *T) {
  switch (T->getKind()) {
  case ir::TypeKind::Pointer:
    return ArgKind::Pointer;
  case ir::TypeKind::Int:
    switch (T->getIntBits()) {
    case 1:
      return ArgKind::Int1;
    case 8:
      return ArgKind::Int8;
    case 16:
      return ArgKind::Int16;
    case 32:
      return ArgKind::Int32;
    case 64:
      return ArgKind::Int64;
    }
    break;
  case ir::TypeKind::Float:
    switch (T->getFloatKind()) {
    case ir::FloatKind::F16:
      return ArgKind::F16;
    case ir::FloatKind::BF16:
      return ArgKind::BF16;
    case ir::FloatKind::F32:
      return ArgKind::F32;
    case ir::FloatKind::F64:
      return ArgKind::F64;
    }
    break;
  case ir::TypeKind::Void:
  case ir::TypeKind::Tile:
  case ir::TypeKind::SharedBuffer:
  case ir::TypeKind::TensorDesc:
    break;
  }
  return makeError("type " + T->str() + " cannot be a kernel parameter");
}

Expected<KernelSignature> signatureFromIR(const ir::Function &F) {
  if (!F.getReturnType()->isVoid())
    return makeError("kernel " + F.getName() + " returns " + F.getReturnType()->str() +
                     "; a kernel entry must return void");
  KernelSignature Sig;
  Sig.Name = F.getName();
  for (unsigned I = 0; I < F.getNumArgs(); ++I) {
    const ir::Argument *A = F.getArg(I);
    Expected<ArgKind> K = argKindFromIR(A->getType());
    if (!K)
      return makeError("kernel " + F.getName() + ", parameter " + std::to_string(I) +
                       (A->getName().empty() ? "" : " (" + A->getName() + ")") + ": " + K.error());
    KernelParam P;
    P.Name = A->getName();
    P.Kind = *K;
    if (P.Kind == ArgKind::Pointer)
      P.Pointee = A->getType()->getPointee()->str();
    Sig.Params.push_back(std::move(P));
  }
  return Sig;
}

} // namespace tritonc::runtime
