//===- CodeGen.h - Triton-IR to PTX (the GPU back end) ----------*- C++ -*-===//
//
// The Triton-JIT back end (thesis chapter 5): lowers optimized, verified
// Triton-IR to PTX text for one target. Per function it
//
//   1. computes axis info (contiguity / divisibility / constancy),
//   2. assigns every tile value a distributed layout (LayoutAssignment.h),
//   3. lowers each instruction to PTX through PTXBuilder, with layout
//      conversions, reductions and dot operands going through shared memory,
//   4. places barriers with the thesis' RAW/WAR equations over the shared
//      memory accesses the lowering made, and sizes the shared memory.
//
// Every function of the module becomes a `.visible .entry` kernel.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/support/TensorMapSpec.h"
#include "tritonc/target/ptx/PTXBuilder.h"

#include <string>
#include <vector>

namespace tritonc::codegen {

/// CodeGenOptions::RegisterStages unless set.
inline constexpr unsigned DefaultRegisterStages = 2;

/// Options of the back end; all of them are part of the kernel cache key
/// (see optionsString()).
struct CodeGenOptions {
  ptx::Arch Arch = ptx::Arch::SM90a;
  /// Warps per program (threads per CTA = 32 * NumWarps); 1, 2, 4, 8 or 16.
  unsigned NumWarps = 4;
  /// Lets f32 `dot` use TF32 tensor cores (lower precision). Off by default.
  bool AllowTF32 = false;
  /// Software-pipelining depth of loops feeding `dot`: the loads of iteration
  /// i + NumStages - 1 are issued while iteration i computes (asynchronous
  /// copies into NumStages shared-memory buffers). 1 turns pipelining off.
  unsigned NumStages = 3;
  /// The stages of the dot operand loads the back end cannot copy
  /// asynchronously (2-byte runs: odd row strides of 16-bit elements): they
  /// stay in registers until their dot, so the pipeline issues them only
  /// min(NumStages, RegisterStages) - 1 iterations ahead (at least as far as
  /// a hand prefetch in the source). 1 to 8; NumStages or more is the rule
  /// before this option (every operand load NumStages - 1 ahead).
  unsigned RegisterStages = DefaultRegisterStages;
  /// sm_90a: fill the shared rings of wgmma operands with bulk tensor copies
  /// (TMA) where the loads allow it, else with cp.async.
  bool TensorCopies = true;
  /// sm_90a, with TensorCopies: write 2-D tiles of 16-bit elements with bulk
  /// tensor stores (TMA) where the pointer tile and the code after the store
  /// allow it, else with st.global.
  bool TensorStores = true;
  /// sm_90a, with TensorCopies: split each kernel whose wgmma loops read
  /// rings that only bulk tensor copies fill into a producer warpgroup that
  /// issues the copies and the NumWarps consumer warps that run the wgmmas
  /// and the epilogue (the warp-specialize pass; the kernel then launches
  /// 4 + NumWarps warps). A kernel the pass declines compiles as without
  /// this option, with a remark. Off by default.
  bool WarpSpecialize = false;
  /// Dynamic shared memory one program may use, in bytes: the opt-in limit
  /// of the device the kernel will run on. 0 means the target's own
  /// (sharedMemoryOfTarget). The operand rings get up to 192 KB of it, and
  /// leave at least 8 KB for scratch.
  unsigned MaxSharedBytes = 0;

  /// Canonical text form, e.g. "arch=sm_90a num_warps=4 tf32=0 stages=3 tma=1 tma_store=1"
  /// (and " smem=N" where MaxSharedBytes differs from the target's, " ws=1"
  /// with WarpSpecialize).
  std::string optionsString() const;
  /// MaxSharedBytes, or the target's where it is 0.
  unsigned sharedMemoryLimit() const;
  /// The first invalid option as an error message ("num_warps must be 1, 2,
  /// 4, 8 or 16, not 3"), or "": the rules every entry point applies
  /// (driver::checkBackEndOptions).
  std::string check() const;
};

/// The range of CodeGenOptions::NumStages (1: no pipelining) and
/// RegisterStages.
inline constexpr unsigned MinNumStages = 1;
inline constexpr unsigned MaxNumStages = 8;
/// The range of a nonzero CodeGenOptions::MaxSharedBytes.
inline constexpr unsigned MinSharedBytes = 16 * 1024;
inline constexpr unsigned MaxSharedBytesLimit = 1024 * 1024;
/// "" when N is a valid warp count (1, 2, 4, 8 or 16), else the message.
std::string numWarpsError(unsigned N);
/// "" when N is in MinNumStages..MaxNumStages, else the message.
std::string numStagesError(unsigned N);

/// One step of the back end's pipeline (--print-pipeline).
struct PipelineStep {
  std::string Name;
  std::string Description;
};
/// The IR passes the back end runs on the module before lowering, in
/// order; generatePTX runs exactly these.
std::vector<PipelineStep> backendPasses(const CodeGenOptions &Options);
/// The steps generatePTX runs on each function, in order: its analyses,
/// then the steps of FunctionLowering::run (its step table).
std::vector<PipelineStep> loweringSteps();

/// The per-program shared memory limit of a target's reference device:
/// 227 KB for sm_90a (H100), 163 KB for sm_80 (A100; the sm_86 and sm_89
/// cards have 99 KB, which the JIT reads from the device).
unsigned sharedMemoryOfTarget(ptx::Arch Arch);

/// What the launcher needs to know about one generated kernel.
struct KernelInfo {
  std::string Name;
  unsigned NumWarps = 4;
  /// Dynamic shared memory the launch must provide, in bytes.
  unsigned SharedMemBytes = 0;
  /// Barriers (bar.sync) the barrier placement inserted (for tests).
  unsigned NumBarriers = 0;
  /// Hidden parameters after the user's: the tensor maps of the kernel's
  /// bulk tensor copies, encoded by the launcher (TensorMapSpec.h).
  std::vector<TensorMapSpec> TensorMaps;
};

/// The generated PTX module and its kernels.
struct PTXOutput {
  std::string PTX;
  std::vector<KernelInfo> Kernels;
};

/// What generatePTX does to M before lowering it: the option check, the
/// tile-size and layout-warp checks, the padding of tiles to powers of two
/// and the passes of backendPasses(Options). M is then the GPU-level IR the
/// emitter reads, which the interpreter runs too (`tritonc run --interpret
/// --backend-passes`). False, with errors in Diags, where it stops.
bool runBackendPassList(ir::Module &M, const CodeGenOptions &Options, DiagnosticEngine &Diags);

/// Lowers every function of M to one PTX module. Tile extents that are not
/// powers of two are padded first (transform::padTilesToPowersOfTwo). Constructs the
/// back end cannot lower are reported to Diags at their source location;
/// the result is then empty and Diags has errors. A bug in the back end raises InternalError.
PTXOutput generatePTX(ir::Module &M, const CodeGenOptions &Options, DiagnosticEngine &Diags);

} // namespace tritonc::codegen
