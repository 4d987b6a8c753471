//===- FuzzReplay.cpp - Runs the fuzz targets over stored inputs ----------===//
//
// usage: fuzz_replay [--frontend PATH...] [--ir PATH...] [--ptx PATH...]
//
// Each PATH is a file or a folder (searched recursively, files in sorted
// order). Every file is fed to the target named by the last --frontend,
// --ir or --ptx flag before it. The replay prints each file's name before running it,
// so that a finding (which traps) or a sanitizer report is easy to attribute.
// It exits with status 1 when a target was given no input at all, so that a
// moved or emptied corpus folder does not pass silently.
//
//===----------------------------------------------------------------------===//
#include "FuzzTargets.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using TargetFn = void (*)(const uint8_t *, size_t);

struct Input {
  TargetFn Fn;
  const char *TargetName;
  std::string Path;
};

bool collect(const std::string &Path, TargetFn Fn, const char *Name, std::vector<Input> &Out) {
  std::error_code EC;
  if (fs::is_regular_file(Path, EC)) {
    Out.push_back({Fn, Name, Path});
    return true;
  }
  if (!fs::is_directory(Path, EC)) {
    std::cerr << "fuzz_replay: no such file or folder: " << Path << "\n";
    return false;
  }
  std::vector<std::string> Files;
  for (const fs::directory_entry &E : fs::recursive_directory_iterator(Path, EC))
    if (E.is_regular_file())
      Files.push_back(E.path().string());
  std::sort(Files.begin(), Files.end());
  for (std::string &F : Files)
    Out.push_back({Fn, Name, std::move(F)});
  return true;
}

} // namespace

int main(int Argc, char **Argv) {
  TargetFn Fn = nullptr;
  const char *Name = nullptr;
  std::vector<Input> Inputs;
  size_t NumFrontend = 0, NumIR = 0, NumPtx = 0;
  bool SawFrontend = false, SawIR = false, SawPtx = false;
  for (int I = 1; I < Argc; ++I) {
    std::string Arg = Argv[I];
    if (Arg == "--frontend") {
      Fn = tritonc::fuzz::runFrontendTarget;
      Name = "frontend";
      SawFrontend = true;
    } else if (Arg == "--ir") {
      Fn = tritonc::fuzz::runIRParserTarget;
      Name = "ir-parser";
      SawIR = true;
    } else if (Arg == "--ptx") {
      Fn = tritonc::fuzz::runPtxTarget;
      Name = "ptx";
      SawPtx = true;
    } else if (!Fn) {
      std::cerr << "usage: fuzz_replay [--frontend PATH...] [--ir PATH...] [--ptx PATH...]\n";
      return 2;
    } else {
      size_t Before = Inputs.size();
      if (!collect(Arg, Fn, Name, Inputs))
        return 1;
      size_t Added = Inputs.size() - Before;
      (Fn == tritonc::fuzz::runFrontendTarget ? NumFrontend
       : Fn == tritonc::fuzz::runPtxTarget    ? NumPtx
                                              : NumIR) += Added;
    }
  }
  if (!SawFrontend && !SawIR && !SawPtx) {
    std::cerr << "usage: fuzz_replay [--frontend PATH...] [--ir PATH...] [--ptx PATH...]\n";
    return 2;
  }
  if ((SawFrontend && NumFrontend == 0) || (SawIR && NumIR == 0) || (SawPtx && NumPtx == 0)) {
    std::cerr << "fuzz_replay: a target was given no input files\n";
    return 1;
  }
  for (const Input &In : Inputs) {
    std::ifstream Stream(In.Path, std::ios::binary);
    std::string Bytes((std::istreambuf_iterator<char>(Stream)), std::istreambuf_iterator<char>());
    if (!Stream && !Stream.eof()) {
      std::cerr << "fuzz_replay: cannot read " << In.Path << "\n";
      return 1;
    }
    std::cerr << "[" << In.TargetName << "] " << In.Path << "\n";
    In.Fn(reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size());
  }
  std::cerr << "fuzz_replay: " << NumFrontend << " frontend, " << NumIR << " IR and " << NumPtx
            << " PTX inputs ran without findings\n";
  return 0;
}
