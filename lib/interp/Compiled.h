//===- Compiled.h - Pre-resolved form of a function for the interpreter --===//
//
// Walking IR objects and maps per element would be far too slow for the
// matmul kernels CI runs, so runKernel first lowers a function into flat
// arrays: every value gets a fixed range of 64-bit slots in one arena, every
// instruction becomes a CInst naming its operands by slot offset, and phis
// become per-edge copy lists. Lowering also validates everything the executor
// relies on (operand counts, element counts, type kinds), so bad IR is
// reported instead of reading outside the arena.
//
// Slot encoding (one per element): integers as normalizeInt bits, floats as
// the bits of a double already rounded to the element type, pointers as
// 64-bit host addresses.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"
#include "tritonc/support/FloatFormats.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tritonc::interp::detail {

/// Element kinds: how a slot is interpreted and how an element is stored.
enum class ElemKind : uint8_t { I1, I8, I16, I32, I64, F16, BF16, F32, F64, Ptr };

/// Element kind of a scalar type (Void maps to I64; callers reject it).
ElemKind elemKindOf(const ir::Type *T);

inline bool isIntKind(ElemKind K) { return K <= ElemKind::I64; }
inline bool isFloatKind(ElemKind K) { return K >= ElemKind::F16 && K <= ElemKind::F64; }

/// Bits of an integer kind (pointers: 64).
inline unsigned intBits(ElemKind K) {
  switch (K) {
  case ElemKind::I1:
    return 1;
  case ElemKind::I8:
    return 8;
  case ElemKind::I16:
    return 16;
  case ElemKind::I32:
    return 32;
  default:
    return 64;
  }
}

/// Bytes of one element in memory (i1 is one byte).
inline unsigned storeSize(ElemKind K) {
  switch (K) {
  case ElemKind::I1:
  case ElemKind::I8:
    return 1;
  case ElemKind::I16:
  case ElemKind::F16:
  case ElemKind::BF16:
    return 2;
  case ElemKind::I32:
  case ElemKind::F32:
    return 4;
  default:
    return 8;
  }
}

inline double slotToDouble(uint64_t S) { return std::bit_cast<double>(S); }
inline uint64_t doubleToSlot(double D) { return std::bit_cast<uint64_t>(D); }

/// Sign-extends the low Bits of V (i1 keeps 0/1, as normalizeInt does).
inline uint64_t normBits(uint64_t V, unsigned Bits) {
  if (Bits >= 64)
    return V;
  if (Bits == 1)
    return V & 1;
  unsigned Sh = 64 - Bits;
  return static_cast<uint64_t>(static_cast<int64_t>(V << Sh) >> Sh);
}
/// Signed value of a normalized slot (i1: 1 means -1).
inline int64_t signedOf(uint64_t S, unsigned Bits) {
  return Bits == 1 ? -static_cast<int64_t>(S & 1) : static_cast<int64_t>(S);
}
/// Unsigned value of a normalized slot.
inline uint64_t unsignedOf(uint64_t S, unsigned Bits) {
  return Bits >= 64 ? S : S & ((uint64_t(1) << Bits) - 1);
}

/// Rounds a double to a float kind.
inline double roundTo(double D, ElemKind K) {
  switch (K) {
  case ElemKind::F16:
    return roundToHalf(D);
  case ElemKind::BF16:
    return roundToBFloat16(D);
  case ElemKind::F32:
    return static_cast<double>(static_cast<float>(D));
  default:
    return D;
  }
}

/// a*b+c rounded to nearest in double, then turned into round-to-odd so
/// that a later rounding to a narrower format (at least 2 bits shorter) is
/// a correct single rounding. Requires a*b to be exact in double, which holds
/// for f16, bf16 and f32 operands.
inline double fmaRoundOdd(double A, double B, double C) {
  double P = A * B;
  double S = P + C;
  if (!std::isfinite(S))
    return S;
  // TwoSum: E is the exact rounding error of P + C.
  double BB = S - P;
  double E = (P - (S - BB)) + (C - BB);
  if (E != 0) {
    uint64_t U = doubleToSlot(S);
    if ((U & 1) == 0)
      U = ((E > 0) == (S > 0)) ? U + 1 : U - 1;
    S = slotToDouble(U);
  }
  return S;
}

/// Fused multiply-add of values of float kind K with one rounding to K
/// (round-to-odd in double makes the final rounding to f32/f16/bf16 exact).
inline double fmaInKind(double A, double B, double C, ElemKind K) {
  switch (K) {
  case ElemKind::F64:
    return std::fma(A, B, C);
  default:
    return roundTo(fmaRoundOdd(A, B, C), K);
  }
}

/// Raw storage bits (low storeSize bytes) of a slot of kind K.
inline uint64_t encodeRaw(uint64_t S, ElemKind K) {
  switch (K) {
  case ElemKind::I1:
    return S & 1;
  case ElemKind::I8:
    return S & 0xff;
  case ElemKind::I16:
    return S & 0xffff;
  case ElemKind::I32:
    return S & 0xffffffffu;
  case ElemKind::F16:
    return floatToHalfBits(static_cast<float>(slotToDouble(S)));
  case ElemKind::BF16:
    return floatToBFloat16Bits(static_cast<float>(slotToDouble(S)));
  case ElemKind::F32:
    return std::bit_cast<uint32_t>(static_cast<float>(slotToDouble(S)));
  default:
    return S;
  }
}

/// Slot of kind K from raw storage bits (i1: any non-zero byte is true).
inline uint64_t decodeRaw(uint64_t R, ElemKind K) {
  switch (K) {
  case ElemKind::I1:
    return (R & 0xff) != 0;
  case ElemKind::I8:
    return normBits(R, 8);
  case ElemKind::I16:
    return normBits(R, 16);
  case ElemKind::I32:
    return normBits(R, 32);
  case ElemKind::F16:
    return doubleToSlot(halfBitsToFloat(static_cast<uint16_t>(R)));
  case ElemKind::BF16:
    return doubleToSlot(bfloat16BitsToFloat(static_cast<uint16_t>(R)));
  case ElemKind::F32:
    return doubleToSlot(std::bit_cast<float>(static_cast<uint32_t>(R)));
  default:
    return R;
  }
}

/// Reads Size (1, 2, 4 or 8) bytes of host memory, little-endian host.
inline uint64_t readRaw(const uint8_t *P, unsigned Size) {
  switch (Size) {
  case 1:
    return *P;
  case 2: {
    uint16_t V;
    std::memcpy(&V, P, 2);
    return V;
  }
  case 4: {
    uint32_t V;
    std::memcpy(&V, P, 4);
    return V;
  }
  default: {
    uint64_t V;
    std::memcpy(&V, P, 8);
    return V;
  }
  }
}
/// Writes the low Size bytes of Raw.
inline void writeRaw(uint8_t *P, uint64_t Raw, unsigned Size) {
  switch (Size) {
  case 1:
    *P = static_cast<uint8_t>(Raw);
    return;
  case 2: {
    uint16_t V = static_cast<uint16_t>(Raw);
    std::memcpy(P, &V, 2);
    return;
  }
  case 4: {
    uint32_t V = static_cast<uint32_t>(Raw);
    std::memcpy(P, &V, 4);
    return;
  }
  default:
    std::memcpy(P, &Raw, 8);
    return;
  }
}

/// An operand: slot offset, and stride 0 when a scalar is used for every
/// lane of a tile result, 1 otherwise.
struct Operand {
  uint32_t Off = 0;
  uint32_t Stride = 1;
};

/// One pre-resolved instruction (phis are not in the list: they are edge
/// copies).
struct CInst {
  ir::Opcode Op = ir::Opcode::Ret;
  ElemKind RK = ElemKind::I64; ///< Result element kind (memory ops: pointee).
  ElemKind OK = ElemKind::I64; ///< Operand element kind (cmp, cast, dot, reduce input).
  uint8_t Sub = 0;             ///< Predicate or reduce kind.
  uint8_t NumOps = 0;
  uint32_t Res = 0; ///< Result slot offset.
  uint32_t N = 1;   ///< Result elements (stores and atomics: lanes).
  Operand Ops[4];
  /// dot: M, K, N. reduce: outer, length, inner. broadcast/trans: map index.
  uint32_t D0 = 0, D1 = 0, D2 = 0;
  int64_t Imm = 0; ///< make_range start, gep element size, program id axis.
  /// Checked after execution when > 1 (`__multipleof` locals).
  int64_t MultipleOf = 1;
  uint32_t Edge[2] = {0, 0};
  const ir::Instruction *Src = nullptr;
};

struct PhiCopy {
  uint32_t Dst, Src, Count;
};

/// A control-flow edge: destination block and the phi copies it performs.
struct CEdge {
  uint32_t Block = 0;
  uint32_t CopyBegin = 0, CopyEnd = 0;
  /// A phi of the destination without an incoming value for this edge.
  const ir::Instruction *MissingPhi = nullptr;
};

struct CBlock {
  uint32_t Begin = 0, End = 0;
};

/// What a GPU-level instruction needs at run time (CInst::D0 indexes
/// CompiledFunction::GpuOps). Shapes and sizes come from the operand types,
/// which Lowering has checked with the verifier's rules.
/// desc_load and desc_store: memory operations whose operands are laid out
/// as a GPU operation's (GpuOpInfo).
inline bool isDescriptorAccess(ir::Opcode Op) {
  return Op == ir::Opcode::DescLoad || Op == ir::Opcode::DescStore;
}

struct GpuOpInfo {
  std::vector<Operand> Ops;      ///< Every operand, in operand order.
  ElemKind Elem = ElemKind::I64; ///< Element of the shared data / tile.
  unsigned ElemBytes = 0;
  std::vector<int64_t> Shape; ///< Slot, box or tile shape.
  uint64_t SlotBytes = 0;     ///< Bytes of one slot (shared operands).
  uint64_t Slots = 1;         ///< smem_alloc, smem_slot: slots of the buffer.
  uint64_t SharedOffset = 0;  ///< smem_alloc: its place in the program's shared memory.
  /// Per operand: 1 + the index in CompiledFunction::SharedBuffers of the
  /// smem_alloc a shared operand addresses (directly or through smem_slot);
  /// 0 for other operands, or when a phi or select hides the buffer.
  std::vector<uint32_t> Buffers;
  /// tma_load/tma_store into or from a column-major slot [X, Y]: X, the
  /// length of its rows in memory (the copy's element L is the slot's
  /// (L % X, L / X)); 0 for other slots.
  int64_t ColumnMajorRow = 0;
  /// make_tensor_desc: a tma_load or tma_store uses the descriptor, so the
  /// copy engine's rules (alignment, strides) apply to it.
  bool CopyEngine = false;
  /// extract_slice: the window's shape (Shape is the operand's).
  std::vector<int64_t> WindowShape;
  bool ARegisters = false;          ///< wgmma: A is a register tile.
  ElemKind AccKind = ElemKind::F32; ///< wgmma: accumulator element.
};

/// A run-time error raised inside the executor; caught by runKernel.
struct RunError {
  const ir::Instruction *Inst;
  std::string Message;
};

struct CompiledFunction {
  std::vector<CInst> Insts;
  std::vector<CBlock> Blocks;
  std::vector<CEdge> Edges;
  std::vector<PhiCopy> Copies;
  std::vector<std::vector<uint32_t>> Maps; ///< Gather maps of broadcast/trans.
  /// Start of the arena (arguments and constants); arguments are written per
  /// launch. The rest of the arena starts at zero.
  std::vector<uint64_t> Init;
  uint32_t NumSlots = 0; ///< Arena size.
  uint32_t PhiTemp = 0;  ///< Scratch for simultaneous phi copies.
  std::vector<uint32_t> ArgSlot;
  std::vector<GpuOpInfo> GpuOps;
  /// Bytes of shared memory one program instance uses (every smem_alloc).
  uint64_t SharedBytes = 0;
  /// The smem_alloc instructions, in the order GpuOpInfo::Buffers numbers them.
  std::vector<const ir::Instruction *> SharedBuffers;
};

/// The dot product of the interpreter (dot and wgmma share it so that a
/// program and its GPU-level rewrite give identical results): R = C + A x B
/// over M x K x N elements of slot arrays, A and B of kind In, C and R of kind
/// Acc, each (m, n) summed over k in increasing order. Scratch buffers are
/// reused between calls.
struct DotScratch {
  std::vector<float> A, B, Row;
};
void dotProduct(uint32_t M, uint32_t K, uint32_t N, const uint64_t *A, const uint64_t *B,
                const uint64_t *C, uint64_t *R, ElemKind In, ElemKind Acc, DotScratch &Scratch);

/// Describes an instruction for messages:
/// "masked_load at file.tc:3:5 [%x = masked_load %p, %m, %o : f32<8>]".
std::string describe(const ir::Instruction *I, const SourceManager *SM);

/// Lowers F; returns an error message (empty on success).
std::string compileFunction(const ir::Function &F, CompiledFunction &Out, const SourceManager *SM);

} // namespace tritonc::interp::detail
