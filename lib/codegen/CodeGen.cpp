//===- CodeGen.cpp - Triton-IR module to a PTX module ---------------------===//

#include "tritonc/codegen/CodeGen.h"

#include "Lowering.h"

#include "tritonc/analysis/AxisInfo.h"

#include "tritonc/analysis/LayoutAssignment.h"

namespace tritonc::codegen {

std::string CodeGenOptions::optionsString() const {
  return std::string("arch=") + ptx::archName(Arch) + " num_warps=" + std::to_string(NumWarps) +
         " tf32=" + (AllowTF32 ? "1" : "0");
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

} // namespace

PTXOutput generatePTX(ir::Module &M, const CodeGenOptions &Options, DiagnosticEngine &Diags) {
  PTXOutput Out;
  if (Options.NumWarps == 0 || Options.NumWarps > 16 ||
      (Options.NumWarps & (Options.NumWarps - 1))) {
    Diags.error(SourceRange(), "num_warps must be 1, 2, 4, 8 or 16 (got " +
                                   std::to_string(Options.NumWarps) + ")");
    return Out;
  }
  ptx::PTXModule PM(ptx::PTXTarget{Options.Arch, 8, 0});
  PM.addExternShared("tritonc_smem", 16);
  bool Ok = true;
  for (const auto &FP : M.functions()) {
    const ir::Function &F = *FP;
    if (!checkShapes(F, Diags)) {
      Ok = false;
      continue;
    }
    analysis::AxisInfoAnalysis AI(F);
    LayoutAssignment LA(F, AI, Options.NumWarps, /*HasMmaV2=*/true, Options.AllowTF32);
    ptx::PTXFunctionBuilder &B = PM.addKernel(F.getName());
    FunctionLowering FL(F, LA, AI, B, Options);
    try {
      FL.run();
    } catch (const UnsupportedConstruct &U) {
      Diags.error(SourceRange(U.Loc), U.Message);
      Ok = false;
      continue;
    }
    KernelInfo Info;
    Info.Name = F.getName();
    Info.NumWarps = Options.NumWarps;
    Info.SharedMemBytes = FL.sharedBytes();
    Info.NumBarriers = FL.numBarriers();
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
