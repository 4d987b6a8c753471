//===- main.cpp - The tritonc tool ----------------------------------------===//
//
// Everything lives in the driver library (tritonc/driver/Cli.h) so that the
// command line can be tested in-process; this is only the entry point.
//
//===----------------------------------------------------------------------===//

#include "tritonc/driver/Cli.h"

#include <iostream>
#include <string>
#include <vector>

int main(int Argc, char **Argv) {
  std::vector<std::string> Args(Argv + 1, Argv + Argc);
  int Rc = tritonc::driver::runTritonc(Args, std::cin, std::cout, std::cerr);
  std::cout.flush();
  return Rc;
}
