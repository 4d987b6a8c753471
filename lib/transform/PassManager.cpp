//===- PassManager.cpp - Pass registry and pipeline driver ----------------===//
#include "tritonc/transform/PassManager.h"

#include "tritonc/ir/Printer.h"
#include "tritonc/ir/Verifier.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/PassOptions.h"
#include "tritonc/transform/Passes.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace tritonc::transform {

Pass::~Pass() = default;

//===----------------------------------------------------------------------===//
// Registry
//===----------------------------------------------------------------------===//

namespace {
struct PassInfo {
  const char *Name;
  std::unique_ptr<Pass> (*Create)();
  const char *Description;
};

const PassInfo Registry[] = {
#define PASS(Name, CreateFn, Description) {Name, &CreateFn, Description},
#include "tritonc/transform/Passes.def"
};

std::string knownPassNames() {
  std::string S;
  for (const PassInfo &P : Registry) {
    if (!S.empty())
      S += ", ";
    S += P.Name;
  }
  return S;
}
} // namespace

std::unique_ptr<Pass> createPassByName(const std::string &Name) {
  for (const PassInfo &P : Registry)
    if (Name == P.Name)
      return P.Create();
  return nullptr;
}

std::vector<std::pair<std::string, std::string>> registeredPasses() {
  std::vector<std::pair<std::string, std::string>> Result;
  for (const PassInfo &P : Registry)
    Result.emplace_back(P.Name, P.Description);
  return Result;
}

std::string defaultPipeline() {
  // Why this order:
  //  - peephole first: it rewrites block-level patterns (dot accumulation,
  //    trans/reshape chains) that IRGen produces, exposing splats and
  //    constants to the passes that follow;
  //  - constfold then folds constants and resolves constant branches, which
  //    makes some blocks unreachable and some values identical;
  //  - cse merges identical values (many splats/ranges from IRGen), so that
  //    licm sees each invariant computation once;
  //  - licm hoists the loop-invariant address arithmetic and splats out of the
  //    loops (creating preheaders as needed);
  //  - cse again: hoisted values now sit in preheaders, where they duplicate
  //    values computed before the loop and dominate the code after it;
  //  - dce last removes everything the previous passes left unused, including
  //    the blocks that constant branches made unreachable.
  return "peephole,"
         "constfold,"
         "cse,"
         "licm,"
         "cse,"
         "dce";
}

//===----------------------------------------------------------------------===//
// PassManager
//===----------------------------------------------------------------------===//

PassManager::PassManager(PassOptions O) : Opts(O) { AM.setLog(Opts.Log); }
PassManager::~PassManager() = default;

bool PassManager::addPipeline(const std::string &CommaList, std::string &Error) {
  if (CommaList.empty())
    return true;
  std::vector<std::unique_ptr<Pass>> New;
  size_t Start = 0;
  while (true) {
    // The next element ends at a comma outside braces: `name{a=1,b},next`.
    size_t End = Start;
    while (End < CommaList.size() && CommaList[End] != ',' && CommaList[End] != '{')
      ++End;
    std::string Name = CommaList.substr(Start, End - Start);
    std::unique_ptr<Pass> P;
    if (End < CommaList.size() && CommaList[End] == '{') {
      size_t Close = CommaList.find('}', End);
      if (Close == std::string::npos) {
        Error = "unclosed '{' after pass '" + Name + "' in pipeline '" + CommaList + "'";
        return false;
      }
      PassOptionList Options;
      if (!parsePassOptions(CommaList.substr(End + 1, Close - End - 1), Options, Error) ||
          !(P = createPassWithOptions(Name, Options, Error))) {
        if (!createPassByName(Name))
          Error += "; known passes: " + knownPassNames();
        return false;
      }
      End = Close + 1;
      if (End < CommaList.size() && CommaList[End] != ',') {
        Error =
            "expected ',' after the options of pass '" + Name + "' in pipeline '" + CommaList + "'";
        return false;
      }
    } else if (!(P = createPassByName(Name))) {
      Error = (Name.empty() ? std::string("empty pass name in pipeline '") + CommaList + "'"
                            : "unknown pass '" + Name + "'") +
              "; known passes: " + knownPassNames();
      return false;
    }
    New.push_back(std::move(P));
    if (End >= CommaList.size())
      break;
    Start = End + 1;
  }
  for (auto &P : New)
    Passes.push_back(std::move(P));
  return true;
}

void PassManager::addPass(std::unique_ptr<Pass> P) { Passes.push_back(std::move(P)); }

bool PassManager::run(ir::Module &M, std::string &Error) {
  using Clock = std::chrono::steady_clock;
  Timings.clear();
  // Functions of an earlier run may have been freed and their addresses
  // reused: never trust analyses across runs.
  AM.clear();
  InputError.reset();
  bool Ok = true;
  for (auto &P : Passes) {
    auto Begin = Clock::now();
    try {
      for (auto &F : M.functions()) {
        if (F->blocks().empty())
          continue;
        if (P->run(*F, AM))
          AM.invalidate(*F);
      }
    } catch (const InternalError &E) {
      Error = std::string("internal error in pass '") + P->name() + "': " + E.what();
      Ok = false;
    } catch (const PassInputError &E) {
      Error = E.Message;
      InputError = E;
      Ok = false;
    }
    std::chrono::duration<double> Elapsed = Clock::now() - Begin;
    auto It =
        std::find_if(Timings.begin(), Timings.end(), [&](auto &T) { return T.first == P->name(); });
    if (It == Timings.end())
      Timings.emplace_back(P->name(), Elapsed);
    else
      It->second += Elapsed;
    if (!Ok)
      break;

    if (Opts.PrintAfterAll)
      *Opts.Log << "; *** IR after " << P->name() << " ***\n" << ir::printModule(M);
    if (Opts.VerifyEach) {
      std::vector<std::string> Errors;
      if (!ir::verifyModule(M, Errors)) {
        Error = std::string("broken IR after pass '") + P->name() + "'";
        for (const std::string &E : Errors)
          Error += "\n  " + E;
        Ok = false;
        break;
      }
    }
  }
  if (Opts.TimePasses)
    printTimingReport();
  AM.clear();
  return Ok;
}

bool PassManager::run(ir::Module &M, DiagnosticEngine &Diags, const std::string &What) {
  std::string Error;
  if (run(M, Error))
    return true;
  if (InputError)
    Diags.error(SourceRange(InputError->Loc), InputError->Message);
  else
    Diags.internal(What + " failed: " + Error);
  return false;
}

void PassManager::printTimingReport() const {
  double Total = 0;
  for (auto &T : Timings)
    Total += T.second.count();
  std::ostream &OS = *Opts.Log;
  OS << "===--- Pass execution timing report ---===\n";
  OS << "  Wall time (ms)  Percent  Pass\n";
  char Line[128];
  auto Row = [&](double Seconds, const std::string &Name) {
    double Pct = Total > 0 ? 100.0 * Seconds / Total : 0.0;
    std::snprintf(Line, sizeof(Line), "  %14.3f  %6.1f%%  ", Seconds * 1e3, Pct);
    OS << Line << Name << "\n";
  };
  for (auto &T : Timings)
    Row(T.second.count(), T.first);
  Row(Total, "Total");
}

} // namespace tritonc::transform
