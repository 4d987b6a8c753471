//===- Configurations.cpp - Tuning spaces: defines and back-end options ---===//
//
// The space is the define space (TuningSpace) times the option lists:
// index = (defineIndex * |num_warps| + warpsIndex) * |num_stages| + stagesIndex,
// an absent list counting as one value. That keeps the order the tuning
// space had when the option lists were appended to the defines.
//
//===----------------------------------------------------------------------===//

#include "tritonc/driver/Configurations.h"

#include "tritonc/driver/Compiler.h"

namespace tritonc::driver {

namespace {

std::string listText(const std::vector<unsigned> &Values) {
  std::string S = "[";
  for (unsigned V : Values)
    S += (S.size() > 1 ? "," : "") + std::to_string(V);
  return S + "]";
}

/// The option lists of Tuned in space order (num_warps, then num_stages),
/// the absent ones left out.
std::vector<std::pair<const char *, const std::vector<unsigned> *>>
optionLists(const TunedOptions &Tuned) {
  std::vector<std::pair<const char *, const std::vector<unsigned> *>> Lists;
  if (!Tuned.NumWarps.empty())
    Lists.emplace_back("num_warps", &Tuned.NumWarps);
  if (!Tuned.NumStages.empty())
    Lists.emplace_back("num_stages", &Tuned.NumStages);
  return Lists;
}

/// "TM=32 TN=64" for the choice of each define list in configuration Index
/// of Space.
std::string describeDefines(const TuningSpace &Space, size_t Index) {
  const auto &Lists = Space.lists();
  std::vector<size_t> Choice(Lists.size());
  // Mixed-radix digits, last list fastest (the order of TuningSpace).
  for (size_t L = Lists.size(); L-- > 0;) {
    Choice[L] = Index % Lists[L].second.size();
    Index /= Lists[L].second.size();
  }
  std::string S;
  for (size_t L = 0; L < Lists.size(); ++L)
    S += (S.empty() ? "" : " ") + Lists[L].first + "=" + Lists[L].second[Choice[L]];
  return S;
}

} // namespace

std::string TunedOptions::str() const {
  std::string S;
  for (const auto &[Name, Values] : optionLists(*this))
    S += (S.empty() ? "" : " ") + std::string(Name) + "=" + listText(*Values);
  return S;
}

bool ConfigurationSpace::init(const DefineList &Defs, const TunedOptions &Options,
                              DiagnosticEngine &Diags) {
  Tuned = {};
  bool Ok = true;
  for (const auto &[Name, Value] : Defs) {
    bool Warps = Name == RetiredNumWarpsDefine;
    if (!Warps && Name != RetiredNumStagesDefine)
      continue;
    // Treating it as a define would compile with the default option while
    // the user believes it set.
    Diags.error(SourceRange(), "-D" + Name + "=" + Value + " does not set the " +
                                   (Warps ? "warp count" : "pipelining depth") + ": use " +
                                   (Warps ? "--num-warps=" : "--num-stages=") + Value + " (" +
                                   (Warps ? "num_warps" : "num_stages") + "= in Python)");
    Diags.note(SourceRange(), "back-end options are not macros: a kernel cannot see them");
    Ok = false;
  }
  if (!Ok || !Defines.init(Defs, Diags))
    return false;
  size_t Size = Defines.size();
  for (const auto &[Name, Values] : optionLists(Options)) {
    if (Size > TuningSpace::MaxConfigurations / Values->size()) {
      Diags.error(SourceRange(), "the tuning lists give more than " +
                                     std::to_string(TuningSpace::MaxConfigurations) +
                                     " configurations (the limit is " +
                                     std::to_string(TuningSpace::MaxConfigurations) + ")");
      return false;
    }
    Size *= Values->size();
  }
  Tuned = Options;
  return true;
}

size_t ConfigurationSpace::size() const {
  return Defines.size() * std::max<size_t>(Tuned.NumWarps.size(), 1) *
         std::max<size_t>(Tuned.NumStages.size(), 1);
}

size_t ConfigurationSpace::numLists() const {
  return Defines.lists().size() + optionLists(Tuned).size();
}

std::string ConfigurationSpace::listNames() const {
  std::string S;
  for (const auto &[Name, Values] : Defines.lists())
    S += (S.empty() ? "" : ", ") + Name;
  for (const auto &[Name, Values] : optionLists(Tuned))
    S += (S.empty() ? "" : ", ") + std::string(Name);
  return S;
}

Configuration ConfigurationSpace::configuration(size_t Index) const {
  if (Index >= size())
    reportInternalError("tuning configuration index out of range");
  Configuration C;
  std::string Options;
  auto Pick = [&](const std::vector<unsigned> &Values, const char *Name,
                  std::optional<unsigned> &Field) {
    if (Values.empty())
      return "";
    Field = Values[Index % Values.size()];
    Index /= Values.size();
    return Name;
  };
  // The fastest digit first: num_stages, then num_warps, then the defines.
  const char *Stages = Pick(Tuned.NumStages, "num_stages", C.NumStages);
  const char *Warps = Pick(Tuned.NumWarps, "num_warps", C.NumWarps);
  C.Defines = Defines.configuration(Index);
  C.Description = describeDefines(Defines, Index);
  for (auto [Name, Value] : {std::pair{Warps, C.NumWarps}, std::pair{Stages, C.NumStages}})
    if (Value)
      C.Description +=
          (C.Description.empty() ? "" : " ") + std::string(Name) + "=" + std::to_string(*Value);
  return C;
}

bool forEachConfiguration(const DefineList &Defines, const TunedOptions &Tuned,
                          const std::function<void(size_t, const Configuration &)> &Visit,
                          std::string &Error) {
  SourceManager SM;
  DiagnosticEngine Diags(SM);
  ConfigurationSpace Space;
  bool Ok = runGuarded(Diags, [&] {
    if (!Space.init(Defines, Tuned, Diags))
      return;
    for (size_t I = 0; I < Space.size(); ++I)
      Visit(I, Space.configuration(I));
  });
  if (Ok && !Diags.hasErrors())
    return true;
  Error =
      Diags.diagnostics().empty() ? "invalid tuning lists" : Diags.diagnostics().front().Message;
  return false;
}

bool listConfigurations(const DefineList &Defines, const TunedOptions &Tuned,
                        std::vector<Configuration> &Out, std::string &Error) {
  Out.clear();
  bool Ok = forEachConfiguration(
      Defines, Tuned, [&](size_t, const Configuration &C) { Out.push_back(C); }, Error);
  if (!Ok)
    Out.clear();
  return Ok;
}

std::optional<Configuration> findConfiguration(const DefineList &Defines, const TunedOptions &Tuned,
                                               size_t Index) {
  SourceManager SM;
  DiagnosticEngine Diags(SM);
  ConfigurationSpace Space;
  std::optional<Configuration> C;
  runGuarded(Diags, [&] {
    if (Space.init(Defines, Tuned, Diags) && Index < Space.size())
      C = Space.configuration(Index);
  });
  return C;
}

} // namespace tritonc::driver
