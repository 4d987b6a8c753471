//===- Pipeline.cpp - The whole compilation pipeline, in one place --------===//

#include "tritonc/driver/Pipeline.h"

#include "tritonc/driver/Jit.h"

#include <map>

namespace tritonc::driver {

using runtime::makeError;
using runtime::Status;

namespace {

/// "  name          description\n", names padded to one column.
void addStep(std::string &Out, const std::string &Name, const std::string &Description) {
  Out += "  " + Name;
  Out += std::string(Name.size() < 20 ? 20 - Name.size() : 1, ' ');
  Out += Description + "\n";
}

} // namespace

std::string describePipeline(const CompileOptions &Front, const codegen::CodeGenOptions &Given) {
  codegen::CodeGenOptions Back = configuredBackEnd(Front, Given);
  std::string Out = "target " + std::string(ptx::archName(Back.Arch)) + ", options " +
                    Back.optionsString() + "\n";
  if (!Front.Tuned.empty())
    Out += "tuned options: " + Front.Tuned.str() + " (a configuration compiles one value each)\n";
  Out += "front end:\n";
  addStep(Out, "preprocess", "macros (-D, -I), #include, tuning lists (one configuration)");
  addStep(Out, "parse", "Triton-C to a syntax tree");
  addStep(Out, "irgen", "semantic checks, SSA construction, Triton-IR; verified");
  std::string Passes = Front.UsePipelineDefault ? transform::defaultPipeline() : Front.Pipeline;
  std::vector<std::pair<std::string, std::string>> Registered = transform::registeredPasses();
  std::map<std::string, std::string> Descriptions(Registered.begin(), Registered.end());
  Out += std::string("IR passes (") + (Front.UsePipelineDefault ? "default" : "--passes") +
         "), then verified:\n";
  for (size_t Start = 0; !Passes.empty() && Start <= Passes.size();) {
    size_t Comma = Passes.find(',', Start);
    std::string Name =
        Passes.substr(Start, Comma == std::string::npos ? std::string::npos : Comma - Start);
    auto It = Descriptions.find(Name);
    addStep(Out, Name,
            It != Descriptions.end() ? It->second : "not a registered pass: compiling stops here");
    if (Comma == std::string::npos)
      break;
    Start = Comma + 1;
  }
  Out += "back end, on the module (codegen::backendPasses):\n";
  for (const codegen::PipelineStep &S : codegen::backendPasses(Back))
    addStep(Out, S.Name, S.Description);
  Out += "back end, per function (codegen::loweringSteps):\n";
  for (const codegen::PipelineStep &S : codegen::loweringSteps())
    addStep(Out, S.Name, S.Description);
  Out += "output:\n";
  addStep(Out, "emit", "one PTX module; every function a .visible .entry");
  return Out;
}

codegen::CodeGenOptions configuredBackEnd(const CompileOptions &Front,
                                          codegen::CodeGenOptions Back) {
  if (Front.Tuned.empty())
    return Back;
  std::optional<Configuration> C =
      findConfiguration(Front.Defines, Front.Tuned, Front.Config.value_or(0));
  if (C && C->NumWarps)
    Back.NumWarps = *C->NumWarps;
  if (C && C->NumStages)
    Back.NumStages = *C->NumStages;
  return Back;
}

bool validateBackendOptions(const codegen::CodeGenOptions &Back, const TunedOptions &Tuned,
                            DiagnosticEngine &Diags) {
  bool Ok = true;
  auto Report = [&](const std::string &Error, const std::string &Where) {
    if (Error.empty())
      return;
    Diags.error(SourceRange(), Error + Where);
    Ok = false;
  };
  Report(Back.check(), "");
  // The messages of a list's values are those of a single value; the list
  // is named because the value alone may not be found on the command line.
  auto CheckList = [&](const std::vector<unsigned> &Values, std::string (*Error)(unsigned),
                       const char *Name) {
    std::string List;
    for (unsigned V : Values)
      List += (List.empty() ? "" : ",") + std::to_string(V);
    for (unsigned V : Values)
      Report(Error(V), std::string(" (in the list ") + Name + "=[" + List + "])");
  };
  CheckList(Tuned.NumWarps, codegen::numWarpsError, "num_warps");
  CheckList(Tuned.NumStages, codegen::numStagesError, "num_stages");
  return Ok;
}

Status checkBackEndOptions(const codegen::CodeGenOptions &Back, const TunedOptions &Tuned) {
  SourceManager SM;
  DiagnosticEngine Diags(SM);
  if (validateBackendOptions(Back, Tuned, Diags))
    return Status::ok();
  std::string Errors;
  for (const Diagnostic &D : Diags.diagnostics())
    Errors += (Errors.empty() ? "" : "; ") + D.Message;
  return makeError(Errors);
}

Status selectTarget(const std::optional<std::string> &Arch, const runtime::DeviceInfo *Device,
                    codegen::CodeGenOptions &Back) {
  if (Arch) {
    runtime::Expected<ptx::Arch> A = parseArch(*Arch);
    if (!A)
      return makeError(A.error());
    Back.Arch = *A;
  } else if (Device) {
    runtime::Expected<ptx::Arch> A = archForDevice(*Device);
    if (!A)
      return makeError(A.error());
    Back.Arch = *A;
  }
  if (Device)
    limitSharedMemoryToDevice(*Device, Back);
  return Status::ok();
}

} // namespace tritonc::driver
