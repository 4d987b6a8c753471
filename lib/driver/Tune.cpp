//===- Tune.cpp - `tritonc tune`: the fastest configuration on the GPU -----===//

#include "tritonc/driver/Tune.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <mutex>
#include <ostream>
#include <thread>

namespace tritonc::driver {

using runtime::Expected;
using runtime::makeError;
using runtime::Status;

namespace {

/// Recursive descent over one grid expression.
class GridParser {
public:
  GridParser(std::string_view Text, const DefineList &Config, unsigned Depth = 0)
      : Text(Text), Config(Config), Depth(Depth) {}

  Expected<int64_t> parse() {
    Expected<int64_t> V = sum();
    if (V && (skipSpace(), Pos != Text.size()))
      return fail("unexpected '" + std::string(Text.substr(Pos)) + "'");
    return V;
  }

private:
  Expected<int64_t> fail(const std::string &Why) {
    return makeError("grid expression '" + std::string(Text) + "': " + Why);
  }
  void skipSpace() {
    while (Pos < Text.size() && std::isspace(static_cast<unsigned char>(Text[Pos])))
      ++Pos;
  }
  bool eat(char C) {
    skipSpace();
    if (Pos < Text.size() && Text[Pos] == C) {
      ++Pos;
      return true;
    }
    return false;
  }
  Expected<int64_t> sum() {
    Expected<int64_t> L = product();
    while (L) {
      bool Plus = eat('+');
      if (!Plus && !eat('-'))
        break;
      Expected<int64_t> R = product();
      if (!R)
        return R;
      L = Plus ? *L + *R : *L - *R;
    }
    return L;
  }
  Expected<int64_t> product() {
    Expected<int64_t> L = atom();
    while (L) {
      char Op = eat('*') ? '*' : eat('/') ? '/' : eat('%') ? '%' : 0;
      if (!Op)
        break;
      Expected<int64_t> R = atom();
      if (!R)
        return R;
      if (Op != '*' && *R == 0)
        return fail("division by zero");
      L = Op == '*' ? *L * *R : Op == '/' ? *L / *R : *L % *R;
    }
    return L;
  }
  Expected<int64_t> atom() {
    skipSpace();
    if (eat('(')) {
      Expected<int64_t> V = sum();
      if (V && !eat(')'))
        return fail("missing ')'");
      return V;
    }
    if (eat('-')) {
      Expected<int64_t> V = atom();
      return V ? Expected<int64_t>(-*V) : V;
    }
    size_t Start = Pos;
    while (Pos < Text.size() &&
           (std::isalnum(static_cast<unsigned char>(Text[Pos])) || Text[Pos] == '_'))
      ++Pos;
    std::string Word(Text.substr(Start, Pos - Start));
    if (Word.empty())
      return fail(Pos < Text.size() ? "unexpected '" + std::string(1, Text[Pos]) + "'"
                                    : "missing operand");
    if (std::isdigit(static_cast<unsigned char>(Word[0]))) {
      int64_t V = 0;
      for (char C : Word) {
        if (!std::isdigit(static_cast<unsigned char>(C)) || V > (INT64_MAX - 9) / 10)
          return fail("bad number '" + Word + "'");
        V = V * 10 + (C - '0');
      }
      return V;
    }
    if (Word == "cdiv" && eat('(')) {
      Expected<int64_t> A = sum();
      if (!A)
        return A;
      if (!eat(','))
        return fail("cdiv takes two arguments");
      Expected<int64_t> B = sum();
      if (!B)
        return B;
      if (!eat(')'))
        return fail("missing ')' after cdiv's arguments");
      if (*B <= 0)
        return fail("cdiv by " + std::to_string(*B));
      return (*A + *B - 1) / *B;
    }
    // The last definition wins, as with -D on the command line.
    for (auto It = Config.rbegin(); It != Config.rend(); ++It)
      if (It->first == Word) {
        if (Depth >= 16)
          return fail("defines refer to each other too deeply");
        return GridParser(It->second, Config, Depth + 1).parse();
      }
    return fail("'" + Word + "' is neither a number nor a define of the configuration");
  }

  std::string_view Text;
  const DefineList &Config;
  unsigned Depth;
  size_t Pos = 0;
};

/// The L2 flush before each timed run: larger than any current GPU's L2.
constexpr size_t FlushBytes = 256u << 20;

/// Median device milliseconds of Runs launches of K, each after writing the
/// flush buffer, bracketed by events on the default stream.
Expected<double> timeLaunches(runtime::CudaDriver &D, JitKernel &K, const Grid3 &Grid,
                              runtime::KernelArgs &Args, runtime::DeviceBuffer &Flush,
                              const TuneOptions &O) {
  for (unsigned I = 0; I < O.Warmup; ++I)
    if (Status S = K.launch(Grid, Args); !S)
      return makeError(S.error());
  std::vector<std::pair<runtime::CuEvent, runtime::CuEvent>> Events;
  auto Destroy = [&] {
    for (auto &[Start, End] : Events) {
      (void)D.eventDestroy(Start);
      (void)D.eventDestroy(End);
    }
  };
  for (unsigned I = 0; I < O.Runs; ++I) {
    Expected<runtime::CuEvent> Start = D.eventCreate();
    Expected<runtime::CuEvent> End = Start ? D.eventCreate() : Start;
    if (!Start || !End) {
      Destroy();
      return makeError(Start ? End.error() : Start.error());
    }
    Events.emplace_back(*Start, *End);
    Status S = Flush.fill(0);
    if (S)
      S = D.eventRecord(*Start, nullptr);
    if (S)
      S = K.launch(Grid, Args);
    if (S)
      S = D.eventRecord(*End, nullptr);
    if (!S) {
      Destroy();
      return makeError(S.error());
    }
  }
  std::vector<double> Ms;
  Status S = D.synchronize();
  for (auto &[Start, End] : Events) {
    if (!S)
      break;
    Expected<float> T = D.eventElapsedTime(Start, End);
    if (!T)
      S = makeError(T.error());
    else
      Ms.push_back(*T);
  }
  Destroy();
  if (!S)
    return makeError(S.error());
  std::nth_element(Ms.begin(), Ms.begin() + Ms.size() / 2, Ms.end());
  return Ms[Ms.size() / 2];
}

} // namespace

Expected<int64_t> evaluateGridExpression(std::string_view Text, const DefineList &Config) {
  return GridParser(Text, Config).parse();
}

Expected<Grid3> evaluateGrid(std::string_view Text, const DefineList &Config) {
  std::vector<std::string_view> Parts;
  size_t Start = 0;
  int Depth = 0;
  for (size_t I = 0; I <= Text.size(); ++I) {
    if (I == Text.size() || (Text[I] == ',' && Depth == 0)) {
      Parts.push_back(Text.substr(Start, I - Start));
      Start = I + 1;
    } else if (Text[I] == '(') {
      ++Depth;
    } else if (Text[I] == ')') {
      --Depth;
    }
  }
  if (Parts.size() > 3)
    return makeError("grid '" + std::string(Text) + "' has " + std::to_string(Parts.size()) +
                     " dimensions; at most 3");
  Grid3 Grid = {1, 1, 1};
  for (size_t D = 0; D < Parts.size(); ++D) {
    Expected<int64_t> V = evaluateGridExpression(Parts[D], Config);
    if (!V)
      return makeError(V.error());
    if (*V < 1 || *V > 0x7FFFFFFF)
      return makeError("grid dimension " + std::to_string(D) + " ('" + std::string(Parts[D]) +
                       "') is " + std::to_string(*V) + "; it must be 1 to 2^31-1");
    Grid[D] = unsigned(*V);
  }
  return Grid;
}

Expected<std::vector<TuneResult>> tuneOnDevice(const KernelSource &Src,
                                               const DeviceCompileOptions &Opts, PreparedLaunch &L,
                                               const std::string &GridText,
                                               const TuneOptions &TOpts, std::ostream &Progress) {
  Expected<runtime::CudaDriver *> D = requireCudaDriver();
  if (!D)
    return makeError(D.error());
  std::vector<Configuration> Configs;
  std::string Error;
  if (!listConfigurations(Opts.Front.Defines, Opts.Front.Tuned, Configs, Error))
    return makeError(Error);
  size_t N = Configs.size();
  std::vector<TuneResult> Results(N);
  std::vector<std::unique_ptr<JitKernel>> Kernels(N);
  std::vector<Grid3> Grids(N);
  for (size_t I = 0; I < N; ++I) {
    Results[I].Config = I;
    Results[I].Description = Configs[I].Description;
    Expected<Grid3> G = evaluateGrid(GridText, Configs[I].Defines);
    if (!G)
      return makeError("configuration " + std::to_string(I) + ": " + G.error());
    Grids[I] = *G;
  }

  // The arguments once on the device: every configuration runs on them.
  std::vector<runtime::DeviceBuffer> Buffers;
  std::unique_ptr<JitKernel> First;
  {
    DeviceCompileOptions O = Opts;
    O.Front.Config = 0;
    Expected<std::unique_ptr<JitKernel>> K = JitKernel::create(Src, O);
    if (!K)
      return makeError(K.error());
    First = K.take();
  }
  Expected<runtime::KernelArgs> Args = uploadPreparedArguments(**D, First->signature(), L, Buffers);
  if (!Args)
    return makeError(Args.error());
  std::string Spec = runtime::specializationString(*Args);

  // Compiled and loaded (PTX -> SASS) in parallel, a core each.
  std::atomic<size_t> Next{0}, Done{0};
  std::mutex ProgressMutex;
  auto Worker = [&] {
    for (size_t I = Next++; I < N; I = Next++) {
      DeviceCompileOptions O = Opts;
      O.Front.Config = I;
      Expected<std::unique_ptr<JitKernel>> K = JitKernel::create(Src, O);
      if (K) {
        if (Expected<const DeviceCompileResult *> V = (*K)->load(Spec); !V)
          Results[I].Error = V.error();
        else
          Kernels[I] = K.take();
      } else {
        Results[I].Error = K.error();
      }
      std::lock_guard<std::mutex> Lock(ProgressMutex);
      Progress << "compiled " << ++Done << "/" << N << "\n";
    }
  };
  std::vector<std::thread> Threads;
  unsigned Cores = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned T = 0; T < std::min<size_t>(Cores, N); ++T)
    Threads.emplace_back(Worker);
  for (std::thread &T : Threads)
    T.join();

  Expected<runtime::DeviceBuffer> Flush = runtime::DeviceBuffer::allocate(**D, FlushBytes);
  if (!Flush)
    return makeError(Flush.error());
  const TuneResult *Best = nullptr;
  for (size_t I = 0; I < N; ++I) {
    TuneResult &R = Results[I];
    if (Kernels[I]) {
      // One checked launch first: a failing configuration is skipped.
      Status S = Kernels[I]->launch(Grids[I], *Args);
      if (S)
        S = (*D)->synchronize();
      if (!S) {
        R.Error = S.error();
        // A failed kernel may leave the context unusable: stop here.
        if (!(*D)->synchronize())
          return makeError("configuration " + std::to_string(I) +
                           " broke the context: " + S.error());
      } else if (Expected<double> Ms =
                     timeLaunches(**D, *Kernels[I], Grids[I], *Args, *Flush, TOpts)) {
        R.Milliseconds = *Ms;
      } else {
        R.Error = Ms.error();
      }
    }
    if (R.Error.empty() && (!Best || R.Milliseconds < Best->Milliseconds))
      Best = &R;
    Progress << "timed " << (I + 1) << "/" << N;
    if (Best)
      Progress << ", best so far " << Best->Milliseconds << " ms (configuration " << Best->Config
               << (Best->Description.empty() ? "" : ": " + Best->Description) << ")";
    Progress << "\n";
  }
  if (!Best)
    return makeError("no configuration compiled and ran: " + Results.front().Error);
  return Results;
}

} // namespace tritonc::driver
