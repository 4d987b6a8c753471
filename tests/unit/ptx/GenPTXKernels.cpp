//===- GenPTXKernels.cpp - Write the PTXBuilder samples to files ----------===//
//
// Usage: ptx_gen_kernels OUTDIR. Writes <name>.<arch>.ptx for every sample
// and target, plus broken.<arch>.ptx.bad, for check-ptxas.sh.
//
//===----------------------------------------------------------------------===//

#include "PTXKernels.h"

#include <fstream>
#include <iostream>

using namespace tritonc::ptx;

static bool writeFile(const std::string &Path, const std::string &Text) {
  std::ofstream OS(Path);
  OS << Text;
  if (!OS) {
    std::cerr << "ptx_gen_kernels: cannot write " << Path << "\n";
    return false;
  }
  return true;
}

int main(int Argc, char **Argv) {
  if (Argc != 2) {
    std::cerr << "usage: ptx_gen_kernels OUTDIR\n";
    return 2;
  }
  std::string Dir = Argv[1];
  for (Arch A : {Arch::SM80, Arch::SM90a}) {
    PTXTarget T;
    T.A = A;
    std::string Suffix = std::string(".") + archName(A);
    for (const samples::SampleModule &S : samples::allSamples(T))
      if (!writeFile(Dir + "/" + S.Name + Suffix + ".ptx", S.Text))
        return 1;
    if (!writeFile(Dir + "/broken" + Suffix + ".ptx.bad", samples::broken(T)))
      return 1;
  }
  return 0;
}
