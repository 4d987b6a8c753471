//===- CliArgs.h - Command-line tokenizing for tritonc ---------*- C++ -*-===//
//
// A small option parser written for tritonc's conventions (no external
// dependency): short options with an attached or separate value (-DX=1,
// -D X=1, -Idir, -o out), long options with `=value` or a separate value,
// flags, `--` to end options, and positionals. A token that looks like a
// negative number (-1, -0.5, -inf) is a positional, so that `tritonc run`
// can take negative scalar arguments.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace tritonc::driver::cli {

struct OptionSpec {
  const char *Name; ///< With its dashes: "-D", "--emit", "--verify-each".
  bool TakesValue;
  /// A long option whose value may be left out (`--remarks` or
  /// `--remarks=all`); without one its value is "". Never takes the next
  /// argument as its value.
  bool ValueOptional = false;
};

struct ParsedArgs {
  /// Values of each option that takes one, in command-line order.
  std::map<std::string, std::vector<std::string>> Values;
  std::set<std::string> Flags;
  std::vector<std::string> Positionals;

  bool has(const std::string &Name) const { return Flags.count(Name) || Values.count(Name); }
  /// The last value given for Name, or null.
  const std::string *last(const std::string &Name) const;
};

/// Splits Args by Specs. Returns false with a message on an unknown option,
/// a missing value, or a value given to a flag.
bool parseArgs(const std::vector<std::string> &Args, const std::vector<OptionSpec> &Specs,
               ParsedArgs &Out, std::string &Error);

/// Parses "NAME=VALUE" or "NAME" (value "1") of a -D option.
bool parseDefine(const std::string &Text, std::string &Name, std::string &Value,
                 std::string &Error);

/// Parses a non-negative decimal integer that fits in uint64_t.
bool parseUnsigned(const std::string &Text, uint64_t &Out);

} // namespace tritonc::driver::cli
