//===- Compiler.h - Public entry points: Triton-C to Triton-IR --*- C++ -*-===//
//
// The C++ API that programs embedding tritonc call. A compilation runs the
// stages
//
//   SourceManager -> preprocess -> parse -> generateIR -> verify
//                 -> passes -> verify
//
// and stops after the first stage that reports errors. Whatever happens, the
// result is a value: user mistakes come back as diagnostics, and internal
// compiler errors (an InternalError or any other exception thrown by a
// stage) are caught here and turned into an internal diagnostic that asks for
// a bug report. Nothing in this library exits or aborts the process.
//
// Defines may contain tuning lists (-DTM=[32,64]) and CompileOptions::Tuned
// lists of back-end options; their cross product is a configuration space
// (Configurations.h). A compilation builds one configuration, chosen with
// CompileOptions::Config; listConfigurations enumerates them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/driver/Configurations.h"
#include "tritonc/ir/IR.h"
#include "tritonc/lang/AST.h"
#include "tritonc/lang/Preprocessor.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/PassManager.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tritonc::driver {

/// How far a compilation goes.
enum class StopAfter {
  Preprocess, ///< Only preprocess (`--emit=pp`); see CompileResult::preprocessed().
  Parse,      ///< Preprocess and parse (`--emit=ast`); see CompileResult::ast().
  IR,         ///< The whole pipeline, up to optimized and verified IR.
};

/// Wall-clock seconds spent in each phase of a compilation. The front-end
/// phases are filled by every compilation (a few clock reads, nothing more);
/// the device phases by compileForDevice and JitKernel; a phase that did not
/// run stays 0.
struct CompileTimings {
  double Preprocess = 0; ///< Tuning space, preprocessing.
  double Parse = 0;      ///< Parsing to the syntax tree.
  double IRGen = 0;      ///< Semantic checks and IR generation, with verification.
  double Passes = 0;     ///< The pass pipeline, with verification.
  double CodeGen = 0;    ///< Specialization and codegen::generatePTX.
  double Cache = 0;      ///< Cache key, lookup and store (compileForDevice).
  double Load = 0;       ///< Module load: the driver's PTX -> SASS (JitKernel).
  double Ptxas = 0;      ///< An external ptxas run (`tritonc compile --emit=cubin`).

  /// The sum of all phases.
  double total() const;
  /// The phases and their sum as "name ms" lines, for example
  /// "  preprocess    0.412 ms"; phases that did not run are left out
  /// except the front end's. Each line starts with Indent.
  std::string format(const std::string &Indent = "  ") const;
  /// (name, seconds) of every phase, the total last; names as in format().
  std::vector<std::pair<std::string, double>> phases() const;
};

/// Options of one compilation.
struct CompileOptions {
  /// -D definitions in command-line order. A bracketed value is a tuning list.
  DefineList Defines;
  /// Back-end options tuned like -D lists (--num-warps=[4,8]): more
  /// dimensions of the tuning space, which the preprocessor never sees;
  /// compileForDevice compiles the selected configuration's values.
  TunedOptions Tuned;
  /// -I directories searched by #include after the including file's folder.
  std::vector<std::string> IncludeDirs;
  /// Comma-separated pass names; used only when UsePipelineDefault is false.
  /// An empty string then means "run no passes".
  std::string Pipeline;
  /// Run transform::defaultPipeline() instead of Pipeline.
  bool UsePipelineDefault = true;
  /// Pass manager switches (--print-after-all, --verify-each, --time-passes).
  transform::PassOptions Passes;
  /// Which configuration of the tuning space to build. Required when the
  /// space has more than one configuration; must be 0 (or unset) otherwise.
  std::optional<size_t> Config;
  /// The kernel to launch (`--kernel`, `kernel=`); empty: the only
  /// function, else the first `__global__` one (driver::selectKernel).
  std::string Kernel;
  /// Compile `print` and `assert` (`--debug`, `debug=True`); without it they
  /// generate no code.
  bool Debug = false;
  StopAfter Stop = StopAfter::IR;
  /// Errors recorded before the diagnostic engine stops recording.
  unsigned ErrorLimit = 20;
  /// Optimization remarks to record with the diagnostics (`--remarks`):
  /// the passes' and, in compileForDevice, the back end's. None by default.
  RemarkFilter Remarks;
  /// Passes appended after the pipeline (custom passes outside the registry,
  /// and tests); each factory is called once per compilation.
  std::vector<std::function<std::unique_ptr<transform::Pass>()>> ExtraPasses;
};

/// The outcome of a compilation. Owns everything the diagnostics and the
/// module refer to (source buffers, AST, IR), so it can be moved around and
/// inspected after the call returns.
class CompileResult {
public:
  CompileResult();
  CompileResult(CompileResult &&) noexcept;
  CompileResult &operator=(CompileResult &&) noexcept;
  ~CompileResult();

  /// True when no error (or internal error) was reported.
  bool ok() const;
  /// The compiled module; null unless ok() and the compilation ran to StopAfter::IR.
  ir::Module *module() { return Module.get(); }
  const ir::Module *module() const { return Module.get(); }
  /// Takes the module out of the result (the result keeps its diagnostics).
  std::unique_ptr<ir::Module> takeModule() { return std::move(Module); }
  /// The syntax tree, when parsing succeeded (kept for parameter spellings).
  const ast::TranslationUnit *ast() const { return AST.get(); }
  /// The preprocessed text (tokensToString) once preprocessing ran.
  const std::string &preprocessed() const { return Preprocessed; }
  /// Time spent in the phases that ran (front end and passes only).
  const CompileTimings &timings() const { return Timings; }

  /// Every diagnostic in the order reported (warnings included).
  const std::vector<Diagnostic> &diagnostics() const;
  /// All diagnostics rendered as "file:line:col: error: ..." with source
  /// lines and carets (DiagnosticEngine::formatAll).
  std::string formattedDiagnostics() const;

  /// The source manager of this compilation (for locations in the module).
  SourceManager &getSourceManager() { return *SM; }
  /// The diagnostic engine (to report further problems about this module).
  DiagnosticEngine &getDiagnostics() { return *Diags; }

private:
  friend class CompilerSession;
  std::unique_ptr<SourceManager> SM;
  std::unique_ptr<DiagnosticEngine> Diags;
  std::unique_ptr<ast::TranslationUnit> AST;
  std::unique_ptr<ir::Module> Module;
  std::string Preprocessed;
  /// The preprocessed tokens, kept by a StopAfter::Preprocess compilation so
  /// that continueCompilation can go on without preprocessing again.
  std::vector<Token> Tokens;
  bool Resumable = false;
  /// The input file when it is Triton-IR text (a `.tir` name).
  std::optional<FileId> IRInput;
  CompileTimings Timings;
};

/// Compiles a Triton-C file. A file that cannot be read is an error
/// diagnostic "cannot open 'PATH'". A path ending in `.tir` is Triton-IR
/// text instead: parsed, verified (a broken module is the user's error)
/// and run through the same passes; Defines, IncludeDirs and Config do not
/// apply to it, and StopAfter::Parse is an error (no syntax tree).
CompileResult compileFile(const std::string &Path, const CompileOptions &Opts);

/// Whether a file or buffer name says Triton-IR text (ends in `.tir`).
bool isTritonIRName(std::string_view Name);

/// Compiles Triton-C text registered under a display name (used in
/// diagnostics and as the folder for relative #include); a name ending in
/// `.tir` makes it Triton-IR text, as for compileFile.
CompileResult compileSource(const std::string &Name, const std::string &Text,
                            const CompileOptions &Opts);

/// Finishes a Triton-C compilation that stopped after preprocessing (made
/// with StopAfter::Preprocess, without errors): parses, generates IR and
/// runs the passes as Opts asks, without preprocessing again, and returns
/// the result (sources, diagnostics and timings carry over). Opts should be
/// the options of the first call with another Stop; Defines, IncludeDirs
/// and Config are not looked at again. Pre with errors comes back as it is.
CompileResult continueCompilation(CompileResult Pre, const CompileOptions &Opts);

/// Parses Triton-IR text (.tir), verifies it (a broken module is the user's
/// error here), runs the pipeline of Opts and verifies the result. Defines,
/// IncludeDirs, Config and Stop are ignored.
CompileResult optimizeIRSource(const std::string &Name, const std::string &Text,
                               const CompileOptions &Opts);
/// As optimizeIRSource, reading the text from a file.
CompileResult optimizeIRFile(const std::string &Path, const CompileOptions &Opts);

/// Runs Body and converts an InternalError or any other exception escaping
/// it into DiagnosticEngine::internal. Returns false when one was caught.
/// Every public entry point wraps its stages with this.
bool runGuarded(DiagnosticEngine &Diags, const std::function<void()> &Body);

} // namespace tritonc::driver
