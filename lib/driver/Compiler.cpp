//===- Compiler.cpp - Public entry points: Triton-C to Triton-IR ----------===//

#include "tritonc/driver/Compiler.h"

#include "tritonc/ir/IRParser.h"
#include "tritonc/ir/Verifier.h"
#include "tritonc/lang/IRGen.h"
#include "tritonc/lang/Parser.h"

#include <chrono>
#include <cstdio>
#include <new>

namespace tritonc::driver {

CompileResult::CompileResult()
    : SM(std::make_unique<SourceManager>()), Diags(std::make_unique<DiagnosticEngine>(*SM)) {}
CompileResult::CompileResult(CompileResult &&) noexcept = default;
CompileResult &CompileResult::operator=(CompileResult &&) noexcept = default;
CompileResult::~CompileResult() = default;

bool CompileResult::ok() const { return Diags && !Diags->hasErrors(); }

const std::vector<Diagnostic> &CompileResult::diagnostics() const {
  static const std::vector<Diagnostic> None;
  return Diags ? Diags->diagnostics() : None;
}

std::string CompileResult::formattedDiagnostics() const { return Diags ? Diags->formatAll() : ""; }

std::vector<std::pair<std::string, double>> CompileTimings::phases() const {
  return {{"preprocess", Preprocess}, {"parse", Parse}, {"irgen", IRGen}, {"passes", Passes},
          {"codegen", CodeGen},       {"cache", Cache}, {"load", Load},   {"ptxas", Ptxas},
          {"total", total()}};
}

double CompileTimings::total() const {
  return Preprocess + Parse + IRGen + Passes + CodeGen + Cache + Load + Ptxas;
}

std::string CompileTimings::format(const std::string &Indent) const {
  std::string Out;
  for (const auto &[Name, Seconds] : phases()) {
    // The front-end phases always ran; the others only when they were asked for.
    bool FrontEnd = Name == "preprocess" || Name == "parse" || Name == "irgen" || Name == "passes";
    if (!FrontEnd && Name != "total" && Seconds == 0)
      continue;
    char Line[64];
    std::snprintf(Line, sizeof(Line), "%-12s%9.3f ms\n", Name.c_str(), Seconds * 1e3);
    Out += Indent + Line;
  }
  return Out;
}

bool runGuarded(DiagnosticEngine &Diags, const std::function<void()> &Body) {
  try {
    Body();
    return true;
  } catch (const InternalError &E) {
    Diags.internal(E.what());
  } catch (const std::bad_alloc &) {
    // Running out of memory is a property of the input and the machine,
    // not a compiler bug.
    Diags.error(SourceRange(), "out of memory");
  } catch (const std::exception &E) {
    Diags.internal(std::string("unexpected exception: ") + E.what());
  } catch (...) {
    Diags.internal("unexpected exception of unknown type");
  }
  return false;
}

namespace {

/// Adds the time from its construction to its destruction to a phase.
class PhaseTimer {
public:
  explicit PhaseTimer(double &Phase) : Phase(Phase), Start(std::chrono::steady_clock::now()) {}
  ~PhaseTimer() {
    Phase += std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  }
  PhaseTimer(const PhaseTimer &) = delete;
  PhaseTimer &operator=(const PhaseTimer &) = delete;

private:
  double &Phase;
  std::chrono::steady_clock::time_point Start;
};

std::string joinLines(const std::vector<std::string> &Lines) {
  std::string S;
  for (const std::string &L : Lines)
    S += "\n  " + L;
  return S;
}

} // namespace

/// Runs the stages of a compilation on a CompileResult it fills in.
class CompilerSession {
public:
  CompilerSession(CompileResult &R, const CompileOptions &Opts)
      : R(R), Diags(*R.Diags), Opts(Opts) {
    Diags.setErrorLimit(Opts.ErrorLimit);
    Diags.setRemarkFilter(Opts.Remarks);
  }

  void compileTritonC(FileId Main) {
    if (!runGuarded(Diags, [&] { compileStages(Main); }) || !R.ok())
      R.Module.reset();
  }

  /// A `.tir` file given where Triton-C is expected: the same stages after
  /// IR generation. Preprocessing keeps the text (so that the JIT's cache
  /// key and continueCompilation work alike for both inputs); there is no
  /// syntax tree to stop at.
  void compileTritonIR(FileId Main) {
    R.IRInput = Main;
    if (Opts.Stop == StopAfter::Preprocess) {
      R.Preprocessed = std::string(R.SM->getText(Main));
      R.Resumable = true;
      return;
    }
    if (Opts.Stop == StopAfter::Parse) {
      Diags.error(SourceRange(), "'" + std::string(R.SM->getName(Main)) +
                                     "' is Triton-IR: it has no syntax tree to print");
      return;
    }
    optimizeIR(Main);
  }

  void continueTritonC() {
    if (!R.Resumable) {
      Diags.internal("continueCompilation needs a compilation that stopped after preprocessing");
      return;
    }
    if (R.IRInput) {
      R.Resumable = false;
      R.Preprocessed.clear();
      compileTritonIR(*R.IRInput);
      return;
    }
    if (!runGuarded(Diags, [&] { continueStages(); }) || !R.ok())
      R.Module.reset();
  }

  void optimizeIR(FileId Main) {
    if (!runGuarded(Diags, [&] { optimizeStages(Main); }) || !R.ok())
      R.Module.reset();
  }

private:
  /// Builds the pass manager first so that a misspelled pass name is
  /// reported before any work is done.
  bool buildPassManager() {
    PM = std::make_unique<transform::PassManager>(Opts.Passes);
    PM->getAnalysisManager().setDiagnostics(&Diags);
    PipelineText = Opts.UsePipelineDefault ? transform::defaultPipeline() : Opts.Pipeline;
    std::string Error;
    if (!PM->addPipeline(PipelineText, Error)) {
      Diags.error(SourceRange(), Error);
      return false;
    }
    for (const auto &Factory : Opts.ExtraPasses) {
      std::unique_ptr<transform::Pass> P = Factory ? Factory() : nullptr;
      if (!P)
        reportInternalError("an extra pass factory returned no pass");
      PM->addPass(std::move(P));
    }
    return true;
  }

  /// Verifies the module; failures are internal errors because our own
  /// code produced the module.
  bool verifyProduced(const std::string &Producer) {
    std::vector<std::string> Messages;
    if (ir::verifyModule(*R.Module, Messages))
      return true;
    Diags.internal(Producer + " produced invalid IR:" + joinLines(Messages));
    return false;
  }

  void runPasses() {
    if (!PM->run(*R.Module, Diags, "pass pipeline '" + PipelineText + "'"))
      return;
    if (PM->size() != 0)
      verifyProduced("the pass pipeline '" + PipelineText + "'");
  }

  void compileStages(FileId Main) {
    if (Opts.Stop == StopAfter::IR && !buildPassManager())
      return;
    std::vector<Token> Tokens;
    {
      PhaseTimer Timer(R.Timings.Preprocess);
      if (!preprocessStage(Main, Tokens))
        return;
    }
    if (Opts.Stop == StopAfter::Preprocess) {
      R.Tokens = std::move(Tokens);
      R.Resumable = true;
      return;
    }
    laterStages(Tokens);
  }

  /// The stages after preprocessing, on the tokens R kept.
  void continueStages() {
    if (Opts.Stop == StopAfter::IR && !buildPassManager())
      return;
    std::vector<Token> Tokens = std::move(R.Tokens);
    R.Tokens.clear();
    R.Resumable = false;
    laterStages(Tokens);
  }

  /// Selects the configuration of the tuning space and preprocesses the
  /// main file with it; false when that reported errors.
  bool preprocessStage(FileId Main, std::vector<Token> &Tokens) {
    ConfigurationSpace Space;
    if (!Space.init(Opts.Defines, Opts.Tuned, Diags))
      return false;
    size_t Index = Opts.Config.value_or(0);
    if (Opts.Config && *Opts.Config >= Space.size()) {
      Diags.error(SourceRange(),
                  "configuration " + std::to_string(*Opts.Config) +
                      " does not exist: the tuning space has " + std::to_string(Space.size()) +
                      " configuration" +
                      (Space.size() == 1 ? " (number 0)"
                                         : "s (0 to " + std::to_string(Space.size() - 1) + ")"));
      return false;
    }
    if (!Opts.Config && Space.size() > 1) {
      bool One = Space.numLists() == 1;
      Diags.error(SourceRange(), std::string(One ? "the tuning list " : "the tuning lists ") +
                                     Space.listNames() + (One ? " defines " : " define ") +
                                     std::to_string(Space.size()) +
                                     " configurations; select one with --config=N "
                                     "(--list-configs lists them)");
      return false;
    }

    PreprocessorOptions PPOpts{Space.configuration(Index).Defines, Opts.IncludeDirs};
    Tokens = preprocess(*R.SM, Main, PPOpts, Diags);
    if (Diags.hasErrors())
      return false;
    R.Preprocessed = tokensToString(Tokens);
    return true;
  }

  /// Parsing, IR generation and the passes, as far as Opts.Stop asks.
  void laterStages(const std::vector<Token> &Tokens) {
    {
      PhaseTimer Timer(R.Timings.Parse);
      R.AST = parseTranslationUnit(Tokens, Diags);
    }
    if (Diags.hasErrors() || Opts.Stop == StopAfter::Parse)
      return;

    {
      PhaseTimer Timer(R.Timings.IRGen);
      R.Module = generateIR(*R.AST, Diags, Opts.Debug);
      if (Diags.hasErrors())
        return;
      if (!R.Module)
        reportInternalError("IR generation failed without reporting an error");
      if (!verifyProduced("IR generation"))
        return;
    }
    PhaseTimer Timer(R.Timings.Passes);
    runPasses();
  }

  void optimizeStages(FileId Main) {
    if (!buildPassManager())
      return;
    {
      PhaseTimer Timer(R.Timings.Parse);
      R.Module = ir::parseIR(*R.SM, Main, Diags);
    }
    if (Diags.hasErrors())
      return;
    if (!R.Module)
      reportInternalError("the IR parser failed without reporting an error");
    // Here the module is the user's input, so a broken one is their error.
    std::vector<ir::VerifierMessage> Messages;
    if (!ir::verifyModule(*R.Module, Messages)) {
      for (const ir::VerifierMessage &M : Messages)
        Diags.error(SourceRange(M.Loc), "invalid IR: " + M.Text);
      return;
    }
    PhaseTimer Timer(R.Timings.Passes);
    runPasses();
  }

  CompileResult &R;
  DiagnosticEngine &Diags;
  const CompileOptions &Opts;
  std::unique_ptr<transform::PassManager> PM;
  std::string PipelineText;
};

namespace {

/// Registers a file, reporting "cannot open" when it cannot be read.
std::optional<FileId> openInput(CompileResult &R, const std::string &Path) {
  std::string Why;
  std::optional<FileId> Id = R.getSourceManager().addFile(Path, &Why);
  if (!Id)
    R.getDiagnostics().error(SourceRange(), "cannot open '" + Path + "': " + Why);
  return Id;
}

} // namespace

bool isTritonIRName(std::string_view Name) {
  return Name.size() > 4 && Name.substr(Name.size() - 4) == ".tir";
}

CompileResult compileSource(const std::string &Name, const std::string &Text,
                            const CompileOptions &Opts) {
  CompileResult R;
  FileId Id = R.getSourceManager().addBuffer(Name, Text);
  if (isTritonIRName(Name))
    CompilerSession(R, Opts).compileTritonIR(Id);
  else
    CompilerSession(R, Opts).compileTritonC(Id);
  return R;
}

CompileResult compileFile(const std::string &Path, const CompileOptions &Opts) {
  CompileResult R;
  if (std::optional<FileId> Id = openInput(R, Path)) {
    if (isTritonIRName(Path))
      CompilerSession(R, Opts).compileTritonIR(*Id);
    else
      CompilerSession(R, Opts).compileTritonC(*Id);
  }
  return R;
}

CompileResult continueCompilation(CompileResult Pre, const CompileOptions &Opts) {
  if (Pre.ok() && Opts.Stop != StopAfter::Preprocess)
    CompilerSession(Pre, Opts).continueTritonC();
  return Pre;
}

CompileResult optimizeIRSource(const std::string &Name, const std::string &Text,
                               const CompileOptions &Opts) {
  CompileResult R;
  FileId Id = R.getSourceManager().addBuffer(Name, Text);
  CompilerSession(R, Opts).optimizeIR(Id);
  return R;
}

CompileResult optimizeIRFile(const std::string &Path, const CompileOptions &Opts) {
  CompileResult R;
  if (std::optional<FileId> Id = openInput(R, Path))
    CompilerSession(R, Opts).optimizeIR(*Id);
  return R;
}

} // namespace tritonc::driver
