//===- CodeGen.cpp - Triton-IR module to a PTX module ---------------------===//

#include "tritonc/codegen/CodeGen.h"

#include "Lowering.h"

#include "tritonc/transform/PadTiles.h"
#include "tritonc/transform/Passes.h"

#include "tritonc/analysis/AxisInfo.h"

#include "tritonc/analysis/LayoutAssignment.h"
#include "tritonc/analysis/LayoutAttributes.h"

#include "tritonc/ir/ElementCount.h"
#include "tritonc/ir/Printer.h"

#include <algorithm>
#include <cctype>

namespace tritonc::codegen {

std::string CodeGenOptions::optionsString() const {
  std::string S = std::string("arch=") + ptx::archName(Arch) +
                  " num_warps=" + std::to_string(NumWarps) + " tf32=" + (AllowTF32 ? "1" : "0") +
                  " stages=" + std::to_string(NumStages) + " tma=" + (TensorCopies ? "1" : "0") +
                  " tma_store=" + (TensorStores ? "1" : "0");
  // Only a limit that changes the code enters the text (and cache keys).
  if (sharedMemoryLimit() != sharedMemoryOfTarget(Arch))
    S += " smem=" + std::to_string(sharedMemoryLimit());
  if (RegisterStages != DefaultRegisterStages)
    S += " register_stages=" + std::to_string(RegisterStages);
  if (WarpSpecialize)
    S += " ws=1";
  return S;
}

unsigned CodeGenOptions::sharedMemoryLimit() const {
  return MaxSharedBytes ? MaxSharedBytes : sharedMemoryOfTarget(Arch);
}

std::string numWarpsError(unsigned N) {
  if (N == 1 || N == 2 || N == 4 || N == 8 || N == 16)
    return "";
  return "num_warps must be 1, 2, 4, 8 or 16, not " + std::to_string(N);
}

std::string numStagesError(unsigned N) {
  if (N >= MinNumStages && N <= MaxNumStages)
    return "";
  return "num_stages must be " + std::to_string(MinNumStages) + " to " +
         std::to_string(MaxNumStages) + ", not " + std::to_string(N);
}

std::string CodeGenOptions::check() const {
  if (std::string E = numWarpsError(NumWarps); !E.empty())
    return E;
  if (std::string E = numStagesError(NumStages); !E.empty())
    return E;
  if (RegisterStages < MinNumStages || RegisterStages > MaxNumStages)
    return "register_stages must be " + std::to_string(MinNumStages) + " to " +
           std::to_string(MaxNumStages) + ", not " + std::to_string(RegisterStages);
  if (MaxSharedBytes && (MaxSharedBytes < MinSharedBytes || MaxSharedBytes > MaxSharedBytesLimit))
    return "the shared memory per program must be " + std::to_string(MinSharedBytes) + " to " +
           std::to_string(MaxSharedBytesLimit) + " bytes, not " + std::to_string(MaxSharedBytes);
  // The producer partition issues bulk tensor copies only: elsewhere the
  // option would silently do nothing.
  if (WarpSpecialize && (Arch != ptx::Arch::SM90a || !TensorCopies))
    return std::string("warp_specialize needs sm_90a with bulk tensor copies (tma), not ") +
           ptx::archName(Arch) + (TensorCopies ? "" : " without them");
  return "";
}

unsigned sharedMemoryOfTarget(ptx::Arch Arch) {
  return Arch == ptx::Arch::SM90a ? 227 * 1024 : 163 * 1024;
}

namespace {

/// Tile dimensions must be powers of two: layouts are linear maps over GF(2).
bool isPowerOfTwoShape(const ir::Type *T) {
  for (int64_t D : T->getShape())
    if (D <= 0 || (D & (D - 1)))
      return false;
  return true;
}

bool checkShapes(const ir::Function &F, DiagnosticEngine &Diags) {
  // Reports the first such tile only: every value computed from it has the
  // same shape, and each would repeat the error.
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions())
      if (I->getType()->isTile() && !isPowerOfTwoShape(I->getType())) {
        Diags.error(SourceRange(I->Loc), "the GPU back end needs tile dimensions that are powers "
                                         "of two; this tile has shape " +
                                             I->getType()->str());
        return false;
      }
  return true;
}

/// Limits past which no tile fits one SM (65536 32-bit registers and at
/// most 228 KiB of shared memory): checked before any pass or layout
/// work, whose cost grows with the tile, so that an absurd tile is a quick
/// error instead of minutes and gigabytes spent before failing.
constexpr int64_t MaxBackEndTileElements = int64_t(1) << 20;
constexpr int64_t MaxBackEndDotProducts = int64_t(1) << 24;

bool checkTileSizes(const ir::Module &M, DiagnosticEngine &Diags) {
  for (const auto &F : M.functions())
    for (const auto &BB : F->blocks())
      for (const auto &I : BB->instructions()) {
        const ir::Type *T = I->getType();
        if (T->isTile() && T->getNumElements() > MaxBackEndTileElements) {
          Diags.error(SourceRange(I->Loc), "tile " + T->str() +
                                               " is too large for the GPU back end (the limit "
                                               "is " +
                                               std::to_string(MaxBackEndTileElements) +
                                               " elements per tile)");
          return false;
        }
        if (I->getOpcode() == ir::Opcode::Dot && I->getNumOperands() >= 2) {
          const ir::Shape &A = I->getOperand(0)->getType()->getShape();
          const ir::Shape &B = I->getOperand(1)->getType()->getShape();
          if (A.size() == 2 && B.size() == 2 &&
              ir::saturatedElementCount({A[0], A[1], B[1]}) > MaxBackEndDotProducts) {
            Diags.error(SourceRange(I->Loc),
                        "dot of " + std::to_string(A[0]) + "x" + std::to_string(A[1]) + " by " +
                            std::to_string(B[0]) + "x" + std::to_string(B[1]) +
                            " is too large for the GPU back end (the limit is " +
                            std::to_string(MaxBackEndDotProducts) + " products, M*N*K)");
            return false;
          }
        }
      }
  return true;
}

/// The warps a distributed layout attribute spreads a tile over (the
/// parent's for slices and dot operands); 0 for shared layouts.
int64_t warpsOfLayout(const ir::Layout *L) {
  while (L && (L->getKind() == ir::LayoutKind::Slice || L->getKind() == ir::LayoutKind::DotOperand))
    L = L->getParent();
  if (!L || L->isShared())
    return 0;
  int64_t Warps = 1;
  for (int32_t W : L->getWarpsPerCTA())
    Warps *= W;
  return Warps;
}

/// GPU-level IR names layouts for one number of warps: a layout on a tile
/// whose warps differ from those that run it would leave elements to warps
/// that do not exist (or hand them to two), so it is an error at the value.
/// Inside a partition of a warp_specialize that is the partition's warps,
/// which must also be num_warps (the layout passes and the emitter's layout
/// assignment work for num_warps); elsewhere the kernel's.
bool checkLayoutWarps(const ir::Module &M, const CodeGenOptions &Options, DiagnosticEngine &Diags) {
  for (const auto &F : M.functions()) {
    const ir::Instruction *At = nullptr;
    std::string Error;
    std::vector<PartitionBlocks> Partitions = warpPartitionBlocks(*F, At, Error);
    if (!Error.empty()) {
      Diags.error(SourceRange(At->Loc), Error);
      return false;
    }
    std::map<const ir::BasicBlock *, const PartitionBlocks *> Owner;
    for (const PartitionBlocks &P : Partitions)
      for (const ir::BasicBlock *BB : P.Blocks)
        Owner[BB] = &P;
    unsigned Kernel = kernelWarps(Partitions, Options.NumWarps);
    for (const auto &BB : F->blocks())
      for (const auto &I : BB->instructions()) {
        const ir::Type *T = I->getType();
        if (!T->isTile() || !T->getLayout())
          continue;
        int64_t Warps = warpsOfLayout(T->getLayout());
        const PartitionBlocks *P = Owner.count(BB.get()) ? Owner[BB.get()] : nullptr;
        unsigned Runs = P ? P->Warps : Kernel;
        if (Warps == 0 || (Warps == Runs && (!P || Runs == Options.NumWarps)))
          continue;
        std::string Runner =
            P ? "partition " + std::to_string(P->Index) + " runs with " + std::to_string(Runs)
              : "the kernel runs with " + std::to_string(Runs);
        Diags.error(SourceRange(I->Loc),
                    "the layout of " + T->str() + " spreads the tile over " +
                        std::to_string(Warps) + " warps, but " + Runner +
                        (P ? " and num_warps is " + std::to_string(Options.NumWarps) +
                                 ": tiles in a partition need num_warps warps"
                           : " (num_warps): GPU-level IR is written for one number of warps"));
        return false;
      }
  }
  return true;
}

/// Whether I is a dot that sm_90a computes with wgmma.
bool isSm90WgmmaDot(const ir::Instruction &I, const CodeGenOptions &Options) {
  return I.getOpcode() == ir::Opcode::Dot &&
         analysis::planDot(I, Options.NumWarps, /*HasMmaV2=*/true, Options.AllowTF32,
                           /*HasWgmma=*/true)
                 .Kind == DotKind::Wgmma;
}

/// The deepest pipeline, at most Options.NumStages, whose wgmma operand rings
/// fit the ring budget (ringBudget): a ring holds one slot per stage,
/// plus one with several warpgroups, whose MMAs stay in flight. Deeper, an
/// operand would go through registers or the MMAs would be waited for every
/// iteration, either slower than the shallower pipeline (128x256x64 with 8
/// warps: 4 stages ran 25% slower than 3 before this clamp).
/// The back end's `pipeline` step as `tritonc opt` runs it: num_stages as
/// the pass's option where it is not the pass's default (generatePTX may
/// lower it to what the wgmma rings hold).
static std::string pipelineStepName(unsigned NumStages) {
  if (NumStages == transform::DefaultPipelineStages)
    return "pipeline";
  return "pipeline{stages=" + std::to_string(NumStages) + "}";
}

unsigned stagesThatFit(const ir::Module &M, const CodeGenOptions &Options) {
  unsigned Stages = Options.NumStages;
  if (Options.Arch != ptx::Arch::SM90a)
    return Stages;
  unsigned Extra = inFlightExtraSlots(Options.NumWarps);
  for (const auto &F : M.functions()) {
    uint64_t PerStage = 0;
    for (const auto &BB : F->blocks())
      for (const auto &I : BB->instructions())
        if (isSm90WgmmaDot(*I, Options)) {
          const ir::Shape &A = I->getOperand(0)->getType()->getShape();
          const ir::Shape &B = I->getOperand(1)->getType()->getShape();
          PerStage += wgmmaSlotBytes(A[0], A[1]) + wgmmaSlotBytes(B[0], B[1]);
        }
    while (Stages > 2 && PerStage * (Stages + Extra) > ringBudget(Options))
      --Stages;
  }
  return Stages;
}

/// Says at each wgmma dot that the pipeline got fewer stages than asked for.
void remarkStagesLowered(const ir::Module &M, const CodeGenOptions &Options, unsigned Stages,
                         DiagnosticEngine &Diags) {
  if (!Diags.wantsRemark(RemarkKind::Missed, "pipeline"))
    return;
  for (const auto &F : M.functions())
    for (const auto &BB : F->blocks())
      for (const auto &I : BB->instructions())
        if (isSm90WgmmaDot(*I, Options))
          Diags.remark(RemarkKind::Missed, "pipeline", SourceRange(I->Loc),
                       "num_stages lowered from " + std::to_string(Options.NumStages) + " to " +
                           std::to_string(Stages) + ": the shared-memory rings of " +
                           std::to_string(Options.NumStages) +
                           " stages for this dot's operands would exceed the " +
                           std::to_string(ringBudget(Options) / 1024) + " KB ring budget");
}

/// The back end's answer to the pipeliner about a dot operand load
/// (transform::AsyncCopyFilter): "" when its pointers hold a contiguous,
/// aligned run of 4 bytes or more somewhere, so that async-rings can copy it
/// with cp.async (or tensor-copies with a bulk tensor copy) into a ring;
/// otherwise why not.
/// Issued ahead through registers instead, a load holds one more operand tile
/// there per iteration: conv.tc's NCHW fp16 gathers (2-byte runs) spilled
/// 2.9-23 KB per thread with 3 stages where one stage spilled 0.1-16 KB, and
/// matmul.tc with odd row strides 64-2090 B at 3 and 4 stages where one
/// iteration ahead spilled none (the pipeline then issues gathers not at all
/// and other loads register_stages - 1 iterations ahead).
std::string copiedAsynchronously(const ir::Instruction &Load) {
  analysis::AxisInfoAnalysis Info(*Load.getParent()->getParent());
  const ir::Value *Ptr = Load.getOperand(0);
  const analysis::AxisInfo &A = Info.get(Ptr);
  int64_t Bytes = memBytesOf(Ptr->getType()->getPointee());
  int64_t Run = 0;
  for (unsigned D = 0; D < A.rank(); ++D)
    Run = std::max(Run, std::min(A.Contiguity[D] * Bytes, A.Divisibility[D]));
  if (Run >= 4)
    return "";
  return "whose pointers have no aligned run of 4 contiguous bytes, so the back end loads it "
         "through registers (cp.async copies 4, 8 or 16 bytes)";
}

/// The back end's answer to async-rings about a dot operand load
/// (AsyncRingsTarget::CopyFilter): "" when the access plan its layout
/// assignment gives the cp_async of the load (on the function as it is then;
/// its vectors reach past the mask's constancy where the mask is true on a
/// prefix of each, copied with a source size) has vectors of
/// 4 bytes or more that also lie contiguously in the ring's slot, which
/// cp.async copies (LowerAsync.cpp's lowerCpAsync, through the same
/// slotVectorElements). A `trans` operand of an FMA dot, ringed as the dot
/// reads it (row-major), keeps only one element of each vector contiguous:
/// 2-byte pieces for 16-bit elements, which no cp.async copies. The
/// analyses are kept for the function last asked about: the pass asks only
/// about loads that were there before it rewrote anything.
class ExplicitRingCopies {
public:
  explicit ExplicitRingCopies(const CodeGenOptions &Options) : Options(Options) {}

  std::string operator()(const ir::Instruction &Load, const ir::Layout *Slot, bool Transposed) {
    const ir::Function &F = *Load.getParent()->getParent();
    if (Of != &F) {
      Of = &F;
      AI = std::make_unique<analysis::AxisInfoAnalysis>(F);
      LA = std::make_unique<LayoutAssignment>(F, *AI, Options.NumWarps, /*HasMmaV2=*/true,
                                              Options.AllowTF32, Options.Arch == ptx::Arch::SM90a);
    }
    AccessPlan Plan = LA->copyPlanOf(Load, *AI);
    unsigned ElemBytes = memBytesOf(Load.getType()->getScalarType());
    unsigned Vector = Plan.Vec * ElemBytes;
    if (Vector < 4)
      return "each thread reads " + std::to_string(Vector) +
             "-byte vectors, and cp.async copies 4, 8 or 16 bytes" + whyNarrow(Load);
    if (!Slot)
      return "";
    unsigned Piece = copyPieceElements(Load, Plan, *Slot, Transposed) * ElemBytes;
    if (Piece < 4)
      return "the slot the dot reads keeps only " + std::to_string(Piece) +
             " bytes of each thread's " + std::to_string(Vector) +
             "-byte vectors contiguous (its rows run along the other dimension), and cp.async "
             "copies 4, 8 or 16 bytes";
    return "";
  }

private:
  /// Why Load's vectors are under 4 bytes, in a kernel author's words: its
  /// pointers have no aligned run of 4 bytes, or (naming the condition and
  /// the dimension) a condition of its mask may change within one: `k < K`
  /// along the contiguous dimension with K not known a multiple of the run.
  std::string whyNarrow(const ir::Instruction &Load) const {
    const ir::Value *Ptr = Load.getOperand(0);
    const analysis::AxisInfo &P = AI->get(Ptr);
    int64_t Bytes = memBytesOf(Ptr->getType()->getPointee());
    unsigned Dim = 0;
    int64_t Run = 0; // bytes
    for (unsigned D = 0; D < P.rank(); ++D)
      if (int64_t R = std::min(P.Contiguity[D] * Bytes, P.Divisibility[D]); R > Run) {
        Run = R;
        Dim = D;
      }
    if (Run < 4)
      return " (the pointers are not known to be contiguous in aligned runs of 4 bytes or more)";
    if (Load.getOpcode() != ir::Opcode::MaskedLoad)
      return " (the layout's vectors are narrower than the pointers' runs)";
    // The mask's conjunct that changes within a run along Dim, through the
    // `and`s, splats and broadcasts down to its comparison.
    auto Splits = [&](const ir::Value *V) {
      return AI->get(V).rank() > Dim && AI->get(V).Constancy[Dim] * Bytes < 4;
    };
    const ir::Value *Cond = Load.getOperand(1);
    if (!Splits(Cond))
      return " (the layout's vectors are narrower than the pointers' runs)";
    for (bool Deeper = true; Deeper;) {
      Deeper = false;
      const ir::Instruction *I = ir::asInstruction(const_cast<ir::Value *>(Cond));
      if (!I || (I->getOpcode() != ir::Opcode::And && I->getOpcode() != ir::Opcode::Broadcast))
        break;
      for (const ir::Value *Op : I->operands())
        if (Splits(Op)) {
          Cond = Op;
          Deeper = true;
          break;
        }
    }
    std::string Why = ": the mask's condition " + describe(*Cond) +
                      " may change from one element to the next along dimension " +
                      std::to_string(Dim) + ", the one its pointers are contiguous along in " +
                      std::to_string(Run) + "-byte runs";
    // `index < bound`: the bound is what is not known to be a multiple.
    const ir::Instruction *Cmp = ir::asInstruction(const_cast<ir::Value *>(Cond));
    if (Cmp && Cmp->getOpcode() == ir::Opcode::ICmp)
      for (const ir::Value *Side : Cmp->operands()) {
        const ir::Value *Scalar = Side;
        if (const ir::Instruction *S = ir::asInstruction(const_cast<ir::Value *>(Side));
            S && S->getOpcode() == ir::Opcode::Splat)
          Scalar = S->getOperand(0);
        if (!Scalar->getType()->isTile() && !ir::asConstant(const_cast<ir::Value *>(Scalar))) {
          Why += " (its bound " + describe(*Scalar) + " is not known to be a multiple of " +
                 std::to_string(Run / Bytes) + ")";
          break;
        }
      }
    return Why + ", and the mask is not known to be true on a prefix of each run (`index < "
                 "bound` with the index contiguous along it, which a copy's source size bounds)";
  }

  /// `%name` of V, with its defining instruction where it has no name of
  /// its own.
  static std::string describe(const ir::Value &V) {
    std::string Name = ir::printOperand(V);
    const ir::Instruction *I = ir::asInstruction(const_cast<ir::Value *>(&V));
    if (!I || (Name.size() > 1 && !std::isdigit(static_cast<unsigned char>(Name[1]))))
      return Name;
    return "`" + ir::printInstruction(*I) + "`";
  }

  /// The elements of Plan's vectors that the slot keeps contiguous.
  static unsigned copyPieceElements(const ir::Instruction &Load, const AccessPlan &Plan,
                                    const ir::Layout &Slot, bool Transposed) {
    LinearLayout L = Transposed ? transposeLayout(Plan.Layout) : Plan.Layout;
    std::vector<int64_t> Shape = Load.getType()->getShape();
    if (Transposed)
      std::reverse(Shape.begin(), Shape.end());
    std::optional<LinearLayout> SlotLayout =
        analysis::toLinearLayout(Slot, Shape, Load.getType()->getScalarBits());
    std::optional<LinearLayout> Inverse = SlotLayout ? SlotLayout->invert() : std::nullopt;
    if (!Inverse)
      return 1;
    return slotVectorElements(LinearLayout::compose(*Inverse, L),
                              memBytesOf(Load.getType()->getScalarType()), Plan.Vec);
  }

private:
  CodeGenOptions Options;
  const ir::Function *Of = nullptr;
  std::unique_ptr<analysis::AxisInfoAnalysis> AI;
  std::unique_ptr<LayoutAssignment> LA;
};

bool explicitTensorCopies(const CodeGenOptions &Options);

/// async-rings as the back end runs it: its target facts.
std::unique_ptr<transform::Pass> explicitRingsPass(const CodeGenOptions &Options) {
  transform::AsyncRingsTarget Target;
  Target.HasWgmma = Options.Arch == ptx::Arch::SM90a;
  Target.NumWarps = Options.NumWarps;
  Target.AllowTF32 = Options.AllowTF32;
  Target.RingBudget = ringBudget(Options);
  Target.TensorCopies = explicitTensorCopies(Options);
  Target.TensorStores = explicitTensorCopies(Options) && Options.TensorStores;
  auto Copies = std::make_shared<ExplicitRingCopies>(Options);
  Target.CopyFilter = [Copies](const ir::Instruction &Load, const ir::Layout *Slot,
                               bool Transposed) { return (*Copies)(Load, Slot, Transposed); };
  return transform::createAsyncRingsPass(std::move(Target));
}

/// Whether the pipeline may issue a K loop's prologue for the next tile above
/// the current tile's epilogue (TilePrefetch.cpp): only where every dot is a
/// wgmma whose rings bulk tensor copies fill (sm_90a, TMA on). cp.async rings
/// lost their wait counts in that shape (the back end's former planner
/// recognized the prologue in the preheader only) and then waited for every
/// copy each iteration: the f32 FMA persistent matmul ran 33 against 46
/// TFLOP/s. With cp.async rings ptxas also serializes wgmmas after the move
/// (C7514).
bool prefetchAcrossTiles(const ir::Module &M, const CodeGenOptions &Options) {
  if (Options.Arch != ptx::Arch::SM90a || !Options.TensorCopies)
    return false;
  for (const auto &F : M.functions())
    for (const auto &BB : F->blocks())
      for (const auto &I : BB->instructions())
        if (I->getOpcode() == ir::Opcode::Dot && !isSm90WgmmaDot(*I, Options))
          return false;
  return true;
}

/// The back end's own IR passes, run on every module before lowering: loop
/// -carried index tiles become scalar offsets (remat-inductions), short-
/// circuit blocks become selects (simplifycfg), and loads feeding a dot are
/// issued NumStages - 1 iterations ahead (pipeline), NumStages clamped to
/// what the rings can hold.
bool runBackendPasses(ir::Module &M, const CodeGenOptions &Options, DiagnosticEngine &Diags) {
  transform::PassManager PM;
  PM.getAnalysisManager().setDiagnostics(&Diags);
  std::string Error;
  bool Ok = true;
  for (const PipelineStep &Step : backendPasses(Options)) {
    if (Step.Name.rfind("async-rings", 0) == 0) {
      PM.addPass(explicitRingsPass(Options));
      continue;
    }
    if (Step.Name == "tensor-stores") {
      PM.addPass(transform::createTensorStoresPass(Options.sharedMemoryLimit()));
      continue;
    }
    if (Step.Name != pipelineStepName(Options.NumStages)) {
      Ok = Ok && PM.addPipeline(Step.Name, Error);
      continue;
    }
    unsigned Stages = stagesThatFit(M, Options);
    if (Stages != Options.NumStages)
      remarkStagesLowered(M, Options, Stages, Diags);
    PM.addPass(transform::createLoopPipelinePass(Stages, prefetchAcrossTiles(M, Options),
                                                 copiedAsynchronously, Options.RegisterStages));
  }
  if (!Ok) {
    Diags.internal("the back end's pipeline: " + Error);
    return false;
  }
  return PM.run(M, Diags, "the back end's passes");
}

/// After assign-layouts every tile with a layout of its own names it: the
/// lowering must find that layout, not compute another (an internal error
/// otherwise, so a drift between the pass and the lowering cannot go
/// unnoticed). Rematerialized tiles are computed in each use's layout.
void checkLayoutsAreTyped(const ir::Function &F, const LayoutAssignment &LA) {
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions()) {
      const ir::Type *T = I->getType();
      if (!T->isTile() || LA.isRematerializable(I.get()))
        continue;
      std::optional<analysis::LinearLayout> Typed = analysis::typedLayout(I.get());
      if (!Typed || !analysis::sameLayout(*Typed, LA.layoutOf(I.get())))
        reportInternalError("codegen: the layout of " + ir::printOperand(*I) + " (" + T->str() +
                            ") is not the one the lowering assigns: " +
                            analysis::compactLayoutString(LA.layoutOf(I.get())));
    }
}

/// Whether the back end's list fills rings with bulk tensor copies
/// (tensor-copies, and tensor-stores for the epilogue): sm_90a with TMA on.
bool explicitTensorCopies(const CodeGenOptions &Options) {
  return Options.Arch == ptx::Arch::SM90a && Options.TensorCopies;
}

/// The registry's description of a pass.
std::string describePass(const std::string &Name) {
  for (const auto &[Pass, Description] : transform::registeredPasses())
    if (Pass == Name)
      return Description;
  return "";
}

} // namespace

std::vector<PipelineStep> backendPasses(const CodeGenOptions &Options) {
  std::string Pipeline =
      Options.NumStages <= 1
          ? "one stage: leaves the loops as they are"
          : "issues the loads feeding a dot in an innermost loop " +
                std::to_string(Options.NumStages - 1) + " iteration" +
                (Options.NumStages == 2 ? "" : "s") +
                " ahead (fewer stages where the wgmma operand rings would not fit)";
  if (Options.Arch == ptx::Arch::SM90a && Options.TensorCopies && Options.NumStages > 1)
    Pipeline += "; with only wgmma dots, a nested loop's prologue one tile ahead";
  // First: the accesses of tensor descriptors become gathers (which the
  // passes below pipeline like any load) or, on sm_90a with TMA on, bulk
  // tensor copies, whose slots need the barriers insert-barriers places; the
  // gathers of the loads that feed a dot in a loop come back as bulk tensor
  // copies in its rings (`rings`, tensor-copies).
  std::string DescPass =
      explicitTensorCopies(Options) ? "lower-tensor-descs{tma,rings}" : "lower-tensor-descs";
  std::vector<PipelineStep> Steps = {{DescPass, describePass("lower-tensor-descs")},
                                     {"remat-inductions", describePass("remat-inductions")},
                                     {"simplifycfg", describePass("simplifycfg")},
                                     {pipelineStepName(Options.NumStages), Pipeline}};
  // The layout passes' target facts as options in the step's name, so that
  // --print-pipeline shows a list `tritonc opt --passes=` runs as is.
  std::string LayoutTarget = "{num-warps=" + std::to_string(Options.NumWarps) +
                             (Options.Arch == ptx::Arch::SM90a ? ",wgmma" : "") +
                             (Options.AllowTF32 ? ",tf32" : "") + "}";
  // The back end rings the `trans` operands of tensor-core dots too:
  // async-rings{...,trans}.
  std::string RingsStep =
      "async-rings" + LayoutTarget.substr(0, LayoutTarget.size() - 1) + ",trans}";
  Steps.push_back({RingsStep,
                   "the pipelined dot operands of the loops the back end fills "
                   "with cp.async (mma.sync and wgmma) become explicit rings (smem_alloc, "
                   "cp_async, commit, wait N, local_load)"});
  if (explicitTensorCopies(Options))
    Steps.push_back({"tensor-copies" + LayoutTarget, describePass("tensor-copies")});
  if (Options.Arch == ptx::Arch::SM90a) {
    Steps.push_back({"accelerate-dot" + LayoutTarget, describePass("accelerate-dot")});
    Steps.push_back({"accumulator-init", describePass("accumulator-init")});
    if (explicitTensorCopies(Options) && Options.TensorStores)
      Steps.push_back({"tensor-stores", describePass("tensor-stores")});
  }
  Steps.push_back({"cse", describePass("cse")});
  Steps.push_back({"dce", describePass("dce")});
  // The split sees the rings and wgmmas the passes above made, before the
  // layouts and barriers, which then follow each partition's code. A group
  // left in flight across the back edge must be there before it (the pass
  // releases its slots one iteration later): the first mma-in-flight runs
  // only on kernels the split will take, whose slots go back through the
  // empty barriers whatever the warpgroups; the others keep the one below.
  if (Options.WarpSpecialize && explicitTensorCopies(Options)) {
    std::string Warps = "num-warps=" + std::to_string(Options.NumWarps);
    Steps.push_back({"mma-in-flight{" + Warps + ",warp-specialized}",
                     "on a kernel warp-specialize splits: one wgmma group left in flight across "
                     "the back edge, whatever the consumer's warpgroups"});
    Steps.push_back({"warp-specialize{" + Warps + "}", describePass("warp-specialize")});
    Steps.push_back({"dce", describePass("dce")});
  }
  Steps.push_back({"coalesce" + LayoutTarget,
                   "every global access of a tile in the layout its pointers' axis "
                   "info asks for (thread order, 16-byte vectors), operands and "
                   "result converted to it"});
  Steps.push_back({"assign-layouts" + LayoutTarget,
                   "every tile value's layout (num_warps, the target's MMAs) "
                   "written into its type, convert_layout where a use needs "
                   "another; the emitter reads them from the types"});
  // Last: the barriers follow the final order of the shared-memory accesses
  // and the layouts that tell which thread accesses what.
  Steps.push_back({"insert-barriers{num-warps=" + std::to_string(Options.NumWarps) + ",lowering}",
                   "the barriers and async-proxy fences the shared-memory accesses of "
                   "GPU-level IR need (RAW/WAR over its statements; none where a thread "
                   "reads back its own elements), and those of the lowering's scratch "
                   "and of global accesses in different thread mappings"});
  // Then the waits, which move no access: with several warpgroups a group
  // left in flight is safe only where a barrier orders each refill after
  // every warpgroup's wait for the group that read its slot, which the pass
  // sees only once the barriers are placed.
  if (Options.Arch == ptx::Arch::SM90a)
    Steps.push_back({"mma-in-flight{num-warps=" + std::to_string(Options.NumWarps) + "}",
                     describePass("mma-in-flight")});
  // The epilogue's staging slot over the rings the K loop is done with:
  // placed one after the other, the 128 x 256 x 64 f16 tile's rings (192 KB)
  // and slot (64 KB) exceeded the H100's 227 KB.
  if (explicitTensorCopies(Options))
    Steps.push_back({"allocate-shared", describePass("allocate-shared")});
  return Steps;
}

std::vector<PipelineStep> loweringSteps() {
  // generatePTX's own steps, then FunctionLowering::run's table.
  std::vector<PipelineStep> Steps = {
      {"check-shapes", "tile dimensions must be powers of two"},
      {"axis-info", "contiguity, divisibility and constancy of integer and pointer tiles"},
      {"layout-assignment",
       "the layouts the types name (assign-layouts), an access plan for every "
       "memory access (vector width), how each dot runs (wgmma, mma.sync, FMA)"}};
  for (const FunctionLowering::Step &S : FunctionLowering::steps())
    Steps.push_back({S.Name, S.Description});
  return Steps;
}

bool runBackendPassList(ir::Module &M, const CodeGenOptions &Options, DiagnosticEngine &Diags) {
  if (std::string Error = Options.check(); !Error.empty()) {
    Diags.error(SourceRange(), Error);
    return false;
  }
  // Sizes first: padding a tile that is already too large would only make it larger.
  bool Padded = checkTileSizes(M, Diags) && checkLayoutWarps(M, Options, Diags);
  for (const auto &FP : M.functions())
    if (std::optional<transform::PadTilesError> E =
            Padded ? transform::padTilesToPowersOfTwo(*FP) : std::nullopt) {
      Diags.error(SourceRange(E->Loc), E->Message);
      Padded = false;
    }
  return Padded && runBackendPasses(M, Options, Diags);
}

PTXOutput generatePTX(ir::Module &M, const CodeGenOptions &Options, DiagnosticEngine &Diags) {
  PTXOutput Out;
  if (!runBackendPassList(M, Options, Diags))
    return Out;
  // 8.1: vector reductions (red.global.add.v4.f32).
  ptx::PTXModule PM(ptx::PTXTarget{Options.Arch, 8, 1});
  // 1024: the swizzle atoms of tensor-core operands must start aligned.
  PM.addExternShared("tritonc_smem", 1024);
  bool Ok = true;
  for (const auto &FP : M.functions()) {
    const ir::Function &F = *FP;
    if (!checkShapes(F, Diags)) {
      Ok = false;
      continue;
    }
    analysis::AxisInfoAnalysis AI(F);
    // The layouts are in the types (assign-layouts, last of backendPasses):
    // typed values are anchors, so this finds them there. It is still run
    // for what the IR does not say yet: the access plans' vector widths
    // (coalesce), the dot plans (accelerate-dot) and which values are
    // recomputed where they are read.
    LayoutAssignment LA(F, AI, Options.NumWarps, /*HasMmaV2=*/true, Options.AllowTF32,
                        /*HasWgmma=*/Options.Arch == ptx::Arch::SM90a);
    checkLayoutsAreTyped(F, LA);
    ptx::PTXFunctionBuilder &B = PM.addKernel(F.getName());
    FunctionLowering FL(F, LA, AI, B, Options);
    FL.setRemarks(&Diags);
    try {
      FL.run();
    } catch (const UnsupportedConstruct &U) {
      Diags.error(SourceRange(U.Loc), U.Message);
      Ok = false;
      continue;
    }
    if (FL.sharedBytes() > Options.sharedMemoryLimit()) {
      // No launch could run it: say so here, where the user can still
      // change the configuration, rather than at every launch.
      SourceLoc Where, AtDot;
      for (const auto &BB : F.blocks())
        for (const auto &I : BB->instructions()) {
          if (!Where.isValid() && I->Loc.isValid())
            Where = I->Loc;
          if (!AtDot.isValid() && I->Loc.isValid() &&
              (I->getOpcode() == ir::Opcode::Dot || I->getOpcode() == ir::Opcode::Wgmma))
            AtDot = I->Loc; // the rings are the dots' operands
        }
      if (AtDot.isValid())
        Where = AtDot;
      Diags.error(SourceRange(Where),
                  "kernel '" + F.getName() + "' needs " + std::to_string(FL.sharedBytes()) +
                      " bytes of shared memory (operand rings and the scratch of layout "
                      "conversions), more than the " +
                      std::to_string(Options.sharedMemoryLimit()) +
                      " bytes a program may use here: use fewer stages (num_stages) or "
                      "smaller tiles");
      Ok = false;
      continue;
    }
    FL.declareDebugSupport();
    for (const std::string &D : FL.moduleDeclarations())
      PM.addDeclaration(D);
    // What the launch must provide, for readers of the PTX (and the tests).
    B.comment("dynamic shared memory: " + std::to_string(FL.sharedBytes()) + " bytes");
    KernelInfo Info;
    Info.Name = F.getName();
    Info.NumWarps = FL.numWarps(); // a warp-specialized kernel's partitions' sum
    Info.SharedMemBytes = FL.sharedBytes();
    Info.NumBarriers = FL.numBarriers();
    Info.TensorMaps = FL.tensorMaps();
    Out.Kernels.push_back(std::move(Info));
  }
  if (!Ok) {
    Out.Kernels.clear();
    return Out;
  }
  Out.PTX = PM.str();
  return Out;
}

} // namespace tritonc::codegen
