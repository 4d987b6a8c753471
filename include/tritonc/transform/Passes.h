//===- Passes.h - Constructors of the registered passes --------*- C++ -*-===//
//
// One create function per entry of Passes.def. Each pass lives in its own
// file of lib/transform; its header documents what it does and why.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/AccelerateDot.h"
#include "tritonc/transform/AssignLayouts.h"
#include "tritonc/transform/AsyncRings.h"
#include "tritonc/transform/Coalesce.h"
#include "tritonc/transform/LoopPipeline.h"
#include "tritonc/transform/PassManager.h"
#include "tritonc/transform/WarpSpecialize.h"

#include <memory>

namespace tritonc::transform {

#define PASS(Name, CreateFn, Description) std::unique_ptr<Pass> CreateFn();
#include "tritonc/transform/Passes.def"

/// The loop pipelining pass (registered as "pipeline" with 3 stages) for a
/// given number of stages: loads feeding a `dot` in a loop are issued
/// NumStages - 1 iterations ahead (see LoopPipeline.h), those that Copies
/// declines RegisterStages - 1 (0: as the others). 1 changes nothing.
std::unique_ptr<Pass> createLoopPipelinePass(unsigned NumStages, bool AcrossTiles = true,
                                             AsyncCopyFilter Copies = {},
                                             unsigned RegisterStages = 0);
/// lower-tensor-descs; TensorCopies (option `tma`, sm_90a): loads the
/// launcher can map become bulk tensor copies, except those feeding a dot
/// in a loop unless CopiesFeedingDots (option `all`) (LowerTensorDescs.cpp);
/// RingCopies (option `rings`): tensor-copies runs later and fills the rings
/// of those gathers with bulk tensor copies (what the remarks say).
std::unique_ptr<Pass> createTensorDescLoweringPass(bool TensorCopies, bool CopiesFeedingDots,
                                                   bool RingCopies = false);
/// async-rings for the GPU back end's target (AsyncRings.h).
std::unique_ptr<Pass> createAsyncRingsPass(AsyncRingsTarget Target);
/// async-rings with the dots' target as options (AsyncRings.h).
std::unique_ptr<Pass> createAsyncRingsPass(AssignLayoutsTarget Dots, bool TransOperands = false,
                                           uint64_t RingBudget = 0);
/// tensor-copies with the dots' target as options (TensorCopies.h): the
/// rings of dots on FMA units stay with cp.async.
std::unique_ptr<Pass> createTensorCopiesPass(AssignLayoutsTarget Dots);
/// tensor-stores for the GPU back end (TensorStores.h), with the program's
/// shared memory in bytes.
std::unique_ptr<Pass> createTensorStoresPass(uint64_t SharedBytes);
/// assign-layouts for the GPU back end's target (AssignLayouts.h).
std::unique_ptr<Pass> createAssignLayoutsPass(AssignLayoutsTarget Target);
/// coalesce for the GPU back end's target (Coalesce.h).
std::unique_ptr<Pass> createCoalescePass(AssignLayoutsTarget Target);
/// insert-barriers for programs of NumWarps warps (InsertBarriers.h); with
/// Lowering, also for the lowering's scratch and global accesses.
std::unique_ptr<Pass> createInsertBarriersPass(unsigned NumWarps, bool Lowering = false);
/// accelerate-dot for the GPU back end's target (AccelerateDot.h).
std::unique_ptr<Pass> createAccelerateDotPass(AssignLayoutsTarget Target);
/// warp-specialize with its partitions' warps and registers
/// (WarpSpecialize.h).
std::unique_ptr<Pass> createWarpSpecializePass(const WarpSpecializeOptions &Options);
/// mma-in-flight for programs of NumWarps warps; BeforeSplit: its option
/// warp-specialized, before warp-specialize (MmaInFlight.h).
std::unique_ptr<Pass> createMmaInFlightPass(unsigned NumWarps, bool BeforeSplit = false);

} // namespace tritonc::transform
