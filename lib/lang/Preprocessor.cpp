//===- Preprocessor.cpp - Token-based C preprocessor ----------------------===//
//
// Files are lexed lazily, one frame per open file; directives are handled as
// their `#` comes out of the lexer, so that a macro defined on line N is
// visible from line N+1 on. Macro expansion follows Prosser's algorithm:
// every token carries a "hide set" of the macros whose expansion produced it,
// and a macro name is never expanded again inside its own expansion (this is
// what stops `#define A A` and mutual recursion).
//
// -D definitions are turned into `#define NAME VALUE` lines of a buffer named
// "<command line>" that is processed before the main file, so they get the
// same checks and locations as #define in a file.
//
//===----------------------------------------------------------------------===//
#include "tritonc/lang/Preprocessor.h"

#include "PPExpr.h"
#include "tritonc/lang/Lexer.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <filesystem>
#include <set>
#include <unordered_map>

namespace tritonc {

namespace {

namespace fs = std::filesystem;

constexpr unsigned MaxIncludeDepth = 200;
/// Total #include directives followed in one translation unit: a header
/// that includes another twice, nested, doubles the work at each level
/// while staying far from the depth limit.
constexpr unsigned MaxTotalInclusions = 10000;
constexpr unsigned MaxArgNesting = 200;

/// Sorted ids (see PreprocessorImpl::macroId) of the macros a token must not
/// expand.
using HideSet = std::vector<uint32_t>;

HideSet hsAdd(HideSet HS, uint32_t Name) {
  auto It = std::lower_bound(HS.begin(), HS.end(), Name);
  if (It == HS.end() || *It != Name)
    HS.insert(It, Name);
  return HS;
}

HideSet hsUnion(const HideSet &A, const HideSet &B) {
  HideSet R;
  std::set_union(A.begin(), A.end(), B.begin(), B.end(), std::back_inserter(R));
  return R;
}

HideSet hsIntersect(const HideSet &A, const HideSet &B) {
  HideSet R;
  std::set_intersection(A.begin(), A.end(), B.begin(), B.end(), std::back_inserter(R));
  return R;
}

bool hsContains(const HideSet &HS, uint32_t Name) {
  return std::binary_search(HS.begin(), HS.end(), Name);
}

struct PPToken {
  Token Tok;
  HideSet HS;
  /// Stands for an empty macro argument next to `##`; removed afterwards.
  bool Placemarker = false;
};

struct Macro {
  std::string Name;
  uint32_t Id = 0; ///< Interned name, for hide sets.
  bool FunctionLike = false;
  bool Variadic = false; ///< The last parameter is __VA_ARGS__.
  std::vector<std::string> Params;
  std::vector<Token> Body;
  SourceLoc DefLoc; ///< The macro name in its definition.

  int paramIndex(const Token &T) const {
    if (!FunctionLike)
      return -1;
    for (size_t I = 0; I < Params.size(); ++I)
      if (Params[I] == T.Text)
        return static_cast<int>(I);
    return -1;
  }
  bool sameDefinition(const Macro &O) const {
    if (FunctionLike != O.FunctionLike || Variadic != O.Variadic || Params != O.Params ||
        Body.size() != O.Body.size())
      return false;
    for (size_t I = 0; I < Body.size(); ++I)
      if (Body[I].Text != O.Body[I].Text ||
          (I > 0 && Body[I].HasLeadingSpace != O.Body[I].HasLeadingSpace))
        return false;
    return true;
  }
};

/// One open #if / #ifdef / #ifndef group.
struct CondEntry {
  SourceLoc Loc;            ///< Its '#'.
  std::string Directive;    ///< "#if", "#ifdef" or "#ifndef".
  bool ParentActive = true; ///< Whether the enclosing text is being kept.
  bool Taken = false;       ///< Whether some branch was (or cannot be) chosen.
  bool Active = true;       ///< Whether the current branch is being kept.
  bool SeenElse = false;
  SourceLoc ElseLoc;
};

struct Frame {
  std::unique_ptr<Lexer> Lex;
  FileId File = InvalidFileId;
  std::string CanonicalPath; ///< For #pragma once; empty for <command line>.
  bool IsCommandLine = false;
  std::vector<CondEntry> Conds;

  bool skipping() const { return !Conds.empty() && !Conds.back().Active; }
};

/// Input of the expansion engine: pushed-back tokens, then (optionally) the
/// open files.
struct TokenStream {
  std::deque<PPToken> Queue;
  bool FromFiles = false;
};

bool isIdentLike(const Token &T) {
  return T.is(TokenKind::identifier) ||
         (!T.Text.empty() && Lexer::identifierKind(T.Text) == T.Kind &&
          T.Kind != TokenKind::identifier);
}

/// The location just past a token's spelling (for "expected X here").
SourceLoc endOf(const Token &T) {
  SourceLoc L = T.diagLoc();
  if (!T.ExpansionLoc.isValid())
    L.Col += static_cast<uint32_t>(T.Text.size());
  return L;
}

class PreprocessorImpl {
public:
  PreprocessorImpl(SourceManager &SM, const PreprocessorOptions &Opts, DiagnosticEngine &Diags)
      : SM(SM), Opts(Opts), Diags(Diags) {}

  std::vector<Token> run(FileId MainFile);

private:
  SourceManager &SM;
  const PreprocessorOptions &Opts;
  DiagnosticEngine &Diags;
  std::unordered_map<std::string, std::shared_ptr<const Macro>> Macros;
  std::unordered_map<std::string, uint32_t> MacroIds;
  std::vector<std::unique_ptr<Frame>> Frames;
  std::set<std::string> OnceFiles;
  unsigned NumFileFrames = 0;
  unsigned TotalInclusions = 0;
  bool IncludesDisabled = false;
  bool ExpansionLimitHit = false;
  bool ArgNestingErrorReported = false;
  size_t ExpansionTokens = 0;
  Token FinalEof;

  void pushFrame(FileId File, bool IsCommandLine);
  /// A small integer per macro name; hide sets compare these, not strings.
  uint32_t macroId(const std::string &Name) {
    return MacroIds.emplace(Name, static_cast<uint32_t>(MacroIds.size())).first->second;
  }
  void addCommandLineDefines();

  // Reading files and directives.
  Token lexFromFiles();
  void handleDirective(const Token &Hash);
  void handleIf(const Token &Hash, const Token &Name, bool Skipping);
  void handleElif(const Token &Hash, const Token &Name);
  void handleElse(const Token &Hash, const Token &Name);
  void handleEndif(const Token &Hash, const Token &Name);
  void handleDefine(const Token &Name);
  void handleUndef(const Token &Name);
  void handleInclude(const Token &Name);
  void warnExtraTokens(const std::vector<Token> &Toks, size_t From, const Token &Name);
  bool evaluateCondition(const std::vector<Token> &Toks, const Token &Name);
  /// The first candidate path that exists and is not a directory; Why
  /// says what was found instead when there is none.
  std::optional<std::string> findInclude(const std::string &FileName, bool Angled,
                                         std::string &Why);
  /// Reports the expansion limit at Use (once) and stops all expansion.
  void reportExpansionLimit(const PPToken &Use);

  // Macro expansion.
  PPToken next(TokenStream &S);
  std::shared_ptr<const Macro> lookupExpandable(const PPToken &T);
  void expandStream(TokenStream &S, std::vector<PPToken> &Out, unsigned Depth);
  std::vector<Token> expandTokens(const std::vector<Token> &Toks);
  std::vector<PPToken> substitute(const Macro &M, const PPToken &Use,
                                  const std::vector<std::vector<PPToken>> &Args, const HideSet &HS,
                                  unsigned Depth);
  PPToken stringize(const std::vector<PPToken> &Arg, const Token &HashTok, SourceLoc UseLoc);
  bool paste(PPToken &LHS, const PPToken &RHS, SourceLoc UseLoc);
};

void PreprocessorImpl::pushFrame(FileId File, bool IsCommandLine) {
  auto F = std::make_unique<Frame>();
  F->Lex = std::make_unique<Lexer>(SM, File, &Diags);
  F->File = File;
  F->IsCommandLine = IsCommandLine;
  if (!IsCommandLine) {
    std::error_code EC;
    fs::path P = fs::weakly_canonical(fs::path(SM.getName(File)), EC);
    F->CanonicalPath = EC ? SM.getName(File) : P.string();
    ++NumFileFrames;
  }
  Frames.push_back(std::move(F));
}

void PreprocessorImpl::addCommandLineDefines() {
  std::string Text;
  for (const auto &[Name, Value] : Opts.Defines) {
    // The name may carry a parameter list (-D'F(x)=x*2'); what follows the
    // '(' is checked by the #define parser.
    size_t NameEnd = Name.find('(');
    std::string_view Ident = std::string_view(Name).substr(0, NameEnd);
    bool Valid = !Ident.empty() && !std::isdigit(static_cast<unsigned char>(Ident[0]));
    for (char C : Ident)
      Valid = Valid && (std::isalnum(static_cast<unsigned char>(C)) || C == '_');
    if (Valid && NameEnd != std::string::npos)
      Valid = Name.find_first_of("\n\r") == std::string::npos;
    if (!Valid) {
      Diags.error(SourceRange(), "invalid macro name '" + Name + "' in -D option");
      continue;
    }
    std::string V = Value;
    std::replace(V.begin(), V.end(), '\n', ' ');
    std::replace(V.begin(), V.end(), '\r', ' ');
    // A trailing backslash would join the next definition to this one.
    if (!V.empty() && V.back() == '\\')
      V += ' ';
    Text += "#define " + Name + " " + V + "\n";
  }
  if (!Text.empty())
    pushFrame(SM.addBuffer("<command line>", std::move(Text)), /*IsCommandLine=*/true);
}

std::vector<Token> PreprocessorImpl::run(FileId MainFile) {
  pushFrame(MainFile, /*IsCommandLine=*/false);
  FinalEof.Loc = SM.getLoc(MainFile, SM.getText(MainFile).size());
  addCommandLineDefines();
  TokenStream S;
  S.FromFiles = true;
  std::vector<PPToken> Out;
  expandStream(S, Out, 0);
  std::vector<Token> Result;
  Result.reserve(Out.size() + 1);
  for (PPToken &T : Out)
    if (T.Tok.isNot(TokenKind::eof))
      Result.push_back(std::move(T.Tok));
  Result.push_back(FinalEof);
  return Result;
}

//===----------------------------------------------------------------------===//
// Files and directives
//===----------------------------------------------------------------------===//

Token PreprocessorImpl::lexFromFiles() {
  while (!Frames.empty()) {
    Frame &F = *Frames.back();
    Token T = F.Lex->lex();
    if (T.is(TokenKind::eof)) {
      for (const CondEntry &C : F.Conds)
        Diags.error(SourceRange(C.Loc), "unterminated " + C.Directive + " (missing #endif)");
      if (Frames.size() == 1)
        FinalEof = T;
      if (!F.IsCommandLine)
        --NumFileFrames;
      Frames.pop_back();
      continue;
    }
    if (T.is(TokenKind::hash) && T.AtStartOfLine) {
      handleDirective(T);
      continue;
    }
    if (F.skipping()) {
      F.Lex->lexRestOfLine();
      continue;
    }
    return T;
  }
  return FinalEof;
}

void PreprocessorImpl::handleDirective(const Token &Hash) {
  Frame &F = *Frames.back();
  Lexer &L = *F.Lex;
  if (L.atStartOfLineOrEnd())
    return; // A lone '#' is the null directive.
  Token Name = L.lex();
  bool Skipping = F.skipping();
  std::string D = isIdentLike(Name) ? Name.Text : std::string();
  if (D == "if" || D == "ifdef" || D == "ifndef")
    return handleIf(Hash, Name, Skipping);
  if (D == "elif")
    return handleElif(Hash, Name);
  if (D == "else")
    return handleElse(Hash, Name);
  if (D == "endif")
    return handleEndif(Hash, Name);
  if (Skipping) {
    L.lexRestOfLine();
    return;
  }
  if (D == "define")
    return handleDefine(Name);
  if (D == "undef")
    return handleUndef(Name);
  if (D == "include")
    return handleInclude(Name);
  if (D == "error" || D == "warning") {
    std::string Msg = "#" + D;
    std::string Text = L.readRestOfLineRaw();
    if (!Text.empty())
      Msg += " " + Text;
    if (D == "error")
      Diags.error(SourceRange(Hash.Loc), std::move(Msg));
    else
      Diags.warning(SourceRange(Hash.Loc), std::move(Msg));
    return;
  }
  if (D == "pragma") {
    // Pragmas are ignored, except `once`, which include guards rely on.
    if (L.readRestOfLineRaw() == "once" && !F.IsCommandLine)
      OnceFiles.insert(F.CanonicalPath);
    return;
  }
  Diags.error(Name.range(), "invalid preprocessing directive '#" + Name.Text + "'");
  L.readRestOfLineRaw();
}

void PreprocessorImpl::warnExtraTokens(const std::vector<Token> &Toks, size_t From,
                                       const Token &Name) {
  if (Toks.size() > From)
    Diags.warning(Toks[From].range(), "extra tokens at end of #" + Name.Text + " directive");
}

void PreprocessorImpl::handleIf(const Token &Hash, const Token &Name, bool Skipping) {
  Frame &F = *Frames.back();
  std::vector<Token> Toks = F.Lex->lexRestOfLine();
  bool Result = false;
  if (!Skipping) {
    if (Name.Text == "if") {
      if (Toks.empty())
        Diags.error(Name.range(), "#if with no expression");
      else
        Result = evaluateCondition(Toks, Name);
    } else if (Toks.empty()) {
      Diags.error(Name.range(), "missing macro name in #" + Name.Text);
    } else if (!isIdentLike(Toks[0])) {
      Diags.error(Toks[0].range(), "macro name must be an identifier");
    } else {
      warnExtraTokens(Toks, 1, Name);
      Result = Macros.count(Toks[0].Text) != 0;
      if (Name.Text == "ifndef")
        Result = !Result;
    }
  }
  // Inside a skipped block the group is "taken" so that no branch opens.
  CondEntry C;
  C.Loc = Hash.Loc;
  C.Directive = "#" + Name.Text;
  C.ParentActive = !Skipping;
  C.Taken = Skipping || Result;
  C.Active = !Skipping && Result;
  F.Conds.push_back(std::move(C));
  F.Lex->setDiagnosticsEnabled(!F.skipping());
}

void PreprocessorImpl::handleElif(const Token &Hash, const Token &Name) {
  Frame &F = *Frames.back();
  Lexer &L = *F.Lex;
  if (F.Conds.empty()) {
    Diags.error(SourceRange(Hash.Loc), "#elif without #if");
    L.lexRestOfLine();
    return;
  }
  CondEntry &C = F.Conds.back();
  if (C.SeenElse) {
    Diags.error(SourceRange(Hash.Loc), "#elif after #else");
    Diags.note(SourceRange(C.ElseLoc), "#else is here");
    L.lexRestOfLine();
    C.Active = false;
  } else if (!C.ParentActive || C.Taken) {
    C.Active = false;
    L.setDiagnosticsEnabled(false);
    L.lexRestOfLine();
  } else {
    // The condition is read with diagnostics on: it is going to be used.
    L.setDiagnosticsEnabled(true);
    std::vector<Token> Toks = L.lexRestOfLine();
    bool Result = false;
    if (Toks.empty())
      Diags.error(Name.range(), "#elif with no expression");
    else
      Result = evaluateCondition(Toks, Name);
    C.Active = Result;
    C.Taken = Result;
  }
  L.setDiagnosticsEnabled(!F.skipping());
}

void PreprocessorImpl::handleElse(const Token &Hash, const Token &Name) {
  Frame &F = *Frames.back();
  std::vector<Token> Toks = F.Lex->lexRestOfLine();
  if (F.Conds.empty()) {
    Diags.error(SourceRange(Hash.Loc), "#else without #if");
    return;
  }
  CondEntry &C = F.Conds.back();
  if (C.SeenElse) {
    Diags.error(SourceRange(Hash.Loc), "#else after #else");
    Diags.note(SourceRange(C.ElseLoc), "previous #else is here");
    C.Active = false;
  } else {
    if (C.ParentActive)
      warnExtraTokens(Toks, 0, Name);
    C.SeenElse = true;
    C.ElseLoc = Hash.Loc;
    C.Active = C.ParentActive && !C.Taken;
    C.Taken = true;
  }
  F.Lex->setDiagnosticsEnabled(!F.skipping());
}

void PreprocessorImpl::handleEndif(const Token &Hash, const Token &Name) {
  Frame &F = *Frames.back();
  std::vector<Token> Toks = F.Lex->lexRestOfLine();
  if (F.Conds.empty()) {
    Diags.error(SourceRange(Hash.Loc), "#endif without #if");
    return;
  }
  if (F.Conds.back().ParentActive)
    warnExtraTokens(Toks, 0, Name);
  F.Conds.pop_back();
  F.Lex->setDiagnosticsEnabled(!F.skipping());
}

bool PreprocessorImpl::evaluateCondition(const std::vector<Token> &Toks, const Token &Name) {
  SourceLoc EndLoc = endOf(Toks.back());
  // `defined X` and `defined(X)` are resolved before macro expansion.
  std::vector<Token> Resolved;
  for (size_t I = 0; I < Toks.size(); ++I) {
    const Token &T = Toks[I];
    if (!(T.is(TokenKind::identifier) && T.Text == "defined")) {
      Resolved.push_back(T);
      continue;
    }
    size_t J = I + 1;
    bool Paren = J < Toks.size() && Toks[J].is(TokenKind::l_paren);
    if (Paren)
      ++J;
    if (J >= Toks.size() || !isIdentLike(Toks[J])) {
      SourceRange R = J < Toks.size() ? Toks[J].range() : SourceRange(EndLoc);
      Diags.error(R, "expected macro name after 'defined'");
      return false;
    }
    bool IsDefined = Macros.count(Toks[J].Text) != 0;
    ++J;
    if (Paren) {
      if (J >= Toks.size() || Toks[J].isNot(TokenKind::r_paren)) {
        SourceRange R = J < Toks.size() ? Toks[J].range() : SourceRange(EndLoc);
        Diags.error(R, "expected ')' after 'defined(" + Toks[J - 1].Text + "'");
        Diags.note(Toks[I + 1].range(), "to match this '('");
        return false;
      }
      ++J;
    }
    Token V = T;
    V.Kind = TokenKind::int_literal;
    V.Text = IsDefined ? "1" : "0";
    Resolved.push_back(V);
    I = J - 1;
  }
  std::vector<Token> Expanded = expandTokens(Resolved);
  int64_t Value = 0;
  if (!evaluatePPExpression(Expanded, EndLoc, Diags, Value))
    return false;
  return Value != 0;
}

void PreprocessorImpl::handleDefine(const Token &Name) {
  std::vector<Token> Toks = Frames.back()->Lex->lexRestOfLine();
  if (Toks.empty()) {
    Diags.error(Name.range(), "missing macro name in #define");
    return;
  }
  const Token &MN = Toks[0];
  if (!isIdentLike(MN)) {
    Diags.error(MN.range(), "macro name must be an identifier");
    return;
  }
  if (MN.Text == "defined") {
    Diags.error(MN.range(), "'defined' cannot be used as a macro name");
    return;
  }
  auto M = std::make_shared<Macro>();
  M->Name = MN.Text;
  M->Id = macroId(M->Name);
  M->DefLoc = MN.Loc;
  size_t I = 1;
  if (I < Toks.size() && Toks[I].is(TokenKind::l_paren) && !Toks[I].HasLeadingSpace) {
    M->FunctionLike = true;
    const Token &LParen = Toks[I++];
    bool Closed = I < Toks.size() && Toks[I].is(TokenKind::r_paren);
    if (Closed)
      ++I;
    while (!Closed) {
      if (I >= Toks.size()) {
        Diags.error(SourceRange(endOf(Toks.back())), "missing ')' in macro parameter list");
        Diags.note(LParen.range(), "to match this '('");
        return;
      }
      const Token &P = Toks[I];
      if (P.is(TokenKind::ellipsis)) {
        M->Variadic = true;
        M->Params.push_back("__VA_ARGS__");
      } else if (isIdentLike(P) && P.Text != "__VA_ARGS__") {
        if (std::find(M->Params.begin(), M->Params.end(), P.Text) != M->Params.end()) {
          Diags.error(P.range(), "duplicate macro parameter '" + P.Text + "'");
          return;
        }
        M->Params.push_back(P.Text);
      } else {
        Diags.error(P.range(),
                    "expected parameter name in macro parameter list, found '" + P.Text + "'");
        return;
      }
      ++I;
      if (I < Toks.size() && Toks[I].is(TokenKind::r_paren)) {
        ++I;
        Closed = true;
      } else if (I < Toks.size() && Toks[I].is(TokenKind::comma) && !M->Variadic) {
        ++I;
      } else if (I >= Toks.size()) {
        Diags.error(SourceRange(endOf(Toks.back())), "missing ')' in macro parameter list");
        Diags.note(LParen.range(), "to match this '('");
        return;
      } else {
        Diags.error(Toks[I].range(), M->Variadic
                                         ? "expected ')' after '...' in macro parameter list"
                                         : "expected ',' or ')' in macro parameter list");
        return;
      }
    }
  }
  M->Body.assign(Toks.begin() + static_cast<std::ptrdiff_t>(I), Toks.end());
  if (!M->Body.empty()) {
    // The space between the name and the body is not part of the body.
    M->Body.front().HasLeadingSpace = false;
    for (const Token *T : {&M->Body.front(), &M->Body.back()})
      if (T->is(TokenKind::hashhash)) {
        Diags.error(T->range(), "'##' cannot appear at either end of a macro expansion");
        return;
      }
  }
  for (size_t J = 0; M->FunctionLike && J < M->Body.size(); ++J)
    if (M->Body[J].is(TokenKind::hash) &&
        (J + 1 >= M->Body.size() || M->paramIndex(M->Body[J + 1]) < 0)) {
      Diags.error(M->Body[J].range(), "'#' is not followed by a macro parameter");
      return;
    }
  auto Old = Macros.find(M->Name);
  if (Old != Macros.end() && !Old->second->sameDefinition(*M)) {
    Diags.warning(MN.range(), "'" + M->Name + "' macro redefined");
    SourceLoc OldLoc = Old->second->DefLoc;
    SourceLoc OldEnd{OldLoc.File, OldLoc.Line, OldLoc.Col + static_cast<uint32_t>(M->Name.size())};
    Diags.note(SourceRange(OldLoc, OldEnd), "previous definition is here");
  }
  Macros[M->Name] = std::move(M);
}

void PreprocessorImpl::handleUndef(const Token &Name) {
  std::vector<Token> Toks = Frames.back()->Lex->lexRestOfLine();
  if (Toks.empty()) {
    Diags.error(Name.range(), "missing macro name in #undef");
    return;
  }
  if (!isIdentLike(Toks[0])) {
    Diags.error(Toks[0].range(), "macro name must be an identifier");
    return;
  }
  warnExtraTokens(Toks, 1, Name);
  Macros.erase(Toks[0].Text);
}

std::optional<std::string> PreprocessorImpl::findInclude(const std::string &FileName, bool Angled,
                                                         std::string &Why) {
  std::vector<fs::path> Candidates;
  fs::path Rel(FileName);
  if (Rel.is_absolute()) {
    Candidates.push_back(Rel);
  } else {
    if (!Angled) {
      fs::path Dir = fs::path(SM.getName(Frames.back()->File)).parent_path();
      Candidates.push_back(Dir / Rel);
    }
    for (const std::string &D : Opts.IncludeDirs)
      Candidates.push_back(fs::path(D) / Rel);
  }
  // A FIFO or device is found (and then refused as not a regular file by
  // SourceManager, with that reason); a directory is skipped.
  Why = "file not found";
  for (const fs::path &P : Candidates) {
    std::error_code EC;
    fs::file_status St = fs::status(P, EC);
    if (fs::is_directory(St))
      Why = "is a directory, not a file";
    else if (fs::exists(St))
      return P.lexically_normal().string();
  }
  return std::nullopt;
}

void PreprocessorImpl::handleInclude(const Token &Name) {
  std::vector<Token> Toks = Frames.back()->Lex->lexRestOfLine();
  // `#include MACRO` is allowed: the macro must expand to a file name.
  if (!Toks.empty() && Toks[0].isNot(TokenKind::string_literal)) {
    Toks = expandTokens(Toks);
    if (!Toks.empty() && Toks[0].is(TokenKind::less)) {
      Token Joined = Toks[0];
      Joined.Kind = TokenKind::string_literal;
      size_t J = 1;
      for (; J < Toks.size() && Toks[J].isNot(TokenKind::greater); ++J)
        Joined.Text += (Toks[J].HasLeadingSpace ? " " : "") + Toks[J].Text;
      if (J < Toks.size()) {
        Joined.Text += ">";
        Toks.erase(Toks.begin(), Toks.begin() + static_cast<std::ptrdiff_t>(J) + 1);
        Toks.insert(Toks.begin(), Joined);
      }
    }
  }
  if (Toks.empty() || Toks[0].isNot(TokenKind::string_literal)) {
    SourceRange R = Toks.empty() ? Name.range() : Toks[0].range();
    Diags.error(R, "expected \"FILENAME\" or <FILENAME> after #include");
    return;
  }
  const Token &FT = Toks[0];
  warnExtraTokens(Toks, 1, Name);
  bool Angled = FT.Text.front() == '<';
  std::string FileName = FT.Text.substr(1, FT.Text.size() - 2);
  if (FileName.empty()) {
    Diags.error(FT.range(), "empty filename in #include");
    return;
  }
  if (IncludesDisabled)
    return;
  if (NumFileFrames >= MaxIncludeDepth) {
    Diags.error(FT.range(), "#include nested too deeply (more than " +
                                std::to_string(MaxIncludeDepth) + " levels)");
    // Stop including altogether: a file that includes itself twice would
    // otherwise take exponential time to unwind.
    IncludesDisabled = true;
    return;
  }
  if (TotalInclusions >= MaxTotalInclusions) {
    Diags.error(FT.range(), "too many #include directives followed (more than " +
                                std::to_string(MaxTotalInclusions) + " in all)");
    IncludesDisabled = true;
    return;
  }
  std::string NotFound;
  std::optional<std::string> Path = findInclude(FileName, Angled, NotFound);
  if (!Path) {
    Diags.error(FT.range(), "'" + FileName + "' " + NotFound);
    return;
  }
  ++TotalInclusions;
  std::error_code EC;
  fs::path Canon = fs::weakly_canonical(*Path, EC);
  if (!EC && OnceFiles.count(Canon.string()))
    return;
  std::string Why;
  std::optional<FileId> Id = SM.addFile(*Path, &Why);
  if (!Id) {
    Diags.error(FT.range(), "cannot read '" + *Path + "': " + Why);
    return;
  }
  pushFrame(*Id, /*IsCommandLine=*/false);
}

//===----------------------------------------------------------------------===//
// Macro expansion
//===----------------------------------------------------------------------===//

PPToken PreprocessorImpl::next(TokenStream &S) {
  if (!S.Queue.empty()) {
    PPToken T = std::move(S.Queue.front());
    S.Queue.pop_front();
    return T;
  }
  PPToken T;
  if (S.FromFiles)
    T.Tok = lexFromFiles();
  return T; // A default Token is eof.
}

std::shared_ptr<const Macro> PreprocessorImpl::lookupExpandable(const PPToken &T) {
  if (ExpansionLimitHit || !isIdentLike(T.Tok))
    return nullptr;
  auto It = Macros.find(T.Tok.Text);
  if (It == Macros.end() || hsContains(T.HS, It->second->Id))
    return nullptr;
  return It->second;
}

void PreprocessorImpl::expandStream(TokenStream &S, std::vector<PPToken> &Out, unsigned Depth) {
  // Line-start and spacing of a macro use that expanded to nothing move to
  // the next token, so that tokensToString keeps the line structure.
  bool CarryStart = false, CarrySpace = false;
  for (;;) {
    PPToken T = next(S);
    if (T.Tok.is(TokenKind::eof)) {
      if (S.FromFiles)
        Out.push_back(std::move(T));
      return;
    }
    T.Tok.AtStartOfLine |= CarryStart;
    T.Tok.HasLeadingSpace |= CarrySpace;
    CarryStart = CarrySpace = false;
    std::shared_ptr<const Macro> M = lookupExpandable(T);
    if (!M) {
      Out.push_back(std::move(T));
      continue;
    }
    std::vector<std::vector<PPToken>> Args;
    HideSet HS;
    if (!M->FunctionLike) {
      HS = hsAdd(T.HS, M->Id);
    } else {
      // A function-like macro name not followed by '(' is an ordinary token.
      PPToken LParen = next(S);
      if (LParen.Tok.isNot(TokenKind::l_paren)) {
        S.Queue.push_front(std::move(LParen));
        Out.push_back(std::move(T));
        continue;
      }
      Args.emplace_back();
      unsigned Nesting = 0;
      bool Terminated = false;
      PPToken RParen;
      for (;;) {
        PPToken A = next(S);
        if (A.Tok.is(TokenKind::eof)) {
          S.Queue.push_front(std::move(A));
          break;
        }
        if (A.Tok.is(TokenKind::l_paren)) {
          ++Nesting;
        } else if (A.Tok.is(TokenKind::r_paren)) {
          if (Nesting == 0) {
            RParen = std::move(A);
            Terminated = true;
            break;
          }
          --Nesting;
        } else if (A.Tok.is(TokenKind::comma) && Nesting == 0 &&
                   !(M->Variadic && Args.size() == M->Params.size())) {
          Args.emplace_back();
          continue;
        }
        // Arguments spanning lines become one line.
        if (A.Tok.AtStartOfLine) {
          A.Tok.AtStartOfLine = false;
          A.Tok.HasLeadingSpace = true;
        }
        Args.back().push_back(std::move(A));
      }
      if (!Terminated) {
        Diags.error(T.Tok.range(), "unterminated argument list invoking macro '" + M->Name + "'");
        continue;
      }
      size_t NumParams = M->Params.size();
      bool CountOk;
      if (NumParams == 0) {
        CountOk = Args.size() == 1 && Args[0].empty();
        if (CountOk)
          Args.clear();
      } else if (M->Variadic) {
        if (Args.size() == NumParams - 1)
          Args.emplace_back();
        CountOk = Args.size() == NumParams;
      } else {
        CountOk = Args.size() == NumParams;
      }
      if (!CountOk) {
        size_t Given = (Args.size() == 1 && Args[0].empty()) ? 0 : Args.size();
        std::string Need = std::to_string(M->Variadic ? NumParams - 1 : NumParams);
        Diags.error(T.Tok.range(), "macro '" + M->Name + "' requires " +
                                       (M->Variadic ? "at least " : "") + Need + " argument" +
                                       (Need == "1" ? "" : "s") + ", but " + std::to_string(Given) +
                                       (Given == 1 ? " was" : " were") + " given");
        SourceLoc E = M->DefLoc;
        E.Col += static_cast<uint32_t>(M->Name.size());
        Diags.note(SourceRange(M->DefLoc, E), "macro '" + M->Name + "' defined here");
        continue;
      }
      HS = hsAdd(hsIntersect(T.HS, RParen.HS), M->Id);
    }
    std::vector<PPToken> Result = substitute(*M, T, Args, HS, Depth);
    ExpansionTokens += Result.size();
    if (ExpansionTokens > Opts.MaxExpansionTokens)
      reportExpansionLimit(T);
    if (ExpansionLimitHit)
      Result.clear(); // The output is discarded: stop copying it outward.
    if (Result.empty()) {
      CarryStart = T.Tok.AtStartOfLine;
      CarrySpace = T.Tok.HasLeadingSpace;
    }
    for (auto It = Result.rbegin(); It != Result.rend(); ++It)
      S.Queue.push_front(std::move(*It));
  }
}

void PreprocessorImpl::reportExpansionLimit(const PPToken &Use) {
  if (ExpansionLimitHit)
    return;
  ExpansionLimitHit = true;
  Diags.error(Use.Tok.range(), "macro expansion is too large (more than " +
                                   std::to_string(Opts.MaxExpansionTokens) + " tokens)");
}

std::vector<Token> PreprocessorImpl::expandTokens(const std::vector<Token> &Toks) {
  TokenStream S;
  for (const Token &T : Toks)
    S.Queue.push_back(PPToken{T, {}, false});
  std::vector<PPToken> Out;
  expandStream(S, Out, 1);
  std::vector<Token> Result;
  for (PPToken &T : Out)
    Result.push_back(std::move(T.Tok));
  return Result;
}

std::vector<PPToken> PreprocessorImpl::substitute(const Macro &M, const PPToken &Use,
                                                  const std::vector<std::vector<PPToken>> &Args,
                                                  const HideSet &HS, unsigned Depth) {
  SourceLoc UseLoc = Use.Tok.diagLoc();
  std::vector<std::optional<std::vector<PPToken>>> Expanded(Args.size());
  auto ExpandedArg = [&](size_t P) -> const std::vector<PPToken> & {
    if (!Expanded[P]) {
      if (Depth >= MaxArgNesting) {
        if (!ArgNestingErrorReported)
          Diags.error(Use.Tok.range(), "macro arguments nested too deeply");
        ArgNestingErrorReported = true;
        Expanded[P] = Args[P];
      } else {
        TokenStream S;
        S.Queue.assign(Args[P].begin(), Args[P].end());
        Expanded[P].emplace();
        expandStream(S, *Expanded[P], Depth + 1);
      }
    }
    return *Expanded[P];
  };
  auto BodyToken = [&](const Token &B) {
    PPToken P{B, {}, false};
    P.Tok.ExpansionLoc = UseLoc;
    return P;
  };
  auto Placemarker = [] {
    PPToken P;
    P.Placemarker = true;
    return P;
  };

  std::vector<PPToken> Out;
  const std::vector<Token> &Body = M.Body;
  for (size_t I = 0; I < Body.size(); ++I) {
    // Checked as the substitution grows: arguments expanded and copied
    // several times multiply the work long before the result is counted.
    if (ExpansionLimitHit)
      return {};
    if (ExpansionTokens + Out.size() > Opts.MaxExpansionTokens) {
      reportExpansionLimit(Use);
      return {};
    }
    const Token &B = Body[I];
    if (M.FunctionLike && B.is(TokenKind::hash)) {
      // Checked at definition: '#' is followed by a parameter.
      Out.push_back(stringize(Args[M.paramIndex(Body[I + 1])], B, UseLoc));
      ++I;
      continue;
    }
    if (B.is(TokenKind::hashhash)) {
      // Checked at definition: '##' is not the last token.
      const Token &R = Body[++I];
      std::vector<PPToken> RHS;
      int P = M.paramIndex(R);
      if (P >= 0) {
        RHS = Args[P];
      } else if (M.FunctionLike && R.is(TokenKind::hash)) {
        RHS.push_back(stringize(Args[M.paramIndex(Body[I + 1])], R, UseLoc));
        ++I;
      } else {
        RHS.push_back(BodyToken(R));
      }
      if (RHS.empty())
        continue; // Pasting an empty argument leaves the left side alone.
      if (Out.empty() || Out.back().Placemarker) {
        if (!Out.empty())
          Out.pop_back();
        Out.insert(Out.end(), RHS.begin(), RHS.end());
        continue;
      }
      size_t From = paste(Out.back(), RHS.front(), UseLoc) ? 1 : 0;
      Out.insert(Out.end(), RHS.begin() + static_cast<std::ptrdiff_t>(From), RHS.end());
      continue;
    }
    int P = M.paramIndex(B);
    if (P >= 0) {
      bool BeforePaste = I + 1 < Body.size() && Body[I + 1].is(TokenKind::hashhash);
      const std::vector<PPToken> &A = BeforePaste ? Args[P] : ExpandedArg(P);
      if (A.empty()) {
        if (BeforePaste)
          Out.push_back(Placemarker());
        continue;
      }
      size_t First = Out.size();
      Out.insert(Out.end(), A.begin(), A.end());
      Out[First].Tok.HasLeadingSpace = B.HasLeadingSpace;
      continue;
    }
    Out.push_back(BodyToken(B));
  }

  std::vector<PPToken> Result;
  Result.reserve(Out.size());
  for (PPToken &T : Out) {
    if (T.Placemarker)
      continue;
    T.HS = hsUnion(T.HS, HS);
    T.Tok.AtStartOfLine = false;
    Result.push_back(std::move(T));
  }
  if (!Result.empty()) {
    Result.front().Tok.AtStartOfLine = Use.Tok.AtStartOfLine;
    Result.front().Tok.HasLeadingSpace = Use.Tok.HasLeadingSpace;
  }
  return Result;
}

PPToken PreprocessorImpl::stringize(const std::vector<PPToken> &Arg, const Token &HashTok,
                                    SourceLoc UseLoc) {
  std::string S = "\"";
  for (size_t I = 0; I < Arg.size(); ++I) {
    const Token &T = Arg[I].Tok;
    if (I > 0 && (T.HasLeadingSpace || T.AtStartOfLine))
      S += ' ';
    bool Quoted = T.is(TokenKind::string_literal) || T.is(TokenKind::char_literal);
    for (char C : T.Text) {
      if (Quoted && (C == '"' || C == '\\'))
        S += '\\';
      S += C;
    }
  }
  S += '"';
  PPToken P;
  P.Tok = HashTok;
  P.Tok.Kind = TokenKind::string_literal;
  P.Tok.Text = std::move(S);
  P.Tok.ExpansionLoc = UseLoc;
  return P;
}

bool PreprocessorImpl::paste(PPToken &LHS, const PPToken &RHS, SourceLoc UseLoc) {
  std::string Text = LHS.Tok.Text + RHS.Tok.Text;
  Token Single;
  if (!Lexer::lexSingleToken(Text, Single)) {
    Diags.error(SourceRange(UseLoc), "pasting '" + LHS.Tok.Text + "' and '" + RHS.Tok.Text +
                                         "' does not give a valid token");
    return false;
  }
  LHS.Tok.Kind = Single.Kind;
  LHS.Tok.Text = std::move(Text);
  LHS.Tok.ExpansionLoc = UseLoc;
  LHS.HS = hsIntersect(LHS.HS, RHS.HS);
  return true;
}

/// Whether printing A directly followed by B could read back differently.
bool needsSeparator(const Token &A, const Token &B) {
  char L = A.Text.empty() ? ' ' : A.Text.back();
  char R = B.Text.empty() ? ' ' : B.Text.front();
  auto Word = [](char C) { return std::isalnum(static_cast<unsigned char>(C)) || C == '_'; };
  if (Word(L) && (Word(R) || R == '\'' || R == '"'))
    return true;
  bool Number = A.is(TokenKind::int_literal) || A.is(TokenKind::float_literal);
  if (Number && R == '.')
    return true;
  if (Word(L) || Word(R))
    return false;
  static const char *const Pairs[] = {
      "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "->", "+=",
      "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##", "..", "//", "/*"};
  for (const char *P : Pairs)
    if (P[0] == L && P[1] == R)
      return true;
  return L == '.' && std::isdigit(static_cast<unsigned char>(R));
}

} // namespace

std::vector<Token> preprocess(SourceManager &SM, FileId MainFile, const PreprocessorOptions &Opts,
                              DiagnosticEngine &Diags) {
  PreprocessorImpl PP(SM, Opts, Diags);
  return PP.run(MainFile);
}

std::string tokensToString(const std::vector<Token> &Tokens) {
  std::string Out;
  const Token *Prev = nullptr;
  for (const Token &T : Tokens) {
    if (T.is(TokenKind::eof))
      break;
    if (Prev) {
      if (T.AtStartOfLine)
        Out += '\n';
      else if (T.HasLeadingSpace || needsSeparator(*Prev, T))
        Out += ' ';
    }
    Out += T.Text;
    Prev = &T;
  }
  if (!Out.empty())
    Out += '\n';
  return Out;
}

} // namespace tritonc
