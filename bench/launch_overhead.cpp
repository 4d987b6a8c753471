//===- launch_overhead.cpp - Host cost of a kernel launch ------------------===//
//
// Measures what one launch of an empty kernel costs the host, three ways:
//
//   jit      driver::JitKernel::launch (argument check, specialization,
//            variant lookup, then the runtime launch): what C++ users call;
//   runtime  runtime::Kernel::launch on a module loaded from the same PTX;
//   driver   cuLaunchKernel itself, the floor under both.
//
// Each way is warmed up, then timed in rounds of N launches with a host clock
// around the launch loop only (the device is synchronized once per round,
// after the clock stops); the result is the median over the rounds, in
// microseconds per launch. It also reports the cold compile of the empty
// kernel (source -> loaded module) split into phases.
//
// Without a GPU: --help and --compile-only work; a launch measurement ends
// with "no CUDA driver: ..." and exit status 1.
//
//===----------------------------------------------------------------------===//

#include "tritonc/driver/Jit.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace tritonc;

namespace {

const char *Usage =
    "usage: bench_launch_overhead [--launches N] [--rounds R] [--warmup W] [--compile-only]\n"
    "\n"
    "Host cost of launching an empty kernel (__global__ void empty(float *X) {}) on\n"
    "device 0, through driver::JitKernel (jit), runtime::Kernel (runtime) and\n"
    "cuLaunchKernel (driver): the median over R rounds of N back-to-back launches,\n"
    "timed on the host without waiting for the device (it is synchronized once per\n"
    "round, after the clock stops). Also prints the cold compile of the kernel by\n"
    "phase (ms). Output lines: 'compile PHASE: X ms' and 'NAME: X us/launch'.\n"
    "\n"
    "Options:\n"
    "  --launches N     launches per round (default 20000)\n"
    "  --rounds R       timed rounds (default 7)\n"
    "  --warmup W       launches before the first round (default 2000)\n"
    "  --compile-only   compile the kernel and print its phases; needs no GPU\n";

const char *EmptyKernel = "__global__ void empty(float *X) {}\n";

struct Settings {
  unsigned long Launches = 20000;
  unsigned long Rounds = 7;
  unsigned long Warmup = 2000;
  bool CompileOnly = false;
};

/// Parses a positive count; false when Text is not one.
bool parseCount(const char *Text, unsigned long &Out) {
  char *End = nullptr;
  unsigned long V = std::strtoul(Text, &End, 10);
  if (!*Text || *End || V == 0 || Text[0] == '-')
    return false;
  Out = V;
  return true;
}

/// Returns -1 to go on, else the exit status.
int parseArgs(int Argc, char **Argv, Settings &S) {
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Value = [&](unsigned long &Out) {
      if (I + 1 >= Argc || !parseCount(Argv[I + 1], Out)) {
        std::fprintf(stderr, "bench_launch_overhead: %s needs a positive count\n", A.c_str());
        return false;
      }
      ++I;
      return true;
    };
    if (A == "--help" || A == "-h") {
      std::fputs(Usage, stdout);
      return 0;
    }
    if (A == "--compile-only")
      S.CompileOnly = true;
    else if (A == "--launches") {
      if (!Value(S.Launches))
        return 2;
    } else if (A == "--rounds") {
      if (!Value(S.Rounds))
        return 2;
    } else if (A == "--warmup") {
      if (!Value(S.Warmup))
        return 2;
    } else {
      std::fprintf(stderr, "bench_launch_overhead: unknown argument '%s'\n%s", A.c_str(), Usage);
      return 2;
    }
  }
  return -1;
}

int fail(const std::string &Msg) {
  std::fprintf(stderr, "bench_launch_overhead: %s\n", Msg.c_str());
  return 1;
}

void printTimings(const char *What, const driver::CompileTimings &T) {
  for (const auto &[Name, Seconds] : T.phases())
    if (Seconds > 0 || Name == "total")
      std::printf("%s %s: %.3f ms\n", What, Name.c_str(), Seconds * 1e3);
}

/// The median over S.Rounds of the host time per launch of Launch, in
/// microseconds; Launch returns false on failure (then Error is set).
double timeLaunches(const Settings &S, runtime::CudaDriver &D, const char *Name,
                    const std::function<bool()> &Launch, std::string &Error) {
  for (unsigned long I = 0; I < S.Warmup; ++I)
    if (!Launch())
      return -1;
  if (runtime::Status St = D.synchronize(); !St) {
    Error = St.error();
    return -1;
  }
  std::vector<double> PerLaunch;
  for (unsigned long R = 0; R < S.Rounds; ++R) {
    auto Start = std::chrono::steady_clock::now();
    for (unsigned long I = 0; I < S.Launches; ++I)
      if (!Launch())
        return -1;
    auto Stop = std::chrono::steady_clock::now();
    if (runtime::Status St = D.synchronize(); !St) {
      Error = St.error();
      return -1;
    }
    PerLaunch.push_back(std::chrono::duration<double, std::micro>(Stop - Start).count() /
                        double(S.Launches));
  }
  std::sort(PerLaunch.begin(), PerLaunch.end());
  double Median = PerLaunch[PerLaunch.size() / 2];
  std::printf("%s: %.3f us/launch (min %.3f, max %.3f over %lu rounds of %lu)\n", Name, Median,
              PerLaunch.front(), PerLaunch.back(), S.Rounds, S.Launches);
  std::fflush(stdout);
  return Median;
}

} // namespace

int main(int Argc, char **Argv) {
  Settings S;
  if (int Rc = parseArgs(Argc, Argv, S); Rc >= 0)
    return Rc;

  driver::DeviceCompileOptions Opts;
  runtime::Expected<runtime::CudaDriver *> D = driver::requireCudaDriver();
  if (D) {
    runtime::Expected<ptx::Arch> Arch = driver::archForDevice((*D)->device());
    if (!Arch)
      return fail(Arch.error());
    Opts.Back.Arch = *Arch;
  }
  // No cache: the compile is cold every time this program runs.
  runtime::Expected<std::unique_ptr<driver::JitKernel>> K = driver::JitKernel::create(
      driver::KernelSource::text("empty.tc", EmptyKernel), Opts, driver::CacheConfig{});
  if (!K)
    return fail("compiling the empty kernel failed:\n" + K.error());
  driver::JitKernel &J = **K;
  if (S.CompileOnly) {
    printTimings("compile", J.generic().Timings);
    return 0;
  }
  if (!D)
    return fail(D.error());
  runtime::CudaDriver &Driver = **D;

  runtime::Expected<runtime::DeviceBuffer> Buffer = runtime::DeviceBuffer::allocate(Driver, 256);
  if (!Buffer)
    return fail(Buffer.error());
  runtime::KernelArgs Args;
  Args.pointer(Buffer->ptr());
  std::string Spec = runtime::specializationString(Args);
  runtime::Expected<const driver::DeviceCompileResult *> Loaded = J.load(Spec);
  if (!Loaded)
    return fail(Loaded.error());
  printTimings("compile", (*Loaded)->Timings);
  std::printf("device: %s (%s)\n", Driver.device().Name.c_str(), Driver.device().target().c_str());

  const driver::Grid3 Grid = {1, 1, 1};
  std::string Error;
  auto Check = [&](runtime::Status St) {
    if (!St)
      Error = St.error();
    return bool(St);
  };
  if (timeLaunches(
          S, Driver, "jit", [&] { return Check(J.launch(Grid, Args)); }, Error) < 0)
    return fail("JitKernel::launch: " + Error);

  runtime::Expected<runtime::Module> M = runtime::Module::loadPTX(Driver, (*Loaded)->PTX);
  if (!M)
    return fail(M.error());
  runtime::Expected<runtime::Kernel> RK = M->getKernel((*Loaded)->Signature);
  if (!RK)
    return fail(RK.error());
  runtime::LaunchConfig Config;
  Config.NumWarps = (*Loaded)->Info.NumWarps;
  Config.SharedMemBytes = (*Loaded)->Info.SharedMemBytes;
  if (timeLaunches(
          S, Driver, "runtime", [&] { return Check(RK->launch(Config, Args)); }, Error) < 0)
    return fail("runtime::Kernel::launch: " + Error);

  std::vector<void *> Params = Args.pointers();
  const runtime::CudaApi &Api = Driver.api();
  runtime::CuFunction F = RK->function();
  unsigned Threads = Config.NumWarps * 32;
  auto Raw = [&] {
    return Check(Driver.check(Api.LaunchKernel(F, 1, 1, 1, Threads, 1, 1, Config.SharedMemBytes,
                                               nullptr, Params.data(), nullptr),
                              "cuLaunchKernel"));
  };
  if (timeLaunches(S, Driver, "driver", Raw, Error) < 0)
    return fail("cuLaunchKernel: " + Error);
  return 0;
}
