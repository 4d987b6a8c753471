//===- Lowering.h - Triton-IR function to PTX (internal) --------*- C++ -*-===//
//
// FunctionLowering walks one function's blocks in order and writes PTX
// through a PTXFunctionBuilder. Each tile value lives in registers: one PTX
// register per "register" index of its layout (LayoutAssignment.h), so a
// thread's registers hold the elements its layout gives it. Scalars are
// uniform: every thread holds the same value in one register.
//
// The implementation is split by concern:
//   Lowering.cpp         values, layouts, control flow, phis, barriers
//   LowerElementwise.cpp arithmetic, comparisons, casts, select, gep, ranges
//   LowerMath.cpp        exp/log/sin/cos/tanh/... (f64 in software)
//   LowerMemory.cpp      global loads/stores (vectorized), atomics
//   LowerShared.cpp      layout conversions and reductions via shared memory
//   LowerDot.cpp         dot on FMA units and on tensor cores (mma.sync)
//   PackedNarrowing.cpp  f32 -> f16 conversions packed in pairs by their store
//
// Shared memory is one dynamic buffer used as scratch by one instruction at a
// time. Every access group is recorded as a statement for the barrier
// placement (analysis/BarrierPlacement.h) together with a reserved line in
// the PTX; after the function is emitted, the reserved lines the analysis
// picks become `bar.sync 0`.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/analysis/AffineAccess.h"
#include "tritonc/analysis/AxisInfo.h"
#include "tritonc/analysis/BarrierPlacement.h"
#include "tritonc/analysis/GlobalOrdering.h"
#include "tritonc/analysis/LayoutAssignment.h"
#include "tritonc/analysis/LoweringAccesses.h"
#include "tritonc/codegen/CodeGen.h"
#include "tritonc/ir/Dominance.h"
#include "tritonc/target/ptx/PTXBuilder.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "MmaSharedLayout.h"

namespace tritonc::transform {
class Loop;
} // namespace tritonc::transform

namespace tritonc::codegen {

using analysis::AccessPlan;
using analysis::broadcastOperandLayout;
using analysis::DotKind;
using analysis::LayoutAssignment;
using analysis::LinearLayout;
using analysis::numRegisters;
using analysis::registerRemap;
using analysis::reshapeLayout;
using analysis::transposeLayout;
using ptx::Operand;
using ptx::Reg;
using ptx::Ty;
using Regs = std::vector<Reg>;

/// A tile's registers as a consumer that may pack pairs of 16-bit elements
/// into 32-bit words reads them (PackedNarrowing.cpp): the elements
/// themselves, or the f32 registers of a conversion to f16 or bf16 that is
/// lowered at this use, so that a packed pair takes one `cvt.rn.f16x2.f32`
/// instead of two conversions and a `mov`.
class PackableRegs {
public:
  /// NOLINTNEXTLINE: implicit, so that plain registers pass directly.
  PackableRegs(Regs Elements) : Elements(std::move(Elements)) {}
  /// f32 values (Wide) still to be rounded to Half (F16 or BF16).
  PackableRegs(Regs Wide, Ty Half);
  size_t size() const { return Elements.size(); }
  /// Element R; from a wide register, converted here on first use.
  Reg element(ptx::PTXFunctionBuilder &B, size_t R) const;
  /// Elements Lo and Lo + 1 as one b32 word, Lo in the low half.
  Reg word(ptx::PTXFunctionBuilder &B, size_t Lo) const;
  /// Every element (converting the wide ones).
  Regs elements(ptx::PTXFunctionBuilder &B) const;
  /// The registers in another layout: its register R is this one's Map[R].
  PackableRegs remapped(const std::vector<int32_t> &Map) const;

private:
  /// Elements converted so far (all of them without Wide).
  mutable Regs Elements;
  Regs Wide;
  Ty Half = Ty::F16;
};

/// Thrown for constructs the back end does not lower (yet); generatePTX turns
/// it into an error at Loc.
struct UnsupportedConstruct {
  SourceLoc Loc;
  std::string Message;
  UnsupportedConstruct(SourceLoc L, std::string M) : Loc(L), Message(std::move(M)) {}
};

/// The PTX register type of an IR scalar type. i8 and i16 live in 16-bit
/// registers (i8 kept sign-extended), i1 in predicates, pointers in u64.
Ty ptxTypeOf(const ir::Type *Scalar);
/// The unsigned type of a signed integer type (others unchanged).
Ty unsignedTy(Ty T);
/// The untyped bits type (b16, b32, b64) of T's width.
Ty bitsTy(Ty T);
/// The type that moves a value of register type T through memory: 16-bit
/// values as b16, predicates as b16 (0 or 1, in shared memory), others as is.
Ty moveTypeOf(Ty T);
/// Element strides of a tile staged in shared memory: row-major, with every
/// row (last dimension) padded by 16 bytes. The padding puts consecutive
/// rows 4 banks apart, so threads reading down a column and ldmatrix reading
/// 8 rows of 16 bytes hit different banks, while every row still starts
/// 16-byte aligned for vector accesses. Rank-1 tiles are not padded.
std::vector<int64_t> sharedTileStrides(const ir::Shape &S, unsigned ElemBytes);
/// Bytes of a tile staged with sharedTileStrides.
uint64_t sharedTileBytes(const ir::Shape &S, unsigned ElemBytes);
/// Whether no lane or warp basis of L reaches coordinate Dim at or past
/// Bound (a power of two): every thread's own coordinate along Dim, an XOR
/// of those bases, then stays below Bound, and higher bits of it come from
/// the register alone.
bool threadCoordinateBelow(const LinearLayout &L, unsigned Dim, int64_t Bound);
/// How many consecutive registers of L a scratch tile of Bytes-sized
/// elements is written from in one vector access (LowerShared.cpp).
unsigned sharedVectorWidth(const LinearLayout &L, unsigned Bytes);
/// Bytes one element of Scalar occupies in memory (i1: 1, pointers: 8).
unsigned memBytesOf(const ir::Type *Scalar);
/// V, or what the convert_layout V converts (repeatedly): an operation
/// that stages its operand through shared memory itself (a bulk tensor
/// store) reads it in the layout it has, not in the one a conversion names.
using analysis::beforeConversions;

/// Rings above this leave too little of the shared memory a program may use
/// for the other instructions' scratch (192 KB of the H100's 227 KB; on
/// smaller devices all but 8 KB, where a conversion next to live rings goes
/// in smaller row blocks): such functions keep register loads. The rest also
/// holds the mbarriers of bulk tensor copies (scratchLimit).
inline uint64_t ringBudget(const CodeGenOptions &Options) {
  uint64_t Limit = Options.sharedMemoryLimit();
  return std::min<uint64_t>(192 * 1024, Limit > 8 * 1024 ? Limit - 8 * 1024 : 0);
}

/// The blocks reached from Start (included) along successors (Forward) or
/// predecessors, not going on past Stop.
std::set<const ir::BasicBlock *> reachableBlocks(std::vector<const ir::BasicBlock *> Start,
                                                 bool Forward,
                                                 const ir::BasicBlock *Stop = nullptr);

/// Bytes of one slot of a tensor-core ring holding a Rows x Cols tile of
/// 2-byte elements: 1024-aligned, as the swizzle atoms must start aligned.
inline uint64_t wgmmaSlotBytes(int64_t Rows, int64_t Cols) {
  return (static_cast<uint64_t>(Rows * Cols) * 2 + 1023) / 1024 * 1024;
}

/// Slots a ring needs beyond one per stage while its dot's MMAs stay in
/// flight: with several warpgroups, another group may still read the
/// oldest slot (AsyncCopies.cpp).
inline unsigned inFlightExtraSlots(unsigned NumWarps) { return NumWarps > 4 ? 1 : 0; }

/// A conversion's scratch tile without row padding whose 16-byte chunks are
/// permuted per row (LowerShared.cpp): element (Row, Col) of a 2-D tile at
/// byte (Row << RowShift) + Col * ElemBytes, with offset bit OffsetBit
/// flipped wherever row bit RowBit is set, for each pair of RowToChunk.
struct SwizzledScratch {
  unsigned RowShift = 0, ElemBytes = 1;
  std::vector<std::pair<unsigned, unsigned>> RowToChunk; // (RowBit, OffsetBit)
  uint64_t offset(int64_t Row, int64_t Col) const;
  uint64_t bytes(int64_t Rows) const { return static_cast<uint64_t>(Rows) << RowShift; }
};

/// A ring of shared-memory slots that loads feeding a dot operand copy into
/// asynchronously (AsyncCopies.cpp).
struct AsyncRing {
  std::vector<const ir::Instruction *> Loads, Phis;
  /// A `trans` between the component and the dot, folded into the layout.
  const ir::Instruction *Trans = nullptr;
  /// The slots' layout, in the loads' coordinates (tensor-core rings).
  MmaSharedLayout SL;
  /// Rings of FMA dots (LowerDot.cpp) instead hold the operand k-major with
  /// padded rows, as the FMA loop reads it, and rings of mma.sync dots hold
  /// it as lowerDot stages it for ldmatrix (A [M, K], B [K, N], padded rows):
  /// element (c0, c1) of a load sits at element offset c0 PlainStrides[0] +
  /// c1 PlainStrides[1] of the slot; KStride is the slot's row stride in
  /// elements. Zero for other rings.
  std::array<int64_t, 2> PlainStrides = {0, 0};
  int64_t KStride = 0;
  unsigned ElemBytes = 2;
  bool isPlain() const { return KStride != 0; }
  uint64_t SlotBytes = 0, Offset = 0;
  unsigned NumSlots = 2;
  /// Byte offset of the next slot to write (a mutable register).
  Reg Cursor;

  // Rings filled by bulk tensor copies (TensorCopies.cpp).
  /// Index of the ring's tensor map (KernelInfo::TensorMaps), or -1: cp.async.
  int TensorMap = -1;
  /// The map's kernel parameter and its generic address.
  std::string MapParam;
  Reg MapAddress;
  /// Index of the next slot to write, and one phase bit per slot (flipped at
  /// each fill): mutable registers, the same in every thread.
  Reg SlotIndex, PhaseBits;
  /// Offset of the ring's mbarriers (one per slot) from the first mbarrier.
  unsigned MbarOffset = 0;
  /// A ring filled in lockstep with an earlier one shares that ring's
  /// mbarriers (TensorCopies.cpp): its index, or -1. On a ring whose
  /// mbarriers others share: the copies that arrive on each phase.
  int MbarShare = -1;
  unsigned MbarArrivals = 1;
};

/// Where one column block of a bulk tensor store's staging tile sits when it
/// borrows a ring slot that no copy fills at the store (TensorStores.cpp):
/// ring Ring's slot SlotsAhead places after its cursor, Offset bytes in.
struct RingSlotBox {
  unsigned Ring = 0, SlotsAhead = 0;
  uint64_t Offset = 0;
};

/// A store written by the bulk tensor copy engine (TensorStores.cpp).
struct TensorStorePlan {
  analysis::TensorAccess TA;
  /// The scratch layout of one row block, and how many blocks the tile has.
  MmaSharedLayout SL;
  unsigned Chunks = 1;
  /// Column blocks staged in free ring slots instead of scratch (one entry
  /// per block, Chunks = 1), or none.
  std::vector<RingSlotBox> RingBoxes;
  /// Generic-proxy accesses to global memory may precede the store: its
  /// threads also fence global memory to the async proxy.
  bool FenceGlobal = false;
  /// Index of the store's tensor map, its kernel parameter, and the map's
  /// generic address (set at the first use).
  int TensorMap = -1;
  std::string MapParam;
  Reg MapAddress;
};

/// P over the parameters as the launcher evaluates it (TensorMapSpec.h); P's
/// atoms must be integer parameters (AA.isOverParameters).
ParamPoly toParamPoly(const analysis::Poly &P, const analysis::AffineAccessAnalysis &AA);
/// Spins until the phase of parity Parity (b32, 0 or 1) of the mbarrier at
/// shared address Mbar has completed.
void emitPhaseWait(ptx::PTXFunctionBuilder &B, const Reg &Mbar, const Reg &Parity);

class FunctionLowering {
public:
  FunctionLowering(const ir::Function &F, const LayoutAssignment &LA,
                   const analysis::AxisInfoAnalysis &AI, ptx::PTXFunctionBuilder &B,
                   const CodeGenOptions &Options);
  /// Emits the whole kernel and places the barriers: runs steps() in order.
  void run();
  /// One step of run(): a planning step, the lowering of the blocks, or a
  /// step on the emitted code. loweringSteps() (CodeGen.h) lists them.
  struct Step {
    const char *Name;
    const char *Description;
    void (FunctionLowering::*Run)();
  };
  /// The steps of run(), in the order it runs them.
  static const std::vector<Step> &steps();
  /// The dynamic shared memory of a launch: rings and scratch, then the
  /// mbarriers of bulk tensor copies (the kernel declares no static shared
  /// memory, see TensorCopies.cpp).
  unsigned sharedBytes() const {
    return static_cast<unsigned>(MbarBytes ? mbarrierOffset() + MbarBytes : dataSharedBytes());
  }
  unsigned numBarriers() const { return NumBarriers; }
  /// Where the planning steps report optimization remarks (null: nowhere).
  void setRemarks(DiagnosticEngine *D) { Remarks = D; }

  // --- Optimization remarks (Lowering.cpp) ---------------------------------
  /// Whether a remark of Kind from Pass would be recorded: test it before
  /// composing a costly message.
  bool wantsRemark(RemarkKind Kind, const char *Pass) const {
    return Remarks && Remarks->wantsRemark(Kind, Pass);
  }
  /// Reports a remark at At's source location.
  void remark(RemarkKind Kind, const char *Pass, const ir::Instruction &At, std::string Message) {
    if (Remarks)
      Remarks->remark(Kind, Pass, SourceRange(At.Loc), std::move(Message));
  }
  DiagnosticEngine *Remarks = nullptr;

  // --- Values (Lowering.cpp) ---------------------------------------------
  /// V (a tile) in layout L, converting or rematerializing as needed.
  Regs get(const ir::Value *V, const LinearLayout &L);
  /// V in layout L where only the first register of each group of Vec (the
  /// low register bits of L) is needed, as for the addresses and masks of
  /// vector accesses: a rematerialized V is computed for those registers
  /// only (the others stay empty); any other V is taken whole.
  Regs getVectorHeads(const ir::Value *V, const LinearLayout &L, unsigned Vec);
  /// The addresses of a global access through the pointer tile Ptr in
  /// layout L (vectors of Vec elements along dimension Dim): per register,
  /// an address register and a byte offset to add to it (LowerMemory.cpp).
  struct AddressRuns {
    Regs Base;
    std::vector<int64_t> Offset;
  };
  AddressRuns getAddressRuns(const ir::Value *Ptr, const LinearLayout &L, unsigned Vec,
                             unsigned Dim);
  /// For a mask and(broadcast(x), broadcast(y)) read in layout L: a
  /// predicate that is true where every element this thread holds is true
  /// (LowerMemory.cpp); nullopt for masks of other forms.
  std::optional<Reg> insideBounds(const ir::Value *Mask, const LinearLayout &L);
  /// V in its own layout (a non-rematerializable tile) or its scalar.
  Regs getOwn(const ir::Value *V);
  /// The register of a scalar value.
  Reg scalar(const ir::Value *V);
  /// A value of Ty T holding the IR constant C (scalar).
  Reg constant(const ir::Constant &C);
  /// A fresh register of type T holding zero (false, +0.0).
  Reg zeroOf(Ty T);
  /// Per output dimension, the coordinate of this thread's register 0 in L
  /// (u32, computed once in the prologue).
  const Regs &threadCoords(const LinearLayout &L);
  /// True in exactly one thread of each group holding the same elements of L
  /// (the lane and warp bits L ignores are zero). Null register if all own.
  Reg ownerPredicate(const LinearLayout &L);
  /// Coordinates of register R of L relative to the thread's register 0.
  std::vector<int64_t> registerCoords(const LinearLayout &L, int32_t R) const;
  /// Registers of L whose element is already held by a lower register.
  std::vector<bool> duplicateRegisters(const LinearLayout &L) const;
  /// Fills the duplicate registers of Out (layout L) from the registers that
  /// hold their elements.
  void fillDuplicateRegisters(const LinearLayout &L, Regs &Out) const;
  Reg laneId();
  Reg warpId();
  Reg threadId();
  /// The L2 cache policy of accesses through Ptr: a `createpolicy` register
  /// when Ptr comes from a parameter marked __evict_first or __evict_last.
  std::optional<Reg> cachePolicy(const ir::Value *Ptr);
  /// Base address (u32) of the scratch shared memory (after the rings).
  Reg sharedBase();
  /// Base address (u32) of the dynamic shared memory (where the rings are).
  Reg ringBase();

  // --- Shared memory bookkeeping (Lowering.cpp) ---------------------------
  /// Records that the following code reads or writes scratch bytes
  /// [0, Bytes) of shared memory (addStatement).
  void sharedAccess(bool Write, uint64_t Bytes);
  /// A barrier that is always needed (around scalar atomics).
  void forcedBarrier();
  /// A `barrier` op of the IR (insert-barriers): before a GPU-level
  /// operation or a terminator it is emitted here; otherwise at the first
  /// statement or barrier of the next instruction's lowering (so that a
  /// barrier that lowering starts with serves both), or after it.
  void irBarrier(const ir::Instruction &I);
  /// Records a statement of the current instruction's lowering. A barrier
  /// is emitted before it where it conflicts with the statements since the
  /// last barrier in this instruction (analysis::conflictsWithSegment, the
  /// rule LoweringAccesses follows); the barriers it needs against earlier
  /// instructions are insert-barriers' (checkBarriersStep).
  void addStatement(analysis::SyncStatement S);

  // --- Global memory ordering (GlobalOrdering.cpp) ------------------------
  /// Records that the following code reads and/or writes global memory
  /// through Ptr: each thread the elements of layout L (a tile), else every
  /// thread (a scalar), or thread 0 alone (Thread0: a scalar atomic), as a
  /// statement (addStatement): where another mapping touched that memory
  /// before, insert-barriers put a barrier before this instruction.
  void globalAccess(const ir::Value *Ptr, bool Reads, bool Writes, const LinearLayout *L,
                    bool Thread0 = false);
  /// The alias class of the memory Ptr points into (analysis/GlobalOrdering.h).
  uint64_t globalClassOf(const ir::Value *Ptr);
  /// Whether a write that may alias Load's memory can run before Load.
  bool mayReadProgramWrites(const ir::Instruction &Load);

  ptx::PTXFunctionBuilder &B;
  const LayoutAssignment &LA;
  const analysis::AxisInfoAnalysis &AI;
  const CodeGenOptions &Options;

  // --- Per-concern lowering (other files) ---------------------------------
  Regs lowerElementwise(const ir::Instruction &I, const LinearLayout *L);
  Reg lowerScalarOp(const ir::Instruction &I, const std::vector<Reg> &Ops);
  Reg lowerMath(ir::Opcode Op, const ir::Type *T, const Reg &X);
  Reg convertScalar(const Reg &X, const ir::Type *From, const ir::Type *To, ir::Opcode Op);
  Regs makeRange(const ir::Instruction &I, const LinearLayout &L);

  void lowerLoad(const ir::Instruction &I);
  void lowerStore(const ir::Instruction &I);
  /// A bf16 atomic add on sm_80 as a compare-and-swap loop; returns the old
  /// value (see LowerMemory.cpp).
  Reg bf16AddByCas(const Reg &Ptr, const Reg &Val, const Reg &Guard);
  void lowerAtomic(const ir::Instruction &I);

  // --- print and assert (LowerDebug.cpp) -----------------------------------
  void lowerPrint(const ir::Instruction &I);
  void lowerAssert(const ir::Instruction &I);
  /// A generic pointer to a new module-scope copy of Text (NUL-terminated).
  Reg debugString(const std::string &Text);
  /// `call` of an extern function with the given arguments (.b32 or .b64).
  void callExtern(const std::string &Callee, const std::vector<Reg> &Args, bool HasResult);
  /// Declares what print needs in the kernel (its local argument buffer);
  /// after run().
  void declareDebugSupport();
  /// Module-scope lines the kernel needs (vprintf, strings); after run().
  const std::vector<std::string> &moduleDeclarations() const { return ModuleDecls; }

  Regs convertViaShared(const PackableRegs &Values, const ir::Type *Elem, const ir::Shape &S,
                        const LinearLayout &From, const LinearLayout &To);
  /// How many row blocks a conversion of an [S0, S1] tile goes through
  /// shared memory in (1: all at once; see convertInRowBlocks).
  unsigned conversionChunks(const ir::Shape &S, unsigned ElemBytes, const LinearLayout &To) const;
  Regs convertInRowBlocks(const PackableRegs &Vals, const ir::Type *Elem, const ir::Shape &S,
                          const LinearLayout &From, const LinearLayout &To, unsigned Chunks);
  void lowerReduce(const ir::Instruction &I);
  /// Makes a scalar computed by thread 0 only (Value valid there) uniform.
  Reg broadcastFromThread0(const Reg &Value, const ir::Type *T);
  /// Stores Values (layout L) row-major at shared byte offset 0 (one write per
  /// element, by its owner). Used by conversions and dot operands.
  /// RegisterGuard, if given, adds a predicate per register (vector head).
  /// With Swizzle, the tile is stored in that layout instead of row-major.
  void storeTileToShared(const PackableRegs &Values, const ir::Type *Elem, const ir::Shape &S,
                         const LinearLayout &L, uint64_t ByteOffset,
                         const std::function<Reg(int32_t)> &RegisterGuard = {},
                         const SwizzledScratch *Swizzle = nullptr);

  void lowerDot(const ir::Instruction &I);
  /// f32 dot on FMA units with the 4 x 4 blocks of fmaAccumulatorLayout:
  /// 16-byte shared-memory reads of A (staged transposed) and B.
  void lowerDotFmaVectorized(const ir::Instruction &I);
  /// True when the dot takes lowerDotFmaVectorized (f32, 4 x 4 blocks).
  bool isVectorizedFmaDot(const ir::Instruction &Dot) const;
  /// The layout a dot operand is taken in: its own, or the default layout
  /// for a rematerialized tile.
  LinearLayout operandLayout(const ir::Value *V) const;

  // --- wgmma (LowerWgmma.cpp) -----------------------------------------------
  void lowerWgmma(const ir::Instruction &I);
  /// Stores Values (layout L, 16-bit elements) into the swizzled tile SL at
  /// shared address Base, each element once, vectorized up to 16 bytes, or
  /// four 8 x 8 matrices per `stmatrix` where L's registers are mma
  /// fragments and no guard applies.
  /// With RegisterGuard (a predicate per register, as a row block of a
  /// taller tile is written), row coordinates are taken modulo SL's rows.
  /// With ColumnBlockBases (one address per column block of SL), each
  /// column block is written at its own address instead of after the
  /// previous one; no thread coordinate may reach past the first block.
  /// With ZerosIf, the stores write zeros where that predicate holds (the
  /// accumulator of a skipped loop, ZeroTripGuard.cpp); Values lowers the
  /// registers to store, on the other path only.
  void storeTileToMmaShared(const std::function<PackableRegs()> &Values, const LinearLayout &L,
                            const MmaSharedLayout &SL, const Reg &Base,
                            const std::function<Reg(int32_t)> &RegisterGuard = {},
                            const Regs &ColumnBlockBases = {}, const Reg &ZerosIf = {});
  /// The 64-bit matrix descriptor of a tile in layout SL at shared address Addr.
  Reg wgmmaDescriptor(const MmaSharedLayout &SL, const Reg &Addr);
  /// How the warpgroups of a wgmma tile its output: Gm x Gn warpgroups,
  /// each MReps x NReps blocks of m64nInstrN (a dot's plan, or a #wgmma
  /// layout).
  struct WgmmaTiling {
    int32_t Gm = 1, Gn = 1, InstrN = 8;
    int64_t MReps = 1, NReps = 1;
  };
  /// This warpgroup's descriptors of operands in layouts SA and SB at
  /// shared addresses ABase and BBase.
  std::pair<Reg, Reg> warpgroupDescriptors(const WgmmaTiling &T, const MmaSharedLayout &SA,
                                           const Reg &ABase, const MmaSharedLayout &SB,
                                           const Reg &BBase);
  /// The MMAs of k-step K0 (16 deep) into Acc, from descriptors DescA and
  /// DescB at k-step 0; Scale false ignores Acc's values (scale-d).
  void issueWgmmaStep(const WgmmaTiling &T, const MmaSharedLayout &SA, const MmaSharedLayout &SB,
                      const Reg &DescA, const Reg &DescB, int64_t K0, const Reg &Scale,
                      const std::string &InTy, Regs &Acc);
  /// Issues the wgmma instructions of dot I over operands in shared memory,
  /// accumulating in place into Acc (the dot's layout), and waits until at
  /// most InFlight groups of them are pending.
  void emitWgmmaLoop(const ir::Instruction &I, const MmaSharedLayout &SA, const Reg &ABase,
                     const MmaSharedLayout &SB, const Reg &BBase, Regs &Acc, unsigned InFlight);

  // --- Explicit shared buffers and asynchronous copies (LowerAsync.cpp) -----
  /// Places every smem_alloc after the planned rings (a step of run()).
  void planSharedBuffers();
  /// smem_alloc, smem_slot, local_load/store, cp_async and its commit and
  /// wait, barrier.
  void lowerSharedBufferOp(const ir::Instruction &I);
  void lowerLocalLoad(const ir::Instruction &I);
  void lowerLocalStore(const ir::Instruction &I);
  void lowerCpAsync(const ir::Instruction &I);
  /// Rejects slot elements the lowering does not handle (8-bit, i1).
  void checkSlotElement(const ir::Instruction &I, const ir::Type *Elem);
  /// How the registers of a distributed layout map to a slot's elements.
  struct SlotAccess {
    unsigned ElemBytes = 2, Vec = 1; ///< Vec: elements per vector access
    /// Per register, its element's offset (elements) for lane 0 of warp 0.
    std::vector<int64_t> RegisterOffsets;
    /// Offset bits a thread's lane and warp may set (elements), and the
    /// thread's own offset in bytes (u32, from the prologue).
    uint64_t ThreadBits = 0;
    Reg ThreadOffset;
  };
  SlotAccess slotAccess(const ir::Type *Slot, const LinearLayout &L, unsigned MaxVec);
  /// The address of register R's element: a base register (one per set of
  /// offset bits shared with the thread's, kept in Bases) and an immediate.
  std::pair<Reg, int64_t> slotAddress(const SlotAccess &A, const Reg &Slot, int32_t R,
                                      std::map<uint64_t, Reg> &Bases);
  /// Operand Idx of a dot when it is a local_load of a slot that still
  /// holds the loaded data at the dot; null otherwise, with a reason in Why
  /// where it is such a local_load.
  const ir::Instruction *slotLoadOperand(const ir::Instruction &Dot, unsigned Idx,
                                         std::string &Why) const;
  /// The slot a dot's operand Idx is loaded from when it is 2-D with
  /// ElemBytes-byte elements; else nullptr, with Why (NotIt when the slot's
  /// shape or element is what fails).
  const ir::Value *slot2DOperand(const ir::Instruction &Dot, unsigned Idx, unsigned ElemBytes,
                                 const char *NotIt, std::string &Why) const;
  /// Operand Idx of a wgmma dot read straight from its slot: the slot value
  /// and its layout as wgmma sees it; else nullopt, with Why for remarks.
  std::optional<std::pair<const ir::Value *, MmaSharedLayout>>
  directSlotOperand(const ir::Instruction &Dot, unsigned Idx, std::string &Why) const;
  /// How wgmma reads a slot of type T through descriptors (a 2-D slot of
  /// 16-bit elements whose rows are exactly its swizzle width); else Why.
  std::optional<MmaSharedLayout> wgmmaSlotLayout(const ir::Type *T, std::string &Why) const;
  /// Operand Idx of an mma.sync or FMA dot read straight from a row-major
  /// slot (column-major with ColumnMajor: A of lowerDotFmaVectorized, read
  /// as [K, M]): the slot value and the stride (elements) of its slowest
  /// dimension; else Why.
  std::optional<std::pair<const ir::Value *, int64_t>>
  plainSlotOperand(const ir::Instruction &Dot, unsigned Idx, std::string &Why,
                   bool ColumnMajor = false) const;
  /// plainSlotOperand in the slot layouts the dot's own lowering reads:
  /// lowerDotFmaVectorized's A column-major, every other one row-major.
  std::optional<std::pair<const ir::Value *, int64_t>>
  dotSlotOperand(const ir::Instruction &Dot, unsigned Idx, std::string &Why) const;
  /// A of lowerDotFmaVectorized in a column-major slot in a swizzle mode
  /// (async-rings' slot for an A loaded along K), read through its layout
  /// (slotAddresser) with each run of 4 rows one aligned 16-byte chunk: the
  /// slot value; else nullptr, with Why.
  const ir::Value *swizzledColumnSlotOperand(const ir::Instruction &Dot, std::string &Why) const;
  /// Operand Idx of an mma.sync dot read straight from a 2-D slot of 16-bit
  /// elements by ldmatrix, in any #shared layout that keeps each aligned run
  /// of 8 elements along one dimension as one aligned 16-byte chunk
  /// (row-major or column-major, or either swizzled by 16-byte chunks): the
  /// slot value, and in ChunkDim that dimension (1 for rows); else nullptr,
  /// with Why.
  const ir::Value *matrixSlotOperand(const ir::Instruction &Dot, unsigned Idx, std::string &Why,
                                     unsigned *ChunkDim = nullptr) const;
  /// Operand Idx of a tf32 dot read straight from a 2-D slot of 4-byte
  /// elements, element by element through its #shared layout
  /// (slotAddresser): the slot value; else nullopt, with Why.
  const ir::Value *elementSlotOperand(const ir::Instruction &Dot, unsigned Idx,
                                      std::string &Why) const;
  /// Where element (ThreadRow + Row, ThreadCol + Col) of Slot lies: a base
  /// register and an immediate byte offset. ThreadRow and ThreadCol are
  /// prologue registers whose set bits lie within RowBits and ColBits; Row
  /// and Col are constants with none of those bits (so the slot layout's
  /// offset, linear over GF(2), is the thread's XOR the constant's).
  using SlotAddresser = std::function<std::pair<Reg, int64_t>(int64_t Row, int64_t Col)>;
  SlotAddresser slotAddresser(const ir::Value *Slot, const Reg &ThreadRow, uint64_t RowBits,
                              const Reg &ThreadCol, uint64_t ColBits);
  /// Reports that a dot operand loaded from a slot is staged again.
  void remarkSlotStaged(const ir::Instruction &Dot, unsigned Idx, const std::string &Why);
  /// Offsets of the smem_alloc buffers from the ring base.
  std::map<const ir::Instruction *, uint64_t> BufferOffsets;
  /// Offsets of the smem_alloc buffers of mbarriers (isMbarrierBuffer) in
  /// the mbarrier area (MbarBase), after the back end's own mbarriers.
  std::map<const ir::Instruction *, uint64_t> MbarBufferOffsets;
  /// Blocks that write the slots of smem_alloc buffers (cp_async,
  /// local_store): like the planner's ring loads, they separate themselves
  /// from scratch over the rings (separateFromScratchOverRings).
  std::set<const ir::BasicBlock *> ExplicitCopyBlocks;
  /// Whether some shared memory is taken by rings or buffers that scratch may
  /// reuse in blocks where they hold no data (RingLiveBlocks).
  bool hasRingSpace() const { return !Rings.empty() || !BufferOffsets.empty(); }
  /// The blocks where the slots of Alloc may hold data a later read needs:
  /// on a path from a block that writes a slot to one that reads one; every
  /// block where a use of the buffer is not such a read or write.
  std::set<const ir::BasicBlock *> bufferLiveBlocks(const ir::Instruction &Alloc);
  /// smem_alloc buffers whose slots mma.sync or FMA dots read directly: their
  /// copies ask L2 for 256-byte blocks.
  std::set<const ir::Instruction *> PrefetchedBuffers;
  /// local_loads whose every user reads the slot itself (never lowered).
  std::set<const ir::Instruction *> UnloadedSlotReads;
  /// The thread offsets of slotAccess, by slot type and layout.
  std::map<std::string, Reg> ThreadSlotOffsets;
  /// Whether the function issues cp_async (its copies drain at `ret`), and
  /// whether wgmma reads some slot directly (shared writes then fence the
  /// async proxy).
  bool HasExplicitCopies = false, SlotsReadByAsyncProxy = false;

  // --- Asynchronous copies into rings (AsyncCopies.cpp) ----------------------
  /// Finds the loads that become cp.async into rings and sizes the rings.
  void planAsyncCopies();
  /// Fills Ring with the component of dot operand Root; false with the
  /// reason in Why (for remarks) and the instruction it is about in At.
  bool collectAsyncComponent(const ir::Value *Root, const ir::Instruction &Dot, unsigned OperandIdx,
                             AsyncRing &Ring, std::string &Why, const ir::Instruction *&At);
  /// Why Load's vectors are narrower than 4 bytes, in words (for remarks).
  std::string whyNarrowVectors(const ir::Instruction &Load, unsigned ElemBytes) const;
  /// The cp.async.wait_group count of Dot, whose rings are DotRings.
  unsigned cpAsyncWaitCount(const ir::Instruction &Dot, const std::vector<unsigned> &DotRings,
                            const ir::DominatorTree &DT) const;
  /// Reports why dot operand OperandIdx gets no asynchronous copies.
  void remarkNotAsync(const ir::Instruction &At, unsigned OperandIdx, const std::string &Why);
  /// Reports the cp.async rings, and the dots that wait for all their
  /// copies each iteration.
  void remarkRings();
  /// Remarks on how each dot is computed (LowerDot.cpp).
  void remarkDots();
  // The steps of run() that are not planning functions of their own
  // (Lowering.cpp).
  void declareParameters();
  void planZeroTripGuardsStep();
  void lowerBlocks();
  void checkBarriersStep();
  /// The dominator tree of run()'s steps (built by declareParameters).
  std::optional<ir::DominatorTree> RunDominators;
  void lowerAsyncLoad(const ir::Instruction &I, AsyncRing &Ring);
  /// Fill RingLiveBlocks and AfterScratchOverRings (see below).
  void markRingLiveBlocks(const ir::DominatorTree &DT);
  void markBlocksAfterScratchOverRings();
  /// Before the first ring load of a block that may run after the loop
  /// reading the ring did: drain the rings and the MMAs, then a barrier.
  void drainBeforeRefill();
  /// Waits for every cp.async copy and in-flight MMA, then a barrier.
  void waitForCopiesAndMmas();
  /// Before the first ring load of a block that scratch over the rings may
  /// precede: a proxy fence and a barrier.
  void separateFromScratchOverRings();
  /// The ring value (a load or phi, under a folded `trans`) that operand Idx
  /// of a dot is, and its ring's index; null where the operand is no ring
  /// value.
  std::pair<const ir::Instruction *, unsigned> ringOperand(const ir::Instruction &Dot,
                                                           unsigned Idx) const;
  /// Operand Idx of a wgmma dot when it is a ring slot: its address and layout.
  std::optional<std::pair<Reg, MmaSharedLayout>> asyncOperand(const ir::Instruction &Dot,
                                                              unsigned Idx);
  /// Operand Idx of a vectorized FMA dot or an mma.sync dot when it is a
  /// plain ring slot: its address and row stride (elements).
  std::optional<std::pair<Reg, int64_t>> plainRingOperand(const ir::Instruction &Dot, unsigned Idx);
  /// Waits for the copies a dot reads and makes them visible to it.
  void waitForAsyncOperands(const ir::Instruction &Dot);
  /// The loop phi a dot accumulates into and feeds back (c = phi[.., dot],
  /// dot(a, b, c) used only by c), or null.
  const ir::Instruction *inPlaceAccumulator(const ir::Instruction &Dot) const;
  /// Waits for in-flight wgmma before an instruction reads their registers.
  void waitForPendingMma(const ir::Instruction &User);

  // --- Accumulators zeroed by their first MMA (ZeroTripGuard.cpp) -----------
  struct ZeroTripPlan {
    const ir::Instruction *Phi, *Dot, *Cond;
    const ir::BasicBlock *Header, *Exit;
    /// Valid where a bulk tensor store is the accumulator's only reader
    /// after the loop (ZeroStagedStores): the skipping path sets it instead
    /// of zeroing the registers, and the store stages zeros.
    Reg Skipped;
  };
  /// The accumulator phi of loop L whose zeros its in-flight wgmma dot may
  /// write itself, or nullopt.
  /// Without a plan, Why says why not (for remarks).
  std::optional<ZeroTripPlan> zeroTripAccumulator(const transform::Loop &L, std::string &Why);
  /// The planned bulk tensor store that is the only reader of accumulator
  /// Phi after loop L, through Conversions (filled in order), or null.
  const ir::Instruction *zeroStagedStore(const ir::Instruction &Phi, const transform::Loop &L,
                                         std::vector<const ir::Instruction *> &Conversions) const;
  /// Fills ZeroTrips and ZeroTripHeaders (after planAsyncCopies).
  void planZeroTripGuards(const ir::DominatorTree &DT);
  /// Ends the plan's preheader (after its edge copies, the accumulator's
  /// left out): enters the header if the loop runs, else zeroes the
  /// accumulator and goes to the exit.
  void emitZeroTripGuard(const ZeroTripPlan &P);

  // --- Early ring refills (EarlyRefill.cpp) ----------------------------------
  /// The instructions after an in-flight wgmma dot over TMA rings, in its
  /// block, that are lowered after its barrier and before its k-steps (the
  /// refills of its rings and their arithmetic), or none where that is not
  /// safe.
  std::vector<const ir::Instruction *> refillsAheadOf(const ir::Instruction &Dot) const;
  /// Lowers refillsAheadOf(Dot) now; lowerBlock then skips them.
  void lowerRefillsAhead(const ir::Instruction &Dot);

  // --- Bulk tensor copies into rings (TensorCopies.cpp) -----------------------
  /// Turns the rings whose loads all have one tensor-map form into TMA rings.
  void planTensorCopies();
  void lowerTensorLoad(const ir::Instruction &I, AsyncRing &Ring);
  /// The slot address a TMA ring value carries (see TensorCopies.cpp).
  Reg tensorSlotAddress(const Reg &Value);
  /// Whether ring B's copies may arrive on ring A's mbarriers: the same
  /// number of slots, and every block fills both equally often, never one
  /// a whole ring ahead of the other.
  bool fillInLockstep(const AsyncRing &A, const AsyncRing &B) const;
  /// Whether ring members X (of ring A) and Y (of ring B, in lockstep with
  /// A) always hold the same fill of their rings: loads of one block at the
  /// same place among their ring's loads there, or phis of one block whose
  /// incoming values do.
  bool
  sameFill(const ir::Instruction *X, const AsyncRing &A, const ir::Instruction *Y,
           const AsyncRing &B,
           std::set<std::pair<const ir::Instruction *, const ir::Instruction *>> &Assumed) const;
  /// Waits until the copy that filled the slot of Value is complete.
  void waitForTensorSlot(const Reg &Value, const AsyncRing &Ring);
  /// Waits until every copy into every TMA ring is complete.
  void drainTensorCopies();
  /// Bytes of rings and scratch, and the offset of the mbarriers after them
  /// (8-byte aligned) in the dynamic shared memory.
  uint64_t dataSharedBytes() const { return std::max(RingBytes + ScratchBytes, ScratchOverRings); }
  uint64_t mbarrierOffset() const { return (dataSharedBytes() + 7) / 8 * 8; }
  /// The last step: fills in the mbarriers' address, now that the rings and
  /// scratch they follow have their final size.
  void placeMbarriers();
  /// The s32 value of a polynomial over scalar atoms.
  Reg polyValue(const analysis::Poly &P);
  /// Creates the affine access analysis on first use.
  void ensureAffineAccess();
  /// Whether the engine can address TA: a 16-byte aligned base and a row
  /// stride known to be a multiple of 16 bytes.
  bool tensorMapAligned(const analysis::TensorAccess &TA, unsigned ElemBytes);
  /// The largest power of two known to divide every value of P (axis info of
  /// its atoms), at most analysis::MaxDivisibility.
  int64_t knownPow2Divisor(const analysis::Poly &P) const;
  /// The tensor map of TA with boxes of one swizzle row of SL by its rows.
  TensorMapSpec tensorMapSpecOf(const analysis::TensorAccess &TA, Ty Elem,
                                const MmaSharedLayout &SL) const;

  // --- Hopper operations of GPU-level IR (LowerHopper.cpp) -------------------
  /// The tensor map of every make_tensor_desc, a hidden kernel parameter (a
  /// step of run()).
  void planTensorDescriptors();
  /// mbarrier_*, make_tensor_desc, tma_load/store and its wait, wgmma and
  /// its fence, commit and wait; a located error for anything else.
  void lowerHopperOp(const ir::Instruction &I);
  void lowerTmaCopy(const ir::Instruction &I);
  void lowerWgmmaOp(const ir::Instruction &I);
  /// The kernel parameter holding the tensor map of each make_tensor_desc.
  std::map<const ir::Instruction *, std::string> DescriptorParams;
  /// wgmma operations that accumulate in their loop phi's registers: the
  /// back edge moves nothing (the MMAs may still be in flight there).
  std::set<const ir::Value *> InPlaceWgmma;

  // --- Bulk tensor stores (TensorStores.cpp) ----------------------------------
  /// Finds the stores that become bulk tensor stores.
  void planTensorStores();
  /// Why a store with this tensor-map form is no bulk tensor store ("" if
  /// it can be one), for remarks.
  std::string whyNotTensorStore(const ir::Instruction &Store, const analysis::TensorAccess &TA);
  void lowerTensorStore(const ir::Instruction &I, TensorStorePlan &P);
  /// Whether nothing that may run after Store could observe its writes
  /// late (see TensorStores.cpp).
  bool tensorStoreIsOrdered(const ir::Instruction &Store, const analysis::TensorAccess &TA) const;
  /// Whether a memory access other than a bulk copy may run before Store.
  bool genericAccessBefore(const ir::Instruction &Store) const;
  /// Places Boxes column blocks of BoxBytes each in the ring slots that no
  /// copy fills where Store runs, or returns none (see TensorStores.cpp).
  std::vector<RingSlotBox> freeRingSlotBoxes(const ir::Instruction &Store, unsigned Boxes,
                                             uint64_t BoxBytes) const;
  /// Thread 0 waits until the engine has read every bulk store's staging
  /// tile, where stores stage in ring slots (before a copy may refill one);
  /// once per block.
  void waitForStagingReads();
  /// Bytes of shared memory one block may use, less room for the static
  /// mbarriers: 227 KB on sm_90, 163 KB on sm_80 (A100).
  uint64_t scratchLimit() const;
  const std::vector<TensorMapSpec> &tensorMaps() const { return TensorMaps; }

  // --- Conversions packed where stored (PackedNarrowing.cpp) ----------------
  /// Whether I rounds an f32 tile to f16 or bf16 whose f32 registers are at
  /// hand in I's layout.
  bool isPackableNarrowing(const ir::Instruction &I) const;
  /// Such an I's registers in its layout: the f32 ones, still to round.
  PackableRegs wideNarrowing(const ir::Instruction &I);
  /// Whether such an I is lowered at its only reader, a store that may
  /// pack its pairs, instead of where it stands.
  bool narrowsAtPackingUse(const ir::Instruction &I) const;
  /// V in layout L for a consumer that packs pairs: as get(), but a
  /// narrowing lowered at this use comes as f32 registers.
  PackableRegs getForPacking(const ir::Value *V, const LinearLayout &L);

  /// Float helpers shared by several files.
  Reg toF32(const Reg &X, const ir::Type *T);
  Reg fromF32(const Reg &X, const ir::Type *T);
  Reg predToU16(const Reg &P);
  Reg u16ToPred(const Reg &X);

private:
  void lowerBlock(const ir::BasicBlock &BB);
  void lowerInstruction(const ir::Instruction &I);
  void lowerTerminator(const ir::Instruction &I);
  /// The phi's registers (allocated on first use).
  const Regs &phiRegs(const ir::Instruction &Phi);
  Regs relabelFromOperand(const ir::Instruction &I, const LinearLayout &L);
  /// extract_slice: the operand's registers that hold the window, where
  /// each thread holds the window's elements it holds in the tile.
  Regs extractSlice(const ir::Instruction &I);
  unsigned layoutId(const LinearLayout &L);
  /// The first of the rematerializable values that compute what V computes
  /// (same operation on the same values, whatever layouts their types
  /// name): assign-layouts types a rematerializable value once per layout
  /// its uses need, and one computation in a layout and block serves all of
  /// those copies (BlockCache). Other values are their own.
  const ir::Value *sameComputation(const ir::Value *V);
  Reg argument(const ir::Argument &A);

  const ir::Function &F;
  std::vector<std::string> ModuleDecls; ///< See moduleDeclarations().
  unsigned DebugStrings = 0;            ///< Strings made by debugString so far.
  unsigned PrintArgBytes = 0;           ///< Largest argument buffer of a print.
  std::map<const ir::Value *, Regs> Values;
  std::map<const ir::Argument *, Reg> Args;
  std::map<const ir::BasicBlock *, std::string> Labels;
  std::map<const ir::BasicBlock *, unsigned> BlockIndex;
  /// Conversions/rematerializations done in the current block, by (value, layout id).
  std::map<std::pair<const ir::Value *, unsigned>, Regs> BlockCache;
  /// sameComputation's answers, and its representatives by what they compute.
  std::map<const ir::Value *, const ir::Value *> Representatives;
  std::map<std::string, const ir::Value *> Computations;
  std::vector<LinearLayout> InternedLayouts;
  std::map<unsigned, Regs> Coords;
  std::map<unsigned, Reg> Owners;
  Reg Lane, Warp, Tid, SmemBase, RingBaseReg;
  /// The `createpolicy` registers of __evict_first and __evict_last accesses
  /// (cachePolicy), made on first use.
  Reg EvictFirstPolicy, EvictLastPolicy;

  std::vector<AsyncRing> Rings;
  /// The mbarriers of TMA rings: their bytes (0: none), the register holding
  /// the address of the first (set in the prologue by placeMbarriers, on the
  /// line reserved for it).
  uint64_t MbarBytes = 0;
  Reg MbarBase;
  size_t MbarBaseLine = 0;
  std::unique_ptr<ir::DominatorTree> DomTree;
  std::unique_ptr<analysis::AffineAccessAnalysis> Affine;
  /// The tensor-map form of each load of a TMA ring.
  std::map<const ir::Instruction *, analysis::TensorAccess> TensorAccesses;
  std::map<const ir::Instruction *, TensorStorePlan> TensorStores;
  /// Some bulk store stages in ring slots: ring copies and drains first wait
  /// for the engine to have read it (waitForStagingReads).
  bool StagesInRingSlots = false;
  /// Blocks where thread 0 waited for them already (the first wait of a
  /// block covers its later copies: no such store precedes a copy there).
  std::set<unsigned> StagingReadsWaited;
  std::vector<TensorMapSpec> TensorMaps;
  /// Blocks that a path from a block where scratch may overlap the rings
  /// reaches with no ring copy on the way, and those of them where a ring
  /// load already separated the two.
  std::set<unsigned> AfterScratchOverRings, FencedBlocks;
  /// Blocks with ring loads that may run after the loop reading those rings
  /// ran (drainBeforeRefill), and those of them already drained.
  std::set<unsigned> RefillBlocks, RefilledBlocks;
  /// Blocks that wait for every bulk copy at their top (not ring-live ones).
  std::set<unsigned> TensorDrainedBlocks;
  /// Loads and phis carried in rings, by ring index.
  std::map<const ir::Instruction *, unsigned> AsyncOf;
  /// `trans` instructions folded into a ring's layout (never lowered).
  std::set<const ir::Instruction *> AsyncTrans;
  /// cp.async.wait_group count of each dot reading rings.
  std::map<const ir::Instruction *, unsigned> DotWaits;
  /// Dots whose MMAs stay in flight, accumulating in their phi's registers,
  /// with how many commit groups each leaves pending.
  std::map<const ir::Instruction *, unsigned> AsyncDots;
  /// Values whose registers in-flight MMAs may still write: AsyncDots and
  /// their phis.
  std::set<const ir::Value *> PendingMma;
  /// Dots whose accumulator starts undefined (ZeroTripGuard.cpp): the
  /// predicate that is their scale-d until the first k-step has run.
  std::map<const ir::Instruction *, Reg> FirstStepScale;
  /// The planned guards by preheader, and the loop headers whose exit edge
  /// waits for the MMAs (ZeroTripGuard.cpp).
  std::map<const ir::BasicBlock *, ZeroTripPlan> ZeroTrips;
  std::set<const ir::BasicBlock *> ZeroTripHeaders;
  /// Bulk tensor stores of such accumulators: the predicate that holds
  /// where their loop was skipped (they stage zeros then), and the
  /// conversions they lower themselves, on the other path only.
  struct ZeroStaging {
    Reg Skipped;
    std::vector<const ir::Instruction *> Conversions;
  };
  std::map<const ir::Instruction *, ZeroStaging> ZeroStagedStores;
  std::set<const ir::Instruction *> DeferredConversions;
  /// Narrowings lowered by the store that reads them (PackedNarrowing.cpp).
  std::set<const ir::Instruction *> NarrowedAtUse;
  /// Instructions lowered before the dot that precedes them (EarlyRefill.cpp).
  std::set<const ir::Instruction *> LoweredAhead;
  uint64_t RingBytes = 0;
  /// Blocks (by index) where rings hold data: the innermost loops around
  /// dots reading rings, the blocks of ring loads, phis and dots, and the
  /// paths from those loads to the loops (markRingLiveBlocks). Elsewhere
  /// scratch starts at the rings' address (ScratchOverRings bytes).
  std::set<unsigned> RingLiveBlocks, DrainedBlocks;
  uint64_t ScratchOverRings = 0;

  // The statements of the emitted code for checkBarriersStep: one SyncBlock
  // per IR block, and the instruction whose lowering made each statement.
  std::vector<analysis::SyncBlock> Sync;
  std::vector<std::vector<const ir::Instruction *>> SyncOwners;
  /// The current instruction's statements since the last barrier.
  std::vector<analysis::SyncStatement> Segment;
  const ir::Instruction *StatementOwner = nullptr;
  /// A `barrier` op waiting for the next instruction's first statement.
  bool PendingBarrier = false;
  /// Global memory ordering's alias classes and element mappings.
  std::optional<analysis::GlobalOrderKeys> GlobalKeys;
  unsigned CurrentBlock = 0;
  /// Whether the block being lowered runs at most once per program (is in
  /// no loop).
  bool CurrentBlockRunsOnce = false;
  /// The instruction being lowered (where remarks about its operands point).
  const ir::Instruction *CurrentInst = nullptr;
  /// Reports that V is converted between layouts through shared memory.
  void remarkSharedConversion(const ir::Value &V);
  uint64_t ScratchBytes = 0;
  unsigned NumBarriers = 0;
};

} // namespace tritonc::codegen
