//===- VerifyGpu.cpp - Type rules of the GPU-level operations -------------===//
//
// The operand and type rules of docs/IR.md, "GPU level": layouts on values,
// shared buffers and their slots, asynchronous copies, mbarriers, bulk
// tensor copies and wgmma. Ordering rules (waits, phases, fences) are
// dynamic and are checked by the interpreter, not here.
//
//===----------------------------------------------------------------------===//
#include "VerifyGpu.h"

namespace tritonc::ir {

namespace {

std::string typeName(const Type *T) { return "'" + T->str() + "'"; }

bool isI64Scalar(const Type *T) { return T == Type::getI64(); }
bool isIndexScalar(const Type *T) { return T == Type::getI32() || T == Type::getI64(); }

/// A single buffer (or one slot of a ring): what loads, stores and copies
/// address.
std::string checkSlot(const Type *T, const char *Role) {
  if (!T->isSharedBuffer())
    return std::string(Role) + " must be a shared buffer, not " + typeName(T);
  if (T->getNumSlots() != 1)
    return std::string(Role) + " " + typeName(T) +
           " is a ring; select one slot with smem_slot first";
  return "";
}

std::string checkMbarrier(const Type *T) {
  if (T != Type::getSharedBuffer(Type::getI64(), {1}, nullptr, 1))
    return "an mbarrier is one slot 'smem<i64<1>>' without layout, not " + typeName(T);
  return "";
}

/// Whether Slot is a 2-D slot stored column-major (order=[0,1]): its rows in
/// memory run along dimension 0, as a K-major wgmma B operand [K, N] does.
bool isColumnMajorSlot(const Type *Slot) {
  const Layout *L = Slot->getLayout();
  return Slot->getRank() == 2 && L && L->getOrder() == std::vector<unsigned>{0, 1};
}

/// Bulk tensor copies and wgmma read shared memory through the async proxy,
/// which understands only the hardware swizzle modes on row-major slots, and
/// on column-major 2-D ones (the same bytes, the tile transposed).
std::string checkHardwareSwizzle(const Type *Slot, const char *Role) {
  const Layout *L = Slot->getLayout();
  if (!L || !L->hasSwizzleMode())
    return std::string(Role) + " " + typeName(Slot) +
           " needs a hardware swizzle layout '#shared<swizzle=0|32|64|128, order=[...]>'";
  if (isColumnMajorSlot(Slot))
    return "";
  const auto &Order = L->getOrder();
  for (size_t I = 0; I < Order.size(); ++I)
    if (Order[I] != Order.size() - 1 - I)
      return std::string(Role) + " " + typeName(Slot) +
             " must be row-major (order=[rank-1, ..., 0]), or 2-D column-major (order=[0,1]), for "
             "the async proxy";
  return "";
}

std::string expectCount(const Instruction &I, unsigned Min, unsigned Max) {
  unsigned N = I.getNumOperands();
  if (N >= Min && N <= Max)
    return "";
  std::string Expected =
      Min == Max ? std::to_string(Min) : std::to_string(Min) + " or " + std::to_string(Max);
  return std::string("'") + opcodeName(I.getOpcode()) + "' needs " + Expected + " operand" +
         (Max == 1 ? "" : "s") + ", not " + std::to_string(N);
}

std::string checkTensorDescOps(const Instruction &I, unsigned CoordsFrom, const Type *Desc,
                               const Type *Slot) {
  if (!Desc->isTensorDesc())
    return "operand 0 must be a tensor descriptor, not " + typeName(Desc);
  for (unsigned K = 0; K < Desc->getRank(); ++K)
    if (I.getOperand(CoordsFrom + K)->getType() != Type::getI32())
      return "coordinate " + std::to_string(K) + " must be an i32 scalar";
  if (std::string Msg = checkSlot(Slot, "the shared operand"); !Msg.empty())
    return Msg;
  // A box of rank >= 3 also lands as the 2-D tile of its rows (the outer
  // dimensions flattened): the engine writes rows of the innermost dimension
  // one after another, and the swizzle depends only on the row's address. A
  // column-major slot [X, Y] holds Y such rows of X elements.
  const auto &Box = Desc->getShape();
  int64_t Rows = 1;
  for (size_t K = 0; K + 1 < Box.size(); ++K)
    Rows *= Box[K];
  Shape InMemory = Slot->getShape();
  bool Transposed = isColumnMajorSlot(Slot);
  if (Transposed)
    std::swap(InMemory[0], InMemory[1]);
  bool Flat = (Box.size() >= 3 || Transposed) && InMemory.size() == 2 && InMemory[0] == Rows &&
              InMemory[1] == Box.back();
  bool Same = !Transposed && Slot->getShape() == Box;
  if (Slot->getElementType() != Desc->getElementType() || (!Same && !Flat))
    return "the shared slot " + typeName(Slot) + " does not hold one box of " + typeName(Desc) +
           (Box.size() >= 3 || Transposed
                ? " (its shape, or the 2-D tile of its rows; transposed in a column-major slot)"
                : "");
  return checkHardwareSwizzle(Slot, "the shared slot");
}

/// Traversal stride K of make_tensor_desc I (rank Rank): a copy reads every
/// E-th element along dimension K, shape[K] of them, so that the box spans
/// shape[K] * E elements of the tensor, at most 256 as any box dimension.
std::string checkTraversalStride(const Instruction &I, unsigned K, unsigned Rank) {
  const Value *V = I.getOperand(1 + 2 * Rank + K);
  const Constant *C = asConstant(const_cast<Value *>(V));
  std::string Which = "traversal stride " + std::to_string(K);
  if (!C || V->getType() != Type::getI32())
    return Which + " must be an i32 constant";
  int64_t E = C->getInt();
  if (E < 1 || E > 8)
    return Which + " is " + std::to_string(E) + "; it must be 1 to 8";
  if (K + 1 == Rank && E != 1)
    return Which + " is " + std::to_string(E) +
           "; the innermost must be 1 (the copy engine does not stride it)";
  int64_t Span = I.getType()->getShape()[K] * E;
  if (Span > 256)
    return "the box spans " + std::to_string(Span) + " elements of dimension " + std::to_string(K) +
           " (" + std::to_string(I.getType()->getShape()[K]) + " at traversal stride " +
           std::to_string(E) + "); at most 256";
  return "";
}

std::string checkWgmma(const Instruction &I) {
  const Type *A = I.getOperand(0)->getType(), *B = I.getOperand(1)->getType();
  const Type *C = I.getOperand(2)->getType(), *UseAcc = I.getOperand(3)->getType();
  if (UseAcc != Type::getI1())
    return "the use-accumulator predicate must be an i1 scalar, not " + typeName(UseAcc);
  if (!C->isTile() || !C->getLayout() || C->getLayout()->getKind() != LayoutKind::Wgmma)
    return "the accumulator " + typeName(C) + " needs a #wgmma layout";
  if (I.getType() != C)
    return "result type " + typeName(I.getType()) + " should be the accumulator's " + typeName(C);
  if (std::string Msg = checkSlot(B, "B"); !Msg.empty())
    return Msg;
  if (std::string Msg = checkHardwareSwizzle(B, "B"); !Msg.empty())
    return Msg;
  const Type *AElem;
  if (A->isSharedBuffer()) {
    if (std::string Msg = checkSlot(A, "A"); !Msg.empty())
      return Msg;
    if (std::string Msg = checkHardwareSwizzle(A, "A"); !Msg.empty())
      return Msg;
    AElem = A->getElementType();
  } else {
    const Layout *L = A->getLayout();
    if (!A->isTile() || !L || L->getKind() != LayoutKind::DotOperand || L->getOperandIndex() != 0 ||
        L->getParent() != C->getLayout())
      return "A " + typeName(A) +
             " must be a shared slot or a tile in #dot_op<operand=0> of the accumulator's layout";
    AElem = A->getScalarType();
  }
  if (A->getRank() != 2 || B->getRank() != 2 || C->getRank() != 2)
    return "wgmma needs 2-D operands";
  const Type *BElem = B->getElementType();
  if (AElem != BElem)
    return "A and B have different element types: " + typeName(AElem) + " and " + typeName(BElem);
  const Type *Acc = C->getScalarType();
  bool FloatIn = AElem == Type::getF16() || AElem == Type::getBF16() || AElem == Type::getF32();
  if (!(FloatIn && Acc == Type::getF32()) && !(AElem == Type::getF16() && Acc == Type::getF16()) &&
      !(AElem == Type::getInt(8) && Acc == Type::getI32()))
    return "wgmma does not multiply " + typeName(AElem) + " into " + typeName(Acc);
  int64_t M = A->getShape()[0], K = A->getShape()[1], N = B->getShape()[1];
  if (B->getShape()[0] != K || C->getShape() != Shape{M, N})
    return "wgmma shapes " + typeName(A) + " x " + typeName(B) + " -> " + typeName(C) + " mismatch";
  const Layout *W = C->getLayout();
  int64_t GroupsM = W->getWarpsPerCTA()[0] / 4, GroupsN = W->getWarpsPerCTA()[1];
  int64_t InstrN = W->getInstrShape()[1], InstrK = W->getInstrShape()[2];
  if (M % (64 * GroupsM) != 0 || N % (InstrN * GroupsN) != 0)
    return "accumulator " + typeName(C) + " is not a whole number of m64n" +
           std::to_string(InstrN) + " tiles per warpgroup";
  if (InstrK * static_cast<int64_t>(AElem->getScalarBits()) != 256 || K % InstrK != 0)
    return "K of " + std::to_string(K) + " is not a multiple of the instruction's K (" +
           std::to_string(InstrK) + "; 32 bytes of " + typeName(AElem) + ")";
  return "";
}

/// smem_slot with a result other than the ring's slot type: the slot's
/// bytes seen as another slot of the same element (a staging tile in a
/// ring slot that holds no data), which must fit in them; a swizzled view
/// starts at a swizzle atom, so the ring's slots must be whole atoms.
std::string checkSlotReinterpretation(const Type *Ring, const Type *R) {
  if (!R->isSharedBuffer() || R->getNumSlots() != 1 ||
      R->getElementType() != Ring->getElementType())
    return "result type " + typeName(R) + " should be one slot of " + typeName(Ring) +
           ", or one slot of its element type that its slot's bytes hold";
  unsigned ElemBytes = Ring->getElementType()->getScalarSizeInBytes();
  int64_t SlotBytes = Ring->getSlotTileType()->getNumElements() * ElemBytes;
  int64_t ViewBytes = R->getSlotTileType()->getNumElements() * ElemBytes;
  if (ViewBytes > SlotBytes)
    return "the slot " + typeName(R) + " (" + std::to_string(ViewBytes) +
           " bytes) does not fit in a slot of " + typeName(Ring) + " (" +
           std::to_string(SlotBytes) + " bytes)";
  const Layout *L = R->getLayout();
  const Layout *RingL = Ring->getLayout();
  bool Swizzled = L && L->hasSwizzleMode() && L->getSwizzleBytes() != 0;
  if (Swizzled && (!RingL || !RingL->hasSwizzleMode() || RingL->getSwizzleBytes() == 0 ||
                   SlotBytes % 1024 != 0))
    return "the swizzled slot " + typeName(R) + " needs the slots of " + typeName(Ring) +
           " to be whole 1024-byte swizzle atoms";
  return "";
}

} // namespace

std::string checkGpuTypes(const Instruction &I) {
  Opcode Op = I.getOpcode();
  const Type *R = I.getType();
  auto Ty = [&](unsigned K) { return I.getOperand(K)->getType(); };
  unsigned N = I.getNumOperands();
  switch (Op) {
  case Opcode::ConvertLayout:
    if (std::string Msg = expectCount(I, 1, 1); !Msg.empty())
      return Msg;
    if (!Ty(0)->isTile() || !R->isTile() || R->withLayout(nullptr) != Ty(0)->withLayout(nullptr))
      return "convert_layout changes only the layout of a tile, not " + typeName(Ty(0)) + " to " +
             typeName(R);
    return "";
  case Opcode::SmemAlloc:
    if (std::string Msg = expectCount(I, 0, 0); !Msg.empty())
      return Msg;
    if (!R->isSharedBuffer())
      return "smem_alloc produces a shared buffer, not " + typeName(R);
    if (I.SharedOffset >= 0) {
      // A swizzled slot is addressed in 1024-byte atoms (wgmma descriptors
      // need that base); any slot in 128 bytes, the widest swizzle's period.
      const Layout *L = R->getLayout();
      int64_t Align = L && L->hasSwizzleMode() && L->getSwizzleBytes() != 0 ? 1024 : 128;
      if (I.SharedOffset % Align != 0)
        return "smem_alloc offset " + std::to_string(I.SharedOffset) + " is not a multiple of " +
               std::to_string(Align) + " bytes (the alignment its #shared layout needs)";
    }
    return "";
  case Opcode::SmemSlot:
    if (std::string Msg = expectCount(I, 2, 2); !Msg.empty())
      return Msg;
    if (!Ty(0)->isSharedBuffer())
      return "smem_slot needs a shared buffer, not " + typeName(Ty(0));
    if (!isIndexScalar(Ty(1)))
      return "the slot index must be an i32 or i64 scalar, not " + typeName(Ty(1));
    if (R ==
        Type::getSharedBuffer(Ty(0)->getElementType(), Ty(0)->getShape(), Ty(0)->getLayout(), 1))
      return "";
    return checkSlotReinterpretation(Ty(0), R);
  case Opcode::ExtractSlice: {
    if (std::string Msg = expectCount(I, 1, 1 + (Ty(0)->isTile() ? Ty(0)->getRank() : 0));
        !Msg.empty())
      return Msg;
    if (!Ty(0)->isTile() || !R->isTile() || R->getScalarType() != Ty(0)->getScalarType() ||
        R->getRank() != Ty(0)->getRank() || N != 1 + R->getRank())
      return "extract_slice takes a tile and one constant offset per dimension, and yields a "
             "tile of its element type and rank, not " +
             typeName(R) + " from " + typeName(Ty(0));
    for (unsigned D = 0; D < R->getRank(); ++D) {
      const Constant *C = asConstant(I.getOperand(1 + D));
      int64_t Extent = R->getShape()[D];
      if (!C || !isIndexScalar(C->getType()) || C->getInt() < 0 || C->getInt() % Extent != 0 ||
          C->getInt() + Extent > Ty(0)->getShape()[D])
        return "extract_slice offset " + std::to_string(D) +
               " must be an integer constant, a multiple of the window's extent " +
               std::to_string(Extent) + ", the window inside " + typeName(Ty(0));
    }
    return "";
  }
  case Opcode::LocalLoad:
  case Opcode::LocalStore: {
    bool IsLoad = Op == Opcode::LocalLoad;
    if (std::string Msg = expectCount(I, IsLoad ? 1 : 2, IsLoad ? 1 : 2); !Msg.empty())
      return Msg;
    if (std::string Msg = checkSlot(Ty(0), "the shared operand"); !Msg.empty())
      return Msg;
    const Type *Tile = IsLoad ? R : Ty(1);
    if (!Tile->isTile() || Tile->withLayout(nullptr) != Ty(0)->getSlotTileType())
      return std::string(IsLoad ? "loaded" : "stored") + " tile " + typeName(Tile) +
             " should have the slot's element type and shape " + typeName(Ty(0)->getSlotTileType());
    return "";
  }
  case Opcode::CpAsync: {
    if (std::string Msg = expectCount(I, 2, 3); !Msg.empty())
      return Msg;
    if (std::string Msg = checkSlot(Ty(0), "the destination"); !Msg.empty())
      return Msg;
    const Type *P = Ty(1);
    if (!P->isTile() || !P->isPointerOrPointerTile() ||
        P->getPointee() != Ty(0)->getElementType() || P->getShape() != Ty(0)->getShape())
      return "cp_async pointers " + typeName(P) +
             " must be a tile of pointers to each element of " + typeName(Ty(0));
    if (N == 3 && Ty(2) != P->withScalar(Type::getI1()))
      return "mask " + typeName(Ty(2)) + " must be i1 of the pointers' shape and layout";
    return "";
  }
  case Opcode::CpAsyncCommit:
  case Opcode::WgmmaFence:
  case Opcode::WgmmaCommit:
  case Opcode::FenceProxyAsync:
  case Opcode::FenceProxyAsyncGlobal:
  case Opcode::Barrier:
  case Opcode::CpAsyncWait:
  case Opcode::TmaStoreWait:
  case Opcode::WgmmaWait:
    if (std::string Msg = expectCount(I, 0, 0); !Msg.empty())
      return Msg;
    if (I.Count < 0)
      return "the group count must not be negative";
    return "";
  case Opcode::MbarrierInit:
  case Opcode::MbarrierArrive:
  case Opcode::MbarrierExpectTx:
    if (std::string Msg = expectCount(I, 1, 1); !Msg.empty())
      return Msg;
    if (Op == Opcode::MbarrierInit && I.Count < 1)
      return "an mbarrier needs at least one arrival per phase";
    if (Op == Opcode::MbarrierExpectTx && I.Count < 1)
      return "mbarrier_expect_tx needs a positive byte count";
    return checkMbarrier(Ty(0));
  case Opcode::MbarrierWait:
    if (std::string Msg = expectCount(I, 2, 2); !Msg.empty())
      return Msg;
    if (Ty(1) != Type::getI1() && Ty(1) != Type::getI32())
      return "the phase must be an i1 or i32 scalar, not " + typeName(Ty(1));
    return checkMbarrier(Ty(0));
  case Opcode::MakeTensorDesc: {
    if (!R->isTensorDesc())
      return "make_tensor_desc produces a tensor descriptor, not " + typeName(R);
    unsigned Rank = R->getRank();
    if (Rank > 5)
      return "a tensor descriptor has at most 5 dimensions";
    for (int64_t B : R->getShape())
      if (B > 256)
        return "box dimensions are at most 256, not " + std::to_string(B);
    if (N != 1 + 3 * Rank)
      if (std::string Msg = expectCount(I, 1 + 2 * Rank, 1 + 2 * Rank); !Msg.empty())
        return Msg + " (the base, " + std::to_string(Rank) + " extents and " +
               std::to_string(Rank) + " strides, and optionally " + std::to_string(Rank) +
               " traversal strides)";
    if (Ty(0) != Type::getPointer(R->getElementType()))
      return "the base " + typeName(Ty(0)) + " should be " +
             typeName(Type::getPointer(R->getElementType()));
    for (unsigned K = 1; K <= Rank; ++K)
      if (!isIndexScalar(Ty(K)))
        return "extent " + std::to_string(K - 1) + " must be an i32 or i64 scalar";
    for (unsigned K = 1 + Rank; K < 1 + 2 * Rank; ++K)
      if (!isI64Scalar(Ty(K)))
        return "stride " + std::to_string(K - 1 - Rank) + " (in elements) must be an i64 scalar";
    for (unsigned K = 0; K < N - 1 - 2 * Rank; ++K)
      if (std::string Msg = checkTraversalStride(I, K, Rank); !Msg.empty())
        return Msg;
    return "";
  }
  case Opcode::TmaLoad:
  case Opcode::TmaStore: {
    bool IsLoad = Op == Opcode::TmaLoad;
    if (N < 1 || !Ty(0)->isTensorDesc())
      return std::string(opcodeName(Op)) + " needs a tensor descriptor first";
    unsigned Want = 1 + Ty(0)->getRank() + (IsLoad ? 2 : 1);
    if (std::string Msg = expectCount(I, Want, Want); !Msg.empty())
      return Msg;
    unsigned SlotIdx = 1 + Ty(0)->getRank();
    if (std::string Msg = checkTensorDescOps(I, 1, Ty(0), Ty(SlotIdx)); !Msg.empty())
      return Msg;
    return IsLoad ? checkMbarrier(Ty(SlotIdx + 1)) : "";
  }
  case Opcode::Wgmma:
    if (std::string Msg = expectCount(I, 4, 4); !Msg.empty())
      return Msg;
    return checkWgmma(I);
  default:
    return std::string("'") + opcodeName(Op) + "' is not a GPU-level operation";
  }
}

std::string checkLayoutsOfOperation(const Instruction &I) {
  // Element-wise rules compare whole types (layout included), so they need
  // nothing here; these are the operations whose operands' layouts relate
  // to the result's in other ways.
  Opcode Op = I.getOpcode();
  auto Ty = [&](unsigned K) { return I.getOperand(K)->getType(); };
  switch (Op) {
  case Opcode::Dot: {
    // Operands in #dot_op layouts of the accumulator's are in registers as
    // the MMA reads them; operands in other layouts (or none) are staged by
    // the dot itself (the back end's operand staging, docs/IR.md).
    const Layout *LA = Ty(0)->getLayout(), *LB = Ty(1)->getLayout(), *LC = Ty(2)->getLayout();
    for (unsigned K = 0; K < 2; ++K) {
      const Layout *L = K ? LB : LA;
      if (L && L->getKind() == LayoutKind::DotOperand &&
          (!LC || L->getOperandIndex() != static_cast<int32_t>(K) || L->getParent() != LC))
        return std::string("dot operand ") + (K ? "B " : "A ") + typeName(Ty(K)) +
               " needs #dot_op<operand=" + std::to_string(K) +
               "> with the accumulator's layout as parent";
    }
    return "";
  }
  default:
    return "";
  }
}

} // namespace tritonc::ir
