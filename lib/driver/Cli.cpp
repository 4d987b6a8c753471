//===- Cli.cpp - The tritonc command line ---------------------------------===//

#include "tritonc/driver/Cli.h"

#include "tritonc/driver/AotC.h"
#include "tritonc/driver/CliArgs.h"
#include "tritonc/driver/Compiler.h"
#include "tritonc/driver/Jit.h"
#include "tritonc/driver/Launch.h"
#include "tritonc/driver/Pipeline.h"
#include "tritonc/driver/Ptxas.h"
#include "tritonc/driver/Tune.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/lang/Parser.h"
#include "tritonc/support/FileIO.h"

#include <chrono>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>

namespace tritonc::driver {

using cli::OptionSpec;
using cli::ParsedArgs;

std::string generalUsage() {
  return "usage: tritonc <command> [options] FILE [ARGS...]\n"
         "\n"
         "Commands:\n"
         "  compile   compile Triton-C to Triton-IR, PTX or a cubin\n"
         "  run       compile a kernel and run it on the CPU interpreter or the GPU\n"
         "  opt       run passes on Triton-IR text\n"
         "  tune      time every configuration of the tuning lists on the GPU, print the best\n"
         "  cache     show (--info) or empty (--clear) the kernel cache\n"
         "\n"
         "Options:\n"
         "  --help, -h   show this help (tritonc <command> --help: the command's options)\n"
         "  --version    show the version\n"
         "\n"
         "Exit status: 0 on success, 1 when the input has errors or the kernel fails,\n"
         "2 for command-line usage errors.\n"
         "Environment: TRITONC_CACHE_DIR (kernel cache of `run --device`, default\n"
         "~/.cache/tritonc), TRITONC_PTXAS (the ptxas of --emit=cubin).\n";
}

namespace {

/// Element operations per program instance (see InterpOptions): seconds of
/// interpreter time, far above any test-sized kernel.
constexpr uint64_t DefaultMaxSteps = 4'000'000'000;

const char *CompileUsage =
    "usage: tritonc compile FILE [options]\n"
    "\n"
    "Compiles a Triton-C file (FILE may be '-' for stdin) and prints Triton-IR after\n"
    "the default pass pipeline, or the PTX (or cubin) of the GPU back end. A FILE\n"
    "ending in .tir is Triton-IR text (GPU-level operations allowed), verified and\n"
    "compiled the same way.\n"
    "\n"
    "Options:\n"
    "  -D NAME=VALUE, -DNAME=VALUE, -DNAME   define a macro (-DNAME means NAME=1);\n"
    "                        a value [v1,v2,...] is a tuning list\n"
    "  -I DIR, -IDIR         add an #include search directory\n"
    "  --emit=ir|ast|pp|ptx|cubin|c   what to print (default: ir); cubin runs ptxas\n"
    "                        ($TRITONC_PTXAS, else ptxas on PATH or in\n"
    "                        /usr/local/cuda/bin) on the PTX; c (with -o NAME.c)\n"
    "                        writes NAME.c and NAME.h: the cubin and a typed\n"
    "                        launcher NAME(stream, grid, args...) that needs only\n"
    "                        libcuda\n"
    "  --arch=sm_90a|sm_80   the GPU target of ptx/cubin (default: sm_90a)\n"
    "  --num-warps=N         warps per program: 1, 2, 4, 8 or 16 (default: 4); a list\n"
    "                        [4,8] is tuned like a -D list (not a macro)\n"
    "  --num-stages=N        software-pipelining depth of loops feeding a dot: 1 to 8\n"
    "                        (default: 3; 1 turns pipelining off; sm_90a lowers it to\n"
    "                        what the shared operand rings hold); a list [3,4] is\n"
    "                        tuned like a -D list (not a macro)\n"
    "  --register-stages=N   pipelining depth of the dot operand loads that cannot be\n"
    "                        copied asynchronously and stay in registers: 1 to 8\n"
    "                        (default: 2, one iteration ahead; >= num_stages: as far\n"
    "                        as the copies)\n"
    "  --allow-tf32          let f32 dots use tensor cores on tf32-rounded inputs\n"
    "  --no-tma              sm_90a: fill the shared rings of wgmma operands with\n"
    "                        cp.async instead of bulk tensor copies (TMA)\n"
    "  --no-tma-store        sm_90a: write tiles with st.global instead of bulk\n"
    "                        tensor stores (TMA)\n"
    "  --warp-specialize     sm_90a with TMA: a producer warpgroup issues the bulk\n"
    "                        tensor copies, the --num-warps consumer warps run the\n"
    "                        wgmmas (kernels the pass declines compile as without;\n"
    "                        --remarks says why)\n"
    "  --max-shared=BYTES    shared memory one program may use (default: 232448 for\n"
    "                        sm_90a, 166912 for sm_80; 101376 on sm_86/sm_89 cards):\n"
    "                        sizes the operand rings and scratch\n"
    "  --specialize=LETTERS  compile as if launched with these arguments: one letter\n"
    "                        per parameter, D for a pointer or integer that is a\n"
    "                        multiple of 16, S for an integer that is a non-negative\n"
    "                        multiple of 16, U for a non-negative integer, N (or 1,\n"
    "                        F) for anything else\n"
    "  -o OUT                write the output to OUT instead of stdout\n"
    "  --passes=LIST         run these comma-separated passes instead of the default\n"
    "                        pipeline ('--passes=' runs none)\n"
    "  --print-after-all     print the IR after every pass (stderr)\n"
    "  --verify-each         verify the IR after every pass\n"
    "  --time-passes         print the time spent in each pass (stderr)\n"
    "  --time-phases         print the time spent in each phase of the compilation\n"
    "                        (preprocess, parse, irgen, passes, codegen; ptxas with\n"
    "                        --emit=cubin) and their total (stderr)\n"
    "  --print-pipeline      print the whole pipeline for the target and options (the\n"
    "                        front end, the IR passes, the back end's passes and\n"
    "                        per-function steps, in order) and exit; needs no FILE\n"
    "  --list-configs        print the configurations of the tuning lists, one per line\n"
    "  --config=N            compile configuration N of the tuning lists\n"
    "  --kernel=NAME         the kernel --specialize and --emit=ptx|cubin describe\n"
    "                        (default: the only function, or the first __global__)\n"
    "  --debug               compile print(...) and assert(...) (else they are removed)\n"
    "  --remarks[=KIND[:PASS,...]]  report, at the source line, the optimizations the\n"
    "                        compiler declined and why (KIND missed, the default),\n"
    "                        applied (passed) or both (all); PASS limits them to\n"
    "                        pipeline, dot, async-copy, tensor-copy, tensor-store,\n"
    "                        zero-trip-guard, layout-conversion. The back end's\n"
    "                        remarks come with --emit=ptx|cubin (stderr)\n";

const char *TuneUsage =
    "usage: tritonc tune FILE --grid X[,Y[,Z]] [options] ARG...\n"
    "\n"
    "Compiles every configuration of the tuning lists (-D NAME=[a,b], --num-warps=[4,8],\n"
    "--num-stages=[3,4]) for the GPU, in parallel on every core, launches each once\n"
    "on the arguments (as for `tritonc run`: a .npy file per pointer parameter, a\n"
    "literal per scalar), times it with CUDA events (median of --runs launches, each\n"
    "after an L2 flush) and prints every configuration's time and the best one.\n"
    "The grid is given per configuration: each dimension is an integer expression\n"
    "over the configuration's defines, with + - * / %, parentheses and cdiv(a, b),\n"
    "e.g. --grid 'cdiv(4096,TM),cdiv(4096,TN)'.\n"
    "\n"
    "Options:\n"
    "  -D NAME=VALUE, -I DIR, --arch, --num-warps, --num-stages, --register-stages,\n"
    "  --allow-tf32, --no-tma, --no-tma-store, --warp-specialize, --max-shared\n"
    "  as for `tritonc run --device`\n"
    "  --grid EXPR[,EXPR[,EXPR]]   the launch grid (required)\n"
    "  --runs N              timed launches per configuration (default 20)\n";

const char *RunUsage =
    "usage: tritonc run FILE --grid X[,Y[,Z]] [options] ARG...\n"
    "\n"
    "Compiles a Triton-C (or .tir Triton-IR) file and runs its kernel (--kernel NAME,\n"
    "else the only function, or the first __global__ one) on the CPU interpreter or\n"
    "the GPU. Give one ARG per kernel\n"
    "parameter, in order: a .npy file for a pointer parameter (its dtype must match\n"
    "the pointee type; bfloat16 data is passed as uint16), a literal for a scalar\n"
    "parameter. Use '--' before negative literals if needed. With --out, both\n"
    "executors write every array back after the run.\n"
    "\n"
    "Options:\n"
    "  -D NAME=VALUE, -DNAME=VALUE, -DNAME   define a macro\n"
    "  -I DIR, -IDIR         add an #include search directory\n"
    "  --config=N            use configuration N of the tuning lists\n"
    "  --kernel NAME         run the kernel NAME of a file with several kernels\n"
    "  --debug               run print(...) and assert(...) (else they are removed)\n"
    "  --grid X[,Y[,Z]]      the launch grid (required)\n"
    "  --interpret           run on the CPU interpreter (the default)\n"
    "  --backend-passes      --interpret: run the IR the GPU back end's passes leave\n"
    "                        for --arch and the back-end options below (as\n"
    "                        --print-pipeline lists them)\n"
    "  --device              run on the GPU (device 0): the arrays are copied to the\n"
    "                        device and back; compiled kernels are cached in\n"
    "                        $TRITONC_CACHE_DIR (default ~/.cache/tritonc)\n"
    "  --arch=sm_90a|sm_80   the target of --device (default: the device's)\n"
    "  --num-warps=N         warps per program of --device: 1, 2, 4, 8 or 16\n"
    "                        (default: 4)\n"
    "  --num-stages=N        software-pipelining depth of --device: 1 to 8 (default: 3)\n"
    "  --register-stages=N   --device: depth of the loads kept in registers (default: 2)\n"
    "  --allow-tf32          --device: f32 dots on tensor cores (tf32 inputs)\n"
    "  --no-tma              --device: cp.async instead of bulk tensor copies (TMA)\n"
    "  --no-tma-store        --device: st.global instead of bulk tensor stores (TMA)\n"
    "  --warp-specialize     --device: a producer warpgroup issues the bulk tensor\n"
    "                        copies (see tritonc compile --help)\n"
    "  --max-shared=BYTES    --device: shared memory per program (default: the\n"
    "                        device's)\n"
    "  --out DIR             after the run, write each pointer argument's buffer to\n"
    "                        DIR/<parameter>.npy (DIR is created if missing)\n"
    "  --passes=LIST         run these passes instead of the default pipeline\n"
    "                        ('--passes=' runs none)\n"
    "  --max-steps N         stop a program instance after N steps, one per element\n"
    "                        operation (--interpret only; default 4000000000;\n"
    "                        0: no limit)\n"
    "  --remarks[=KIND[:PASS,...]]  --device: report the optimizations the compiler\n"
    "                        declined and why (see tritonc compile --help; stderr)\n";

const char *OptUsage =
    "usage: tritonc opt FILE.tir [--passes=LIST] [options]\n"
    "\n"
    "Parses Triton-IR text (FILE may be '-' for stdin), verifies it, runs the passes\n"
    "and prints the result. Without --passes no pass runs.\n"
    "\n"
    "Options:\n"
    "  --passes=LIST         comma-separated pass names\n"
    "  -o OUT                write the output to OUT instead of stdout\n"
    "  --print-after-all     print the IR after every pass (stderr)\n"
    "  --verify-each         verify the IR after every pass\n"
    "  --time-passes         print the time spent in each pass (stderr)\n"
    "  --list-passes         print the registered passes and exit\n"
    "  --remarks[=KIND[:PASS,...]]  report the passes' optimization remarks (the\n"
    "                        pipeline pass's; see tritonc compile --help; stderr)\n";

/// The --time-phases report.
std::string phaseReport(const CompileTimings &T) {
  return "phase times (wall clock):\n" + T.format("  ");
}

/// Whether an option value is a tuning list "[...]".
bool isList(const std::string &Value) {
  size_t First = Value.find_first_not_of(" \t");
  return First != std::string::npos && Value[First] == '[';
}

/// Parses "N" or a list "[N1, N2, ...]" of numbers; nullopt when the text
/// is neither. The values are checked with the other back-end options
/// (validateBackendOptions).
std::optional<std::vector<unsigned>> parseOptionValues(const std::string &Text) {
  std::string Inner = Text;
  if (isList(Text)) {
    size_t Open = Text.find('['), Close = Text.rfind(']');
    if (Close == std::string::npos || Close < Open ||
        Text.find_first_not_of(" \t", Close + 1) != std::string::npos)
      return std::nullopt;
    Inner = Text.substr(Open + 1, Close - Open - 1);
  }
  std::vector<unsigned> Values;
  size_t Start = 0;
  while (true) {
    size_t Comma = Inner.find(',', Start);
    std::string Item =
        Inner.substr(Start, Comma == std::string::npos ? std::string::npos : Comma - Start);
    size_t B = Item.find_first_not_of(" \t"), E = Item.find_last_not_of(" \t");
    Item = B == std::string::npos ? "" : Item.substr(B, E - B + 1);
    uint64_t N = 0;
    if (!cli::parseUnsigned(Item, N) || N > std::numeric_limits<unsigned>::max())
      return std::nullopt;
    Values.push_back(unsigned(N));
    if (Comma == std::string::npos)
      break;
    Start = Comma + 1;
  }
  // A single value in brackets is still a (one-element) list.
  return Values;
}

/// The usage error of an option value that is not a number or a list.
std::string notANumber(const std::string &Flag, const std::string &Value) {
  return "invalid " + Flag + " value '" + Value + "': expected a number or a list [" +
         (Flag == "--num-warps" ? "4,8" : "3,4") + "]";
}

/// State shared by the commands: the streams and the error helpers.
class Tool {
public:
  Tool(std::istream &In, std::ostream &Out, std::ostream &Err) : In(In), Out(Out), Err(Err) {}

  int compile(const std::vector<std::string> &Args);
  int run(const std::vector<std::string> &Args);
  int opt(const std::vector<std::string> &Args);
  int tune(const std::vector<std::string> &Args);

private:
  int error(const std::string &Msg) {
    Err << "tritonc: error: " << Msg << "\n";
    return ExitFailure;
  }
  int usageError(const std::string &Command, const std::string &Msg) {
    Err << "tritonc: error: " << Msg << "\n"
        << "run 'tritonc " << Command << (Command.empty() ? "" : " ") << "--help' for usage\n";
    return ExitUsage;
  }
  /// Parses the options of a command; returns -1 when parsing succeeded and
  /// the command should go on, else an exit code (help shown or error).
  int parse(const std::string &Command, const char *Usage, const std::vector<std::string> &Args,
            std::vector<OptionSpec> Specs, ParsedArgs &P);
  /// Fills the front-end parts of CompileOptions (-D, -I, --config).
  int frontEndOptions(const std::string &Command, const ParsedArgs &P, CompileOptions &Opts);
  /// Fills the pass manager parts (--passes and the debugging flags).
  void passOptions(const ParsedArgs &P, CompileOptions &Opts);
  /// Fills CompileOptions::Remarks from --remarks.
  int remarkOptions(const std::string &Command, const ParsedArgs &P, CompileOptions &Opts);
  /// Fills the back-end options (--arch, --num-warps, ...) and checks them
  /// with Tuned (validateBackendOptions); ArchGiven tells whether --arch
  /// was on the command line.
  int backEndOptions(const std::string &Command, const ParsedArgs &P, codegen::CodeGenOptions &Back,
                     const TunedOptions &Tuned, bool &ArchGiven);
  /// Compiles FILE ("-": stdin).
  CompileResult compileInput(const std::string &File, const CompileOptions &Opts, bool IsIR);
  /// FILE as a kernel source for the GPU path ("-": the text read from stdin).
  KernelSource kernelSource(const std::string &File) {
    return File == "-" ? KernelSource::text("<stdin>", stdinText()) : KernelSource::file(File);
  }
  /// Standard input, read once (the front end and the GPU path both need it).
  /// Bounded like a source file; an input over the limit leaves the text
  /// empty and StdinError set.
  const std::string &stdinText() {
    if (!StdinText) {
      StdinText.emplace();
      if (!readStreamBounded(In, SourceManager::MaxFileSize, "standard input", *StdinText,
                             StdinError))
        StdinText->clear();
    }
    return *StdinText;
  }
  /// `compile --emit=ptx|cubin`.
  int compileForGPU(const ParsedArgs &P, const DeviceCompileOptions &Opts, bool Cubin);
  /// Targets Back at device 0 (its architecture unless --arch was given, its
  /// shared memory); -1 when there is a usable device, else the exit status.
  int fitToDevice(codegen::CodeGenOptions &Back, bool ArchGiven);
  /// `run --device` once the arguments are prepared.
  int runOnGPU(const std::string &File, DeviceCompileOptions Opts, bool ArchGiven,
               PreparedLaunch &Launch, const interp::LaunchGrid &Grid);
  /// Prints diagnostics (warnings too); returns true when there was no error.
  bool report(const CompileResult &R) {
    Err << R.formattedDiagnostics();
    return R.ok();
  }
  /// Prints the diagnostic reported last (after report() printed the
  /// others) and returns ExitFailure.
  int reportLast(CompileResult &R) {
    DiagnosticEngine &Diags = R.getDiagnostics();
    if (!Diags.diagnostics().empty())
      Err << Diags.format(Diags.diagnostics().back());
    return ExitFailure;
  }
  /// Writes Text to -o's file or to stdout.
  int emit(const ParsedArgs &P, const std::string &Text);

  std::istream &In;
  std::ostream &Out;
  std::ostream &Err;
  std::optional<std::string> StdinText;
  std::string StdinError;
};

int Tool::parse(const std::string &Command, const char *Usage, const std::vector<std::string> &Args,
                std::vector<OptionSpec> Specs, ParsedArgs &P) {
  Specs.push_back({"--help", false});
  Specs.push_back({"-h", false});
  std::string Error;
  if (!cli::parseArgs(Args, Specs, P, Error))
    return usageError(Command, Error + " for 'tritonc " + Command + "'");
  if (P.has("--help") || P.has("-h")) {
    Out << Usage;
    return ExitSuccess;
  }
  return -1;
}

int Tool::frontEndOptions(const std::string &Command, const ParsedArgs &P, CompileOptions &Opts) {
  if (auto It = P.Values.find("-D"); It != P.Values.end()) {
    for (const std::string &D : It->second) {
      std::string Name, Value, Error;
      if (!cli::parseDefine(D, Name, Value, Error))
        return usageError(Command, Error);
      Opts.Defines.emplace_back(Name, Value);
    }
  }
  // A list of warp counts (or stages) is a dimension of the tuning space;
  // its values are checked with the other back-end options (backEndOptions).
  for (auto [Flag, List] : {std::pair{"--num-warps", &Opts.Tuned.NumWarps},
                            std::pair{"--num-stages", &Opts.Tuned.NumStages}}) {
    const std::string *V = P.last(Flag);
    if (!V || !isList(*V))
      continue;
    std::optional<std::vector<unsigned>> Values = parseOptionValues(*V);
    if (!Values)
      return usageError(Command, notANumber(Flag, *V));
    *List = std::move(*Values);
  }
  if (auto It = P.Values.find("-I"); It != P.Values.end())
    Opts.IncludeDirs = It->second;
  if (const std::string *K = P.last("--kernel"))
    Opts.Kernel = *K;
  Opts.Debug = P.has("--debug");
  if (const std::string *C = P.last("--config")) {
    uint64_t N;
    if (!cli::parseUnsigned(*C, N))
      return usageError(Command, "invalid --config value '" + *C +
                                     "': expected a configuration number (0, 1, ...)");
    Opts.Config = N;
  }
  return -1;
}

void Tool::passOptions(const ParsedArgs &P, CompileOptions &Opts) {
  if (const std::string *List = P.last("--passes")) {
    Opts.UsePipelineDefault = false;
    Opts.Pipeline = *List;
  }
  Opts.Passes.PrintAfterAll = P.has("--print-after-all");
  Opts.Passes.VerifyEach = P.has("--verify-each");
  Opts.Passes.TimePasses = P.has("--time-passes");
  Opts.Passes.Log = &Err;
}

int Tool::remarkOptions(const std::string &Command, const ParsedArgs &P, CompileOptions &Opts) {
  if (const std::string *R = P.last("--remarks")) {
    std::string Error;
    std::optional<RemarkFilter> F = RemarkFilter::parse(*R, Error);
    if (!F)
      return usageError(Command, "invalid --remarks value '" + *R + "': " + Error);
    Opts.Remarks = *F;
  }
  return -1;
}

int Tool::backEndOptions(const std::string &Command, const ParsedArgs &P,
                         codegen::CodeGenOptions &Back, const TunedOptions &Tuned,
                         bool &ArchGiven) {
  ArchGiven = false;
  if (const std::string *A = P.last("--arch")) {
    if (runtime::Status S = selectTarget(*A, nullptr, Back); !S)
      return usageError(Command, "--arch: " + S.error());
    ArchGiven = true;
  }
  for (auto [Flag, Field] :
       {std::pair{"--num-warps", &Back.NumWarps}, std::pair{"--num-stages", &Back.NumStages}}) {
    const std::string *V = P.last(Flag);
    if (!V || isList(*V)) // Lists: frontEndOptions.
      continue;
    std::optional<std::vector<unsigned>> Values = parseOptionValues(*V);
    if (!Values || Values->size() != 1)
      return usageError(Command, notANumber(Flag, *V));
    *Field = Values->front();
  }
  Back.AllowTF32 = P.has("--allow-tf32");
  Back.TensorCopies = !P.has("--no-tma");
  Back.TensorStores = !P.has("--no-tma-store");
  Back.WarpSpecialize = P.has("--warp-specialize");
  if (const std::string *V = P.last("--register-stages")) {
    uint64_t Stages; // the range: validateBackendOptions
    if (!cli::parseUnsigned(*V, Stages) || Stages > std::numeric_limits<unsigned>::max())
      return usageError(Command, notANumber("--register-stages", *V));
    Back.RegisterStages = static_cast<unsigned>(Stages);
  }
  if (const std::string *M = P.last("--max-shared")) {
    uint64_t Bytes;
    // 0 would mean "the target's limit" (CodeGenOptions::MaxSharedBytes).
    if (!cli::parseUnsigned(*M, Bytes) || Bytes == 0 ||
        Bytes > std::numeric_limits<unsigned>::max())
      return usageError(Command, "invalid --max-shared value '" + *M +
                                     "': expected a positive number of bytes");
    Back.MaxSharedBytes = static_cast<unsigned>(Bytes);
  }
  // The values themselves: the check the C++ API and the Python module run.
  SourceManager SM;
  DiagnosticEngine Diags(SM);
  if (validateBackendOptions(Back, Tuned, Diags))
    return -1;
  const std::vector<Diagnostic> &Errors = Diags.diagnostics();
  for (size_t I = 0; I + 1 < Errors.size(); ++I)
    Err << "tritonc: error: " << Errors[I].Message << "\n";
  return usageError(Command, Errors.back().Message);
}

CompileResult Tool::compileInput(const std::string &File, const CompileOptions &Opts, bool IsIR) {
  if (File == "-") {
    const std::string &Text = stdinText();
    if (!StdinError.empty()) {
      CompileResult R;
      R.getDiagnostics().error(SourceRange(), StdinError);
      return R;
    }
    return IsIR ? optimizeIRSource("<stdin>", Text, Opts) : compileSource("<stdin>", Text, Opts);
  }
  return IsIR ? optimizeIRFile(File, Opts) : compileFile(File, Opts);
}

int Tool::emit(const ParsedArgs &P, const std::string &Text) {
  const std::string *OutPath = P.last("-o");
  if (!OutPath || *OutPath == "-") {
    Out << Text;
    return ExitSuccess;
  }
  // The input is never the output: writing would destroy the source.
  for (const std::string &Input : P.Positionals)
    if (Input != "-" && isSameFile(*OutPath, Input))
      return error("-o '" + *OutPath + "' would overwrite the input '" + Input + "'");
  std::string Error;
  if (!writeFileAtomically(*OutPath, Text, Error))
    return error(Error);
  return ExitSuccess;
}

int Tool::compile(const std::vector<std::string> &Args) {
  ParsedArgs P;
  if (int Rc = parse("compile", CompileUsage, Args,
                     {{"-D", true},
                      {"-I", true},
                      {"--emit", true},
                      {"-o", true},
                      {"--passes", true},
                      {"--print-after-all", false},
                      {"--verify-each", false},
                      {"--time-passes", false},
                      {"--time-phases", false},
                      {"--list-configs", false},
                      {"--config", true},
                      {"--kernel", true},
                      {"--debug", false},
                      {"--arch", true},
                      {"--num-warps", true},
                      {"--num-stages", true},
                      {"--register-stages", true},
                      {"--allow-tf32", false},
                      {"--no-tma", false},
                      {"--no-tma-store", false},
                      {"--warp-specialize", false},
                      {"--max-shared", true},
                      {"--specialize", true},
                      {"--remarks", true, true},
                      {"--print-pipeline", false}},
                     P);
      Rc >= 0)
    return Rc;
  CompileOptions Opts;
  if (int Rc = frontEndOptions("compile", P, Opts); Rc >= 0)
    return Rc;
  passOptions(P, Opts);
  if (int Rc = remarkOptions("compile", P, Opts); Rc >= 0)
    return Rc;
  DeviceCompileOptions DOpts;
  bool ArchGiven = false;
  if (int Rc = backEndOptions("compile", P, DOpts.Back, Opts.Tuned, ArchGiven); Rc >= 0)
    return Rc;
  if (const std::string *Spec = P.last("--specialize");
      Spec && Spec->find_first_not_of("DSUN1F") != std::string::npos)
    return usageError("compile", "invalid --specialize value '" + *Spec +
                                     "': expected one letter D, S, U, N, 1 or F per parameter");
  if (P.has("--print-pipeline"))
    return emit(P, describePipeline(Opts, DOpts.Back));

  if (P.Positionals.size() != 1)
    return usageError("compile", P.Positionals.empty() ? "no input file"
                                                       : "expected one input file, got " +
                                                             std::to_string(P.Positionals.size()));
  if (P.has("--list-configs")) {
    // Streamed to stdout line by line; a file gets the whole list at once
    // (written atomically). The space is bounded by MaxConfigurations.
    const std::string *OutPath = P.last("-o");
    bool ToStdout = !OutPath || *OutPath == "-";
    std::string Text, Error;
    auto Line = [&](size_t I, const Configuration &C) {
      std::string L =
          std::to_string(I) + ":" + (C.Description.empty() ? "" : " ") + C.Description + "\n";
      if (ToStdout)
        Out << L;
      else
        Text += L;
    };
    if (!forEachConfiguration(Opts.Defines, Opts.Tuned, Line, Error))
      return error(Error);
    return ToStdout ? ExitSuccess : emit(P, Text);
  }

  std::string EmitKind = P.last("--emit") ? *P.last("--emit") : "ir";
  if (EmitKind == "pp")
    Opts.Stop = StopAfter::Preprocess;
  else if (EmitKind == "ast")
    Opts.Stop = StopAfter::Parse;
  else if (EmitKind == "ptx" || EmitKind == "cubin" || EmitKind == "c") {
    if (EmitKind == "c" && !P.last("-o"))
      return usageError("compile", "--emit=c needs -o NAME.c (NAME.h is written beside it)");
    DOpts.Front = Opts;
    return compileForGPU(P, DOpts, EmitKind != "ptx");
  } else if (EmitKind != "ir")
    return usageError("compile", "invalid --emit value '" + EmitKind +
                                     "': expected ir, ast, pp, ptx, cubin or c");

  CompileResult R = compileInput(P.Positionals[0], Opts, /*IsIR=*/false);
  if (!report(R))
    return ExitFailure;
  if (P.has("--time-phases"))
    Err << phaseReport(R.timings());
  if (Opts.Stop == StopAfter::Preprocess) {
    std::string Text = R.preprocessed();
    if (!Text.empty() && Text.back() != '\n')
      Text += '\n';
    return emit(P, Text);
  }
  if (Opts.Stop == StopAfter::Parse)
    return emit(P, dumpAST(*R.ast()));
  if (!Opts.Kernel.empty() && !selectKernel(*R.module(), Opts.Kernel, R.getDiagnostics(), R.ast()))
    return reportLast(R);
  return emit(P, ir::printModule(*R.module()));
}

int Tool::compileForGPU(const ParsedArgs &P, const DeviceCompileOptions &Opts, bool Cubin) {
  // Found first: without ptxas there is no point in compiling.
  std::string Ptxas;
  if (Cubin) {
    runtime::Expected<std::string> Found = findPtxas();
    if (!Found)
      return error("--emit=" + *P.last("--emit") + " needs ptxas: " + Found.error());
    Ptxas = *Found;
  }
  const std::string *Spec = P.last("--specialize");
  if (P.Positionals[0] == "-" && (stdinText(), !StdinError.empty()))
    return error(StdinError);
  // No cache: the command is cheap and should always show its diagnostics.
  DeviceCompileResult R =
      compileForDevice(kernelSource(P.Positionals[0]), Opts, Spec ? *Spec : "", CacheConfig{});
  Err << R.Diagnostics;
  if (!R.ok())
    return ExitFailure;
  CompileTimings Timings = R.Timings;
  if (!Cubin) {
    if (P.has("--time-phases"))
      Err << phaseReport(Timings);
    return emit(P, R.PTX);
  }
  auto PtxasStart = std::chrono::steady_clock::now();
  runtime::Expected<std::string> Image = assembleWithPtxas(R.PTX, Opts.Back.Arch, Ptxas);
  Timings.Ptxas =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - PtxasStart).count();
  if (!Image)
    return error(Image.error());
  if (P.has("--time-phases"))
    Err << phaseReport(Timings);
  if (*P.last("--emit") == "c") {
    runtime::Status S = writeAotFiles(*P.last("-o"), P.Positionals[0], R, *Image, Opts.Back.Arch);
    return S ? ExitSuccess : error(S.error());
  }
  return emit(P, *Image);
}

/// Parses "X[,Y[,Z]]" with positive dimensions.
bool parseGrid(const std::string &Text, interp::LaunchGrid &Grid) {
  std::vector<uint32_t> Dims;
  size_t Start = 0;
  while (true) {
    size_t Comma = Text.find(',', Start);
    std::string Part =
        Text.substr(Start, Comma == std::string::npos ? std::string::npos : Comma - Start);
    uint64_t V;
    if (!cli::parseUnsigned(Part, V) || V == 0 || V > 0x7fffffff)
      return false;
    Dims.push_back(static_cast<uint32_t>(V));
    if (Comma == std::string::npos)
      break;
    Start = Comma + 1;
  }
  if (Dims.size() > 3)
    return false;
  Dims.resize(3, 1);
  Grid = interp::LaunchGrid{Dims[0], Dims[1], Dims[2]};
  return true;
}

int Tool::run(const std::vector<std::string> &Args) {
  ParsedArgs P;
  if (int Rc = parse("run", RunUsage, Args,
                     {{"-D", true},
                      {"-I", true},
                      {"--config", true},
                      {"--kernel", true},
                      {"--debug", false},
                      {"--grid", true},
                      {"--interpret", false},
                      {"--device", false},
                      {"--out", true},
                      {"--max-steps", true},
                      {"--passes", true},
                      {"--backend-passes", false},
                      {"--arch", true},
                      {"--num-warps", true},
                      {"--num-stages", true},
                      {"--register-stages", true},
                      {"--allow-tf32", false},
                      {"--no-tma", false},
                      {"--no-tma-store", false},
                      {"--warp-specialize", false},
                      {"--max-shared", true},
                      {"--remarks", true, true}},
                     P);
      Rc >= 0)
    return Rc;
  CompileOptions Opts;
  if (int Rc = frontEndOptions("run", P, Opts); Rc >= 0)
    return Rc;
  // --passes lets tests run a kernel with and without the optimizer and compare.
  passOptions(P, Opts);
  CompileOptions Interpreted = Opts;
  if (int Rc = remarkOptions("run", P, Opts); Rc >= 0)
    return Rc;
  DeviceCompileOptions DOpts;
  bool ArchGiven = false;
  if (int Rc = backEndOptions("run", P, DOpts.Back, Opts.Tuned, ArchGiven); Rc >= 0)
    return Rc;
  bool OnDevice = P.has("--device");
  if (OnDevice && P.has("--interpret"))
    return usageError("run", "--device and --interpret exclude each other");
  if (OnDevice && P.has("--backend-passes"))
    return usageError("run", "--backend-passes is for the interpreter (the GPU runs them anyway)");
  if (P.Positionals.empty())
    return usageError("run", "no input file");
  const std::string *GridText = P.last("--grid");
  if (!GridText)
    return usageError("run", "missing --grid X[,Y[,Z]]");
  interp::LaunchGrid Grid;
  if (!parseGrid(*GridText, Grid))
    return usageError("run", "invalid --grid value '" + *GridText +
                                 "': expected 1 to 3 positive integers separated by commas");
  interp::InterpOptions IOpts;
  IOpts.MaxStepsPerProgram = DefaultMaxSteps;
  if (const std::string *Steps = P.last("--max-steps")) {
    if (!cli::parseUnsigned(*Steps, IOpts.MaxStepsPerProgram))
      return usageError("run", "invalid --max-steps value '" + *Steps + "'");
  }

  // The remarks are the GPU compilation's (runOnGPU prints them), or the
  // back end's passes' that run here.
  bool BackendPasses = P.has("--backend-passes");
  CompileResult R =
      compileInput(P.Positionals[0], BackendPasses ? Opts : Interpreted, /*IsIR=*/false);
  // The GPU-level IR the emitter would get, for the interpreter to run.
  if (R.ok() && BackendPasses)
    runGuarded(R.getDiagnostics(),
               [&] { codegen::runBackendPassList(*R.module(), DOpts.Back, R.getDiagnostics()); });
  if (!report(R))
    return ExitFailure;
  std::string Error;
  const ir::Function *F = selectKernel(*R.module(), Opts.Kernel, R.getDiagnostics(), R.ast());
  if (!F)
    return reportLast(R);
  KernelSignature Sig = getSignature(*F, R.ast());
  std::vector<std::string> ArgTexts(P.Positionals.begin() + 1, P.Positionals.end());
  PreparedLaunch Launch;
  if (!prepareLaunch(Sig, ArgTexts, Launch, Error))
    return error(Error);
  // The whole output set is checked before the kernel runs.
  if (const std::string *Dir = P.last("--out");
      Dir && !checkLaunchOutputs(Sig, Launch, *Dir, Error))
    return error(Error);
  if (OnDevice) {
    DOpts.Front = Opts;
    if (int Rc = runOnGPU(P.Positionals[0], std::move(DOpts), ArchGiven, Launch, Grid); Rc != 0)
      return Rc;
    if (const std::string *Dir = P.last("--out")) {
      if (!writeLaunchOutputs(Sig, Launch, *Dir, Error))
        return error(Error);
    }
    return ExitSuccess;
  }

  IOpts.Sources = &R.getSourceManager();
  IOpts.PrintOut = &Out;
  interp::InterpResult Result;
  DiagnosticEngine &Diags = R.getDiagnostics();
  bool Ran = runGuarded(
      Diags, [&] { Result = interp::runKernel(*F, Grid, Launch.Args, Launch.Buffers, IOpts); });
  if (!Ran) {
    report(R);
    return ExitFailure;
  }
  if (!Result.Ok)
    return error(Result.Error);
  if (const std::string *Dir = P.last("--out")) {
    if (!writeLaunchOutputs(Sig, Launch, *Dir, Error))
      return error(Error);
  }
  return ExitSuccess;
}

int Tool::fitToDevice(codegen::CodeGenOptions &Back, bool ArchGiven) {
  runtime::Expected<runtime::CudaDriver *> D = requireCudaDriver();
  if (!D)
    return error(D.error());
  std::optional<std::string> Arch;
  if (ArchGiven)
    Arch = ptx::archName(Back.Arch);
  if (runtime::Status S = selectTarget(Arch, &(*D)->device(), Back); !S)
    return error(S.error());
  return -1;
}

int Tool::runOnGPU(const std::string &File, DeviceCompileOptions Opts, bool ArchGiven,
                   PreparedLaunch &Launch, const interp::LaunchGrid &Grid) {
  if (int Rc = fitToDevice(Opts.Back, ArchGiven); Rc >= 0)
    return Rc;
  runtime::Expected<std::unique_ptr<JitKernel>> K =
      JitKernel::create(kernelSource(File), std::move(Opts), defaultCacheConfig());
  if (!K) {
    Err << K.error() << "\n";
    return ExitFailure;
  }
  Err << (*K)->generic().Remarks;
  runtime::Status S = runPreparedOnDevice(**K, Launch, {Grid.X, Grid.Y, Grid.Z});
  if (!S)
    return error(S.error());
  return ExitSuccess;
}

int Tool::tune(const std::vector<std::string> &Args) {
  ParsedArgs P;
  std::vector<OptionSpec> Specs = {{"-D", true}, {"-I", true}, {"--grid", true}, {"--runs", true}};
  // The back end's options, as `run --device` takes them.
  for (const char *Flag : {"--allow-tf32", "--no-tma", "--no-tma-store", "--warp-specialize"})
    Specs.push_back({Flag, false});
  for (const char *Option :
       {"--arch", "--num-warps", "--num-stages", "--register-stages", "--max-shared"})
    Specs.push_back({Option, true});
  if (int Rc = parse("tune", TuneUsage, Args, std::move(Specs), P); Rc >= 0)
    return Rc;
  DeviceCompileOptions DOpts;
  if (int Rc = frontEndOptions("tune", P, DOpts.Front); Rc >= 0)
    return Rc;
  bool ArchGiven = false;
  if (int Rc = backEndOptions("tune", P, DOpts.Back, DOpts.Front.Tuned, ArchGiven); Rc >= 0)
    return Rc;
  const std::string *GridText = P.last("--grid");
  if (P.Positionals.empty())
    return usageError("tune", "no input file");
  if (!GridText)
    return usageError("tune", "missing --grid X[,Y[,Z]]");
  TuneOptions TOpts;
  if (const std::string *Runs = P.last("--runs")) {
    uint64_t N = 0;
    if (!cli::parseUnsigned(*Runs, N) || N == 0 || N > 100000)
      return usageError("tune", "invalid --runs value '" + *Runs + "': expected 1 to 100000");
    TOpts.Runs = unsigned(N);
  }
  // The parameters from the first configuration's front end, to read the arguments.
  CompileOptions First = DOpts.Front;
  First.Config = 0;
  CompileResult R = compileInput(P.Positionals[0], First, /*IsIR=*/false);
  if (!report(R))
    return ExitFailure;
  std::string Error;
  const ir::Function *F = selectKernel(*R.module(), First.Kernel, R.getDiagnostics(), R.ast());
  if (!F)
    return reportLast(R);
  PreparedLaunch Launch;
  std::vector<std::string> ArgTexts(P.Positionals.begin() + 1, P.Positionals.end());
  if (!prepareLaunch(getSignature(*F, R.ast()), ArgTexts, Launch, Error))
    return error(Error);
  if (int Rc = fitToDevice(DOpts.Back, ArchGiven); Rc >= 0)
    return Rc;
  runtime::Expected<std::vector<TuneResult>> Results =
      tuneOnDevice(kernelSource(P.Positionals[0]), DOpts, Launch, *GridText, TOpts, Err);
  if (!Results)
    return error(Results.error());
  const TuneResult *Best = nullptr;
  for (const TuneResult &T : *Results) {
    Out << "configuration " << T.Config << (T.Description.empty() ? "" : ": " + T.Description);
    if (T.Error.empty())
      Out << ": " << T.Milliseconds << " ms\n";
    else
      Out << ": skipped: " << T.Error.substr(0, T.Error.find('\n')) << "\n";
    if (T.Error.empty() && (!Best || T.Milliseconds < Best->Milliseconds))
      Best = &T;
  }
  Out << "best: configuration " << Best->Config
      << (Best->Description.empty() ? "" : ": " + Best->Description) << " (" << Best->Milliseconds
      << " ms)\n";
  return ExitSuccess;
}

int Tool::opt(const std::vector<std::string> &Args) {
  ParsedArgs P;
  if (int Rc = parse("opt", OptUsage, Args,
                     {{"--passes", true},
                      {"-o", true},
                      {"--print-after-all", false},
                      {"--verify-each", false},
                      {"--time-passes", false},
                      {"--list-passes", false},
                      {"--remarks", true, true}},
                     P);
      Rc >= 0)
    return Rc;
  if (P.has("--list-passes")) {
    std::string Text;
    for (const auto &[Name, Description] : transform::registeredPasses())
      Text += Name + std::string(Name.size() < 12 ? 12 - Name.size() : 1, ' ') + Description + "\n";
    Out << Text;
    return ExitSuccess;
  }
  CompileOptions Opts;
  Opts.UsePipelineDefault = false;
  passOptions(P, Opts);
  if (int Rc = remarkOptions("opt", P, Opts); Rc >= 0)
    return Rc;
  if (P.Positionals.size() != 1)
    return usageError("opt", P.Positionals.empty() ? "no input file"
                                                   : "expected one input file, got " +
                                                         std::to_string(P.Positionals.size()));
  CompileResult R = compileInput(P.Positionals[0], Opts, /*IsIR=*/true);
  if (!report(R))
    return ExitFailure;
  return emit(P, ir::printModule(*R.module()));
}

} // namespace

int runTritonc(const std::vector<std::string> &Args, std::istream &In, std::ostream &Out,
               std::ostream &Err) {
  try {
    if (Args.empty()) {
      Err << generalUsage();
      return ExitUsage;
    }
    const std::string &Command = Args[0];
    std::vector<std::string> Rest(Args.begin() + 1, Args.end());
    Tool T(In, Out, Err);
    if (Command == "--help" || Command == "-h" || Command == "help") {
      Out << generalUsage();
      return ExitSuccess;
    }
    if (Command == "--version") {
      Out << "tritonc version " << TRITONC_VERSION << "\n";
      return ExitSuccess;
    }
    if (Command == "compile")
      return T.compile(Rest);
    if (Command == "run")
      return T.run(Rest);
    if (Command == "opt")
      return T.opt(Rest);
    if (Command == "tune")
      return T.tune(Rest);
    if (Command == "cache")
      return runCacheCommand(Rest, Out, Err);
    Err << "tritonc: error: "
        << (Command.size() > 1 && Command[0] == '-' ? "unknown option '" : "unknown command '")
        << Command << "'\n"
        << generalUsage();
    return ExitUsage;
  } catch (const std::bad_alloc &) {
    // A resource limit of the machine, not a compiler bug.
    Err << "tritonc: error: out of memory (the input needs more memory than this machine "
           "provides)\n";
    return ExitFailure;
  } catch (const std::exception &E) {
    // The library turns compiler failures into diagnostics; this is the last
    // line of defence for anything in the tool itself.
    Err << "tritonc: error: internal compiler error: " << E.what()
        << " (please report this bug with the input that triggered it)\n";
    return ExitFailure;
  }
}

} // namespace tritonc::driver
