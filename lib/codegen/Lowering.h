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
//   LowerWgmma.cpp       dot on wgmma (operands staged or read from slots)
//   LowerAsync.cpp       shared buffers, slots, cp.async (GPU-level IR)
//   LowerHopper.cpp      mbarriers, tensor maps, bulk copies, wgmma ops
//   PackedNarrowing.cpp  f32 -> f16 conversions packed in pairs by their store
//   LowerWarpSpecialize.cpp  warp_specialize partitions, their joins, setmaxnreg
//
// Shared memory is one dynamic buffer: the smem_alloc buffers of GPU-level
// IR (LowerAsync.cpp, LowerHopper.cpp), then scratch used by one instruction
// at a time (over the buffers where none holds data), then the mbarriers.
// Every scratch and global access is recorded as a statement that the
// barriers insert-barriers placed must order (analysis/BarrierPlacement.h,
// checked after the function is emitted).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/analysis/AffineAccess.h"
#include "tritonc/analysis/AxisInfo.h"
#include "tritonc/analysis/BarrierPlacement.h"
#include "tritonc/analysis/GlobalOrdering.h"
#include "tritonc/analysis/LayoutAssignment.h"
#include "tritonc/analysis/LoweringAccesses.h"
#include "tritonc/analysis/PrefixMask.h"
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
/// Elements per vector a thread moves between its registers and a slot
/// (local_load, local_store, cp_async), given Offsets: the tile's layout
/// composed with the inverse of the slot's, from register, lane and warp to
/// the element's offset in the slot. The low register bits must step through
/// consecutive offsets that no other input bit touches, so that each group
/// is contiguous and aligned; at most 16 bytes and MaxVec elements.
unsigned slotVectorElements(const LinearLayout &Offsets, unsigned ElemBytes, unsigned MaxVec);
/// Element strides of a tile staged in shared memory: row-major, with every
/// row (last dimension) padded by 16 bytes. The padding puts consecutive
/// rows 4 banks apart, so threads reading down a column and ldmatrix reading
/// 8 rows of 16 bytes hit different banks, while every row still starts
/// 16-byte aligned for vector accesses. Rank-1 tiles are not padded.
std::vector<int64_t> sharedTileStrides(const ir::Shape &S, unsigned ElemBytes);
/// Bytes of a tile staged with sharedTileStrides.
uint64_t sharedTileBytes(const ir::Shape &S, unsigned ElemBytes);
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
/// oldest slot (async-rings gives such rings one slot more).
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

/// One partition of a warp_specialize: its fork, index, warps (from
/// FirstWarp of the CTA's), register budget (0: none), blocks, and the named
/// barrier its threads synchronize with (set by planWarpPartitions).
struct PartitionBlocks {
  const ir::Instruction *Fork = nullptr;
  unsigned Index = 0, FirstWarp = 0, Warps = 1, Registers = 0, BarrierId = 0;
  std::vector<const ir::BasicBlock *> Blocks;
};
/// The partitions of every warp_specialize of F, in function order; on a
/// broken rule (ir/WarpPartitions.h) none, with Error and At.
std::vector<PartitionBlocks> warpPartitionBlocks(const ir::Function &F, const ir::Instruction *&At,
                                                 std::string &Error);
/// The warps a kernel with these partitions launches: their sum (the last
/// fork's), or NumWarps without partitions.
unsigned kernelWarps(const std::vector<PartitionBlocks> &Partitions, unsigned NumWarps);

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
  /// The dynamic shared memory of a launch: buffers and scratch, then the
  /// mbarrier buffers (the kernel declares no static shared memory, see
  /// placeMbarriers).
  unsigned sharedBytes() const {
    return static_cast<unsigned>(MbarBytes ? mbarrierOffset() + MbarBytes : dataSharedBytes());
  }
  unsigned numBarriers() const { return NumBarriers; }
  /// The warps the kernel launches: num_warps, or its partitions' sum.
  unsigned numWarps() const { return KernelWarps; }
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
  /// A barrier that is always needed (around scalar atomics): of the threads
  /// that run the current code (the partition's named barrier inside one),
  /// or of the whole CTA.
  void forcedBarrier(bool WholeCTA = false);
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
  void lowerReduce(const ir::Instruction &I);
  /// Makes a scalar computed by thread 0 only (Value valid there) uniform.
  Reg broadcastFromThread0(const Reg &Value, const ir::Type *T);
  /// Stores Values (layout L) row-major at shared byte offset 0 (one write per
  /// element, by its owner). Used by conversions and dot operands.
  /// With Swizzle, the tile is stored in that layout instead of row-major.
  void storeTileToShared(const PackableRegs &Values, const ir::Type *Elem, const ir::Shape &S,
                         const LinearLayout &L, uint64_t ByteOffset,
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
  /// fragments.
  void storeTileToMmaShared(const PackableRegs &Values, const LinearLayout &L,
                            const MmaSharedLayout &SL, const Reg &Base);
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
  /// accumulating in place into Acc (the dot's layout), and waits for them.
  void emitWgmmaLoop(const ir::Instruction &I, const MmaSharedLayout &SA, const Reg &ABase,
                     const MmaSharedLayout &SB, const Reg &BBase, Regs &Acc);

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
  /// A cp_async's mask as its copies' source sizes read it: one bit per
  /// vector (a mask constant over each), or under a prefix mask
  /// (analysis::findPrefixMask) the mask and the comparison's operands at
  /// each copy's first register.
  struct CopyMask {
    Regs Bits; ///< empty: no mask
    std::optional<analysis::PrefixMask> Prefix;
    Regs Index, Bound;
  };
  CopyMask copyMask(const ir::Instruction &I, const AccessPlan &Plan, unsigned CopyVec,
                    unsigned HeadVec);
  /// The source size of the copy of Elements elements whose mask is read at
  /// register R (its first, or its vector's): all of its bytes, none where
  /// masked off, up to the bound under a prefix mask. A register name or an
  /// immediate.
  std::string copySourceSize(const CopyMask &M, int32_t R, unsigned Elements, unsigned ElemBytes);
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
  /// the mbarrier area (MbarBase).
  std::map<const ir::Instruction *, uint64_t> MbarBufferOffsets;
  /// Blocks that write the slots of smem_alloc buffers (cp_async,
  /// local_store, tma_load): they separate themselves from scratch over the
  /// buffers (separateFromScratchOverRings).
  std::set<const ir::BasicBlock *> ExplicitCopyBlocks;
  /// Whether some shared memory is taken by rings or buffers that scratch may
  /// reuse in blocks where they hold no data (RingLiveBlocks).
  bool hasRingSpace() const { return !BufferOffsets.empty(); }
  /// The blocks where the slots of Alloc may hold data a later read needs:
  /// on a path from a block that writes a slot to one that reads one (a
  /// bulk tensor store waited for in its block reads there); every block
  /// where a use of the buffer is not such a read or write.
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

  /// Remarks on how each dot is computed (LowerDot.cpp).
  void remarkDots();
  // The steps of run() that are not planning functions of their own
  // (Lowering.cpp).
  void declareParameters();
  void lowerBlocks();
  void checkBarriersStep();
  /// The dominator tree of run()'s steps (built by declareParameters).
  std::optional<ir::DominatorTree> RunDominators;

  // --- Scratch over the buffers (LowerAsync.cpp) ------------------------------
  /// Fills AfterScratchOverRings (see below).
  void markBlocksAfterScratchOverRings();
  /// Waits for every cp.async copy (where the function issues any), then a
  /// barrier: before scratch reuses the buffers' space.
  void waitForCopiesAndMmas();
  /// Before the first copy into a buffer in a block that scratch over the
  /// buffers may precede: a proxy fence and a barrier.
  void separateFromScratchOverRings();
  /// The mbarrier buffers' address, once the buffers and scratch they follow
  /// have their final size (the last step).
  void placeMbarriers();
  /// Bytes of buffers and scratch, and the offset of the mbarriers after
  /// them (8-byte aligned) in the dynamic shared memory.
  uint64_t dataSharedBytes() const { return std::max(RingBytes + ScratchBytes, ScratchOverRings); }
  uint64_t mbarrierOffset() const { return (dataSharedBytes() + 7) / 8 * 8; }

  // --- wgmma accumulators (LowerHopper.cpp) ------------------------------------
  /// The loop phi a dot accumulates into and feeds back (c = phi[.., dot],
  /// dot(a, b, c) used only by c), or null.
  const ir::Instruction *inPlaceAccumulator(const ir::Instruction &Dot) const;
  /// Creates the affine access analysis on first use.
  void ensureAffineAccess();

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

  const std::vector<TensorMapSpec> &tensorMaps() const { return TensorMaps; }

  // --- Warp specialization (LowerWarpSpecialize.cpp) ---------------------------
  /// The partitions, the partition of each block, the kernel's warps and
  /// register budget (the first step of run()).
  void planWarpPartitions();
  /// The fork: dispatch by warp index, setmaxnreg at each partition's entry.
  void lowerWarpSpecialize(const ir::Instruction &I);
  /// A partition's end: registers back, a CTA-wide barrier, the join block.
  void lowerWarpJoin(const ir::Instruction &I);
  /// Makes BB's partition (or none) the one whose thread geometry the
  /// prologue values (threadId, threadCoords, ...) are for.
  void enterPartitionOf(const ir::BasicBlock &BB);
  /// The partition of the block being lowered, or null.
  const PartitionBlocks *currentPartition() const;
  /// %tid.x relative to the current partition's first thread.
  Reg partitionThreadId();
  /// `bar.sync`: the current partition's named barrier, or 0 for the CTA.
  void emitBarrier(bool WholeCTA);
  /// Before an operation one elected thread does for a whole partition
  /// (mbarrier_arrive): the partition's other warps are done first.
  void electedArrivalBarrier();
  /// `mbarrier_arrive per_warp`: lane 0 of each warp of the partition
  /// arrives for its warp once the warp is done, without the partition's
  /// barrier.
  void lowerPerWarpArrival(const ir::Instruction &I, Reg Barrier);
  /// Partitions run at the same time: the buffers hold data in every block
  /// of a fork's regions where one of them fills or reads a buffer.
  void ringsLiveAcrossPartitions();
  /// Records that the current partition uses the lowering's scratch, which
  /// starts at one address for all: a second partition of the same fork
  /// doing so is a located error (the two run at the same time).
  void partitionUsesScratch();
  std::map<const ir::Instruction *, int> ScratchPartition;
  /// Whether BB ends with a warp_specialize.
  bool isForkBlock(const ir::BasicBlock &BB) const;
  std::vector<PartitionBlocks> Partitions;
  std::map<const ir::BasicBlock *, int> BlockPartition;
  int CurrentPartition = -1;
  /// The kernel's warps, and its `.maxnreg` with register budgets (else 0).
  unsigned KernelWarps = 0, MaxRegisters = 0;
  /// Per partition (-1: outside), the prologue's thread geometry.
  struct ThreadGeometry {
    Reg Tid, Lane, Warp;
    std::map<unsigned, Regs> Coords;
    std::map<unsigned, Reg> Owners;
    std::map<std::string, Reg> SlotOffsets;
  };
  std::map<int, ThreadGeometry> SavedGeometry;

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

  /// The mbarrier buffers: their bytes (0: none), and the register holding
  /// the address of the first (set in the prologue by placeMbarriers).
  uint64_t MbarBytes = 0;
  Reg MbarBase;
  std::unique_ptr<analysis::AffineAccessAnalysis> Affine;
  std::vector<TensorMapSpec> TensorMaps;
  /// Blocks that a path from a block where scratch may overlap the buffers
  /// reaches with no copy into them on the way, and those of them where a
  /// copy already separated the two.
  std::set<unsigned> AfterScratchOverRings, FencedBlocks;
  /// Narrowings lowered by the store that reads them (PackedNarrowing.cpp).
  std::set<const ir::Instruction *> NarrowedAtUse;
  /// Bytes of the smem_alloc buffers (but the mbarriers').
  uint64_t RingBytes = 0;
  /// Blocks (by index) where the buffers may hold data a later read needs
  /// (bufferLiveBlocks), and those of the others that drained the copies
  /// already. Elsewhere scratch starts at the buffers' address
  /// (ScratchOverRings bytes).
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
