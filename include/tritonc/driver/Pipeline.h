//===- Pipeline.h - The whole compilation pipeline, in one place -*- C++ -*-===//
//
// What a compilation for the GPU runs, in order, for one target and its
// options:
//
//   front end           preprocess (-D, -I, tuning lists), parse, irgen, verify
//   IR passes           transform::defaultPipeline(), or the --passes list
//   back end (module)   codegen::backendPasses(): the IR passes the back end
//                       runs first (pipeline among them)
//   back end (function) codegen::loweringSteps(): the planning steps and the
//                       lowering of FunctionLowering::run, in their order
//   PTX                 one module, every function a .visible .entry
//
// describePipeline prints that list (`tritonc compile --print-pipeline`). The
// back end runs exactly these lists: runBackendPasses builds its pass manager
// from backendPasses() and FunctionLowering::run walks its step table.
//
// Here too is what the CLI, the C++ API (compileForDevice, JitKernel) and
// the Python module share about the back end's options: one validation
// (validateBackendOptions) and one target selection (selectTarget).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/codegen/CodeGen.h"
#include "tritonc/driver/Compiler.h"
#include "tritonc/runtime/CudaDriver.h"
#include "tritonc/runtime/Expected.h"

#include <optional>
#include <string>

namespace tritonc::driver {

/// The whole pipeline of a compilation with these options, one step a line:
/// the target and the back-end options (of the selected configuration)
/// first, then each stage's steps with a short description.
std::string describePipeline(const CompileOptions &Front, const codegen::CodeGenOptions &Back);

/// Back with the num_warps and num_stages of the configuration Front
/// selects (Front.Config, else 0), where Front.Tuned tunes them; Back as it
/// is when the space or the index is invalid (the front end reports both).
codegen::CodeGenOptions configuredBackEnd(const CompileOptions &Front,
                                          codegen::CodeGenOptions Back);

/// The one validation of the back end's options, which the CLI, the C++ API
/// (compileForDevice) and the Python module run: the first invalid option of
/// Back (CodeGenOptions::check: num_warps 1, 2, 4, 8 or 16, num_stages 1 to
/// 8, max shared memory 16384 to 1048576 bytes) and every invalid value of
/// the tuned lists, each an error in Diags without a location (options have
/// none). The target is checked where it is chosen (selectTarget); the
/// tf32 and TMA switches cannot be invalid. False when any was reported.
bool validateBackendOptions(const codegen::CodeGenOptions &Back, const TunedOptions &Tuned,
                            DiagnosticEngine &Diags);
/// validateBackendOptions as a status: the messages joined by "; ".
runtime::Status checkBackEndOptions(const codegen::CodeGenOptions &Back,
                                    const TunedOptions &Tuned = {});

/// Chooses the target: Arch by name ("sm_90a", "sm_80") when given, else the
/// device's (archForDevice) when there is one, else the back end's default
/// (sm_90a). With a device, the shared memory is also limited to what it
/// offers (limitSharedMemoryToDevice). Fails on an unknown name or a device
/// older than sm_80.
runtime::Status selectTarget(const std::optional<std::string> &Arch,
                             const runtime::DeviceInfo *Device, codegen::CodeGenOptions &Back);

} // namespace tritonc::driver
