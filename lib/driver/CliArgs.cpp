//===- CliArgs.cpp - Command-line tokenizing for tritonc ------------------===//

#include "tritonc/driver/CliArgs.h"

#include <cctype>
#include <charconv>
#include <cstddef>

namespace tritonc::driver::cli {

const std::string *ParsedArgs::last(const std::string &Name) const {
  auto It = Values.find(Name);
  return It == Values.end() || It->second.empty() ? nullptr : &It->second.back();
}

namespace {

bool looksLikeNegativeNumber(const std::string &S) {
  if (S.size() < 2 || S[0] != '-')
    return false;
  if (std::isdigit(static_cast<unsigned char>(S[1])) || S[1] == '.')
    return true;
  return S == "-inf" || S == "-nan" || S == "-infinity";
}

const OptionSpec *findSpec(const std::vector<OptionSpec> &Specs, const std::string &Name) {
  for (const OptionSpec &S : Specs)
    if (Name == S.Name)
      return &S;
  return nullptr;
}

} // namespace

bool parseArgs(const std::vector<std::string> &Args, const std::vector<OptionSpec> &Specs,
               ParsedArgs &Out, std::string &Error) {
  for (size_t I = 0; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    if (A == "--") {
      Out.Positionals.insert(Out.Positionals.end(),
                             Args.begin() + static_cast<std::ptrdiff_t>(I) + 1, Args.end());
      return true;
    }
    if (A.size() < 2 || A[0] != '-' || looksLikeNegativeNumber(A)) {
      Out.Positionals.push_back(A);
      continue;
    }
    std::string Name;
    std::string Value;
    bool HasValue = false;
    const OptionSpec *Spec = nullptr;
    if (A[1] == '-') {
      size_t Eq = A.find('=');
      Name = A.substr(0, Eq);
      if (Eq != std::string::npos) {
        Value = A.substr(Eq + 1);
        HasValue = true;
      }
      Spec = findSpec(Specs, Name);
    } else {
      // A short option: "-D" alone, or with its value attached ("-DX=1").
      Name = A.substr(0, 2);
      Spec = findSpec(Specs, Name);
      if (Spec && A.size() > 2) {
        if (!Spec->TakesValue) {
          Spec = nullptr;
          Name = A;
        } else {
          Value = A.substr(2);
          HasValue = true;
        }
      } else if (!Spec) {
        Name = A;
      }
    }
    if (!Spec) {
      Error = "unknown option '" + Name + "'";
      return false;
    }
    if (!Spec->TakesValue) {
      if (HasValue) {
        Error = "option '" + Name + "' takes no value";
        return false;
      }
      Out.Flags.insert(Name);
      continue;
    }
    if (!HasValue && Spec->ValueOptional) {
      Out.Values[Name].push_back("");
      continue;
    }
    if (!HasValue) {
      if (I + 1 >= Args.size()) {
        Error = "option '" + Name + "' needs a value";
        return false;
      }
      Value = Args[++I];
    }
    Out.Values[Name].push_back(Value);
  }
  return true;
}

bool parseDefine(const std::string &Text, std::string &Name, std::string &Value,
                 std::string &Error) {
  size_t Eq = Text.find('=');
  Name = Text.substr(0, Eq);
  Value = Eq == std::string::npos ? "1" : Text.substr(Eq + 1);
  bool Valid = !Name.empty() && !std::isdigit(static_cast<unsigned char>(Name[0]));
  for (char C : Name)
    Valid &= std::isalnum(static_cast<unsigned char>(C)) || C == '_';
  if (!Valid) {
    Error = "invalid definition '-D" + Text +
            "': expected -DNAME=VALUE or -DNAME, where NAME is "
            "an identifier";
    return false;
  }
  return true;
}

bool parseUnsigned(const std::string &Text, uint64_t &Out) {
  auto [End, Ec] = std::from_chars(Text.data(), Text.data() + Text.size(), Out);
  return !Text.empty() && Ec == std::errc() && End == Text.data() + Text.size();
}

} // namespace tritonc::driver::cli
