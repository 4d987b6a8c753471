//===- IRParser.cpp - Lexer and recursive-descent parser for .tir ---------===//
#include "tritonc/ir/IRParser.h"

#include "tritonc/ir/Verifier.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace tritonc::ir {

namespace {

//===----------------------------------------------------------------------===//
// Lexer
//===----------------------------------------------------------------------===//

enum class Tok {
  Eof,
  Error,
  Ident,      ///< keywords, opcodes, types, labels: [A-Za-z_][A-Za-z0-9_.]*
  LocalName,  ///< %name
  GlobalName, ///< @name
  BlockRef,   ///< ^name
  AttrName,   ///< #name (layouts: a kind such as #blocked, or an alias)
  Int,        ///< -?[0-9]+
  Float,      ///< -?[0-9]+.[0-9]*([eE][+-]?[0-9]+)? and exponent forms
  String,     ///< "text" with \n \t \" \\ \xHH escapes; Text is the decoded text
  LParen,
  RParen,
  LBrace,
  RBrace,
  LBracket,
  RBracket,
  Less,
  Greater,
  Comma,
  Colon,
  Star,
  Equal,
  Minus
};

struct Token {
  Tok Kind = Tok::Eof;
  std::string Text; ///< Spelling; for names, without the sigil.
  size_t Offset = 0;
  size_t Length = 0;
};

bool isIdentStart(char C) { return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_'; }
bool isDigit(char C) { return C >= '0' && C <= '9'; }
bool isNameChar(char C) { return isIdentStart(C) || isDigit(C) || C == '.'; }

/// Splits the whole buffer into tokens. Lexing stops at the first bad
/// character with an Error token (its Text is the message), then Eof.
std::vector<Token> lex(const std::string &S) {
  std::vector<Token> Toks;
  size_t I = 0, N = S.size();
  auto Push = [&](Tok K, size_t Begin, std::string Text) {
    Toks.push_back({K, std::move(Text), Begin, I - Begin});
  };
  while (true) {
    while (I < N) {
      char C = S[I];
      if (C == ' ' || C == '\t' || C == '\n' || C == '\r' || C == '\f' || C == '\v') {
        ++I;
      } else if (C == ';') {
        while (I < N && S[I] != '\n')
          ++I;
      } else {
        break;
      }
    }
    size_t Begin = I;
    if (I >= N) {
      Push(Tok::Eof, Begin, "");
      return Toks;
    }
    char C = S[I];
    if (isIdentStart(C)) {
      while (I < N && isNameChar(S[I]))
        ++I;
      Push(Tok::Ident, Begin, S.substr(Begin, I - Begin));
      continue;
    }
    if (C == '%' || C == '@' || C == '^' || C == '#') {
      ++I;
      while (I < N && isNameChar(S[I]))
        ++I;
      if (I == Begin + 1) {
        Push(Tok::Error, Begin, std::string("expected a name after '") + C + "'");
        Push(Tok::Eof, I, "");
        return Toks;
      }
      Tok K = C == '%'   ? Tok::LocalName
              : C == '@' ? Tok::GlobalName
              : C == '^' ? Tok::BlockRef
                         : Tok::AttrName;
      Push(K, Begin, S.substr(Begin + 1, I - Begin - 1));
      continue;
    }
    if (C == '"') {
      std::string Text;
      for (++I; I < N && S[I] != '"' && S[I] != '\n'; ++I) {
        if (S[I] != '\\' || I + 1 >= N) {
          Text += S[I];
          continue;
        }
        char E = S[++I];
        if (E == 'n')
          Text += '\n';
        else if (E == 't')
          Text += '\t';
        else if (E == 'x' && I + 2 < N && std::isxdigit(static_cast<unsigned char>(S[I + 1])) &&
                 std::isxdigit(static_cast<unsigned char>(S[I + 2]))) {
          Text += static_cast<char>(std::stoi(S.substr(I + 1, 2), nullptr, 16));
          I += 2;
        } else
          Text += E;
      }
      if (I >= N || S[I] != '"') {
        Push(Tok::Error, Begin, "unterminated string");
        Push(Tok::Eof, I, "");
        return Toks;
      }
      ++I;
      Push(Tok::String, Begin, std::move(Text));
      continue;
    }
    if (isDigit(C) || (C == '-' && I + 1 < N && isDigit(S[I + 1]))) {
      ++I;
      while (I < N && isDigit(S[I]))
        ++I;
      bool IsFloat = false;
      if (I < N && S[I] == '.') {
        IsFloat = true;
        ++I;
        while (I < N && isDigit(S[I]))
          ++I;
      }
      if (I < N && (S[I] == 'e' || S[I] == 'E')) {
        size_t J = I + 1;
        if (J < N && (S[J] == '+' || S[J] == '-'))
          ++J;
        if (J < N && isDigit(S[J])) {
          IsFloat = true;
          I = J;
          while (I < N && isDigit(S[I]))
            ++I;
        }
      }
      Push(IsFloat ? Tok::Float : Tok::Int, Begin, S.substr(Begin, I - Begin));
      continue;
    }
    Tok K;
    switch (C) {
    case '(':
      K = Tok::LParen;
      break;
    case ')':
      K = Tok::RParen;
      break;
    case '{':
      K = Tok::LBrace;
      break;
    case '}':
      K = Tok::RBrace;
      break;
    case '[':
      K = Tok::LBracket;
      break;
    case ']':
      K = Tok::RBracket;
      break;
    case '<':
      K = Tok::Less;
      break;
    case '>':
      K = Tok::Greater;
      break;
    case ',':
      K = Tok::Comma;
      break;
    case ':':
      K = Tok::Colon;
      break;
    case '*':
      K = Tok::Star;
      break;
    case '=':
      K = Tok::Equal;
      break;
    case '-':
      K = Tok::Minus;
      break;
    default: {
      ++I;
      std::string Shown = (C >= 32 && C < 127) ? std::string(1, C) : "\\x" + [&] {
        const char *Hex = "0123456789abcdef";
        unsigned char U = static_cast<unsigned char>(C);
        return std::string{Hex[U >> 4], Hex[U & 15]};
      }();
      Push(Tok::Error, Begin, "unexpected character '" + Shown + "'");
      Push(Tok::Eof, I, "");
      return Toks;
    }
    }
    ++I;
    Push(K, Begin, std::string(1, C));
  }
}

bool isAllDigits(const std::string &S) {
  if (S.empty())
    return false;
  for (char C : S)
    if (!isDigit(C))
      return false;
  return true;
}

/// Thrown to unwind the parser after a diagnostic has been reported.
struct ParseFailure {};

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

class Parser {
public:
  Parser(SourceManager &SM, FileId File, DiagnosticEngine &Diags)
      : SM(SM), File(File), Diags(Diags), Toks(lex(SM.getText(File))) {}

  std::unique_ptr<Module> parse() {
    M = std::make_unique<Module>();
    try {
      while (cur().Kind != Tok::Eof) {
        if (cur().Kind == Tok::AttrName)
          parseLayoutAlias();
        else
          parseFunction();
      }
    } catch (const ParseFailure &) {
      M.reset();
      return nullptr;
    }
    return std::move(M);
  }

private:
  // Placeholders for forward references must outlive the module: on failure
  // the module's instructions still point at them while it is destroyed.
  std::vector<std::unique_ptr<Instruction>> Placeholders;
  std::unique_ptr<Module> M;

  SourceManager &SM;
  FileId File;
  DiagnosticEngine &Diags;
  std::vector<Token> Toks;
  size_t Idx = 0;

  // Per-function state.
  Function *F = nullptr;
  BasicBlock *CurBB = nullptr;
  std::unordered_map<std::string, Value *> Values;
  struct ForwardRef {
    Instruction *Placeholder;
    size_t Offset;
  };
  std::unordered_map<std::string, ForwardRef> Forward;
  std::vector<std::string> ForwardOrder;
  struct BlockInfo {
    BasicBlock *BB;
    bool Defined;
    size_t Offset; ///< Definition, or first reference while undefined.
    /// BB's place in the function's block list (list iterators stay valid),
    /// so moving it to its definition's place needs no search.
    Function::BlockList::iterator Position;
  };
  std::unordered_map<std::string, BlockInfo> Blocks;
  std::vector<std::string> BlockOrder;
  /// Module-level layout aliases (#name = #kind<...>).
  std::unordered_map<std::string, const Layout *> LayoutAliases;

  const Token &cur() const { return Toks[Idx]; }
  const Token &peek(size_t Ahead = 1) const { return Toks[std::min(Idx + Ahead, Toks.size() - 1)]; }
  void advance() {
    if (Idx + 1 < Toks.size())
      ++Idx;
  }

  SourceLoc locAt(size_t Offset) const { return SM.getLoc(File, Offset); }
  uint32_t lineOf(const Token &T) const { return locAt(T.Offset).Line; }

  [[noreturn]] void failAt(size_t Offset, size_t Length, const std::string &Msg) {
    SourceLoc B = locAt(Offset);
    SourceLoc E = B;
    E.Col += static_cast<uint32_t>(std::max<size_t>(Length, 1));
    Diags.error(SourceRange(B, E), Msg);
    throw ParseFailure();
  }
  [[noreturn]] void fail(const std::string &Msg) {
    const Token &T = cur();
    if (T.Kind == Tok::Error)
      failAt(T.Offset, T.Length, T.Text);
    failAt(T.Offset, T.Length, Msg);
  }
  std::string describe(const Token &T) const {
    if (T.Kind == Tok::Eof)
      return "end of file";
    std::string Sigil = T.Kind == Tok::LocalName    ? "%"
                        : T.Kind == Tok::GlobalName ? "@"
                        : T.Kind == Tok::BlockRef   ? "^"
                        : T.Kind == Tok::AttrName   ? "#"
                                                    : "";
    return "'" + Sigil + T.Text + "'";
  }
  void expect(Tok K, const char *What) {
    if (cur().Kind != K)
      fail(std::string("expected ") + What + ", found " + describe(cur()));
    advance();
  }
  bool consumeIf(Tok K) {
    if (cur().Kind != K)
      return false;
    advance();
    return true;
  }
  bool isIdent(const char *S) const { return cur().Kind == Tok::Ident && cur().Text == S; }

  /// Parses an integer token as int64 (negative allowed).
  int64_t parseInt64(const char *What) {
    if (cur().Kind != Tok::Int)
      fail(std::string("expected ") + What + ", found " + describe(cur()));
    int64_t V = 0;
    const std::string &S = cur().Text;
    auto R = std::from_chars(S.data(), S.data() + S.size(), V);
    if (R.ec != std::errc() || R.ptr != S.data() + S.size())
      fail("integer '" + S + "' is out of range");
    advance();
    return V;
  }

  //===--------------------------------------------------------------------===//
  // Types
  //===--------------------------------------------------------------------===//

  static const Type *scalarTypeNamed(const std::string &S) {
    if (S == "void")
      return Type::getVoid();
    if (S == "i1")
      return Type::getInt(1);
    if (S == "i8")
      return Type::getInt(8);
    if (S == "i16")
      return Type::getInt(16);
    if (S == "i32")
      return Type::getInt(32);
    if (S == "i64")
      return Type::getInt(64);
    if (S == "f16")
      return Type::getF16();
    if (S == "bf16")
      return Type::getBF16();
    if (S == "f32")
      return Type::getF32();
    if (S == "f64")
      return Type::getF64();
    return nullptr;
  }
  bool atType() const { return cur().Kind == Tok::Ident && scalarTypeNamed(cur().Text); }

  /// TYPE := SCALAR '*'* ('<' INT (',' INT)* (',' LAYOUT)? '>')?
  ///        | 'smem' '<' (INT 'x')? TILE (',' LAYOUT)? '>' | 'tdesc' '<' TILE '>'
  const Type *parseType(bool AllowVoid = false) {
    if (isIdent("smem") || isIdent("tdesc"))
      return parseGpuType();
    if (cur().Kind != Tok::Ident || !scalarTypeNamed(cur().Text))
      fail("expected a type, found " + describe(cur()));
    const Type *T = scalarTypeNamed(cur().Text);
    size_t Start = cur().Offset;
    advance();
    while (cur().Kind == Tok::Star) {
      if (T->isVoid())
        failAt(Start, 4, "pointer to void is not a type");
      T = Type::getPointer(T);
      advance();
    }
    if (cur().Kind == Tok::Less) {
      if (T->isVoid())
        failAt(Start, 4, "tile of void is not a type");
      advance();
      Shape Dims;
      int64_t Elements = 1;
      const Layout *L = nullptr;
      size_t LayoutOffset = 0;
      do {
        if (cur().Kind == Tok::AttrName && !Dims.empty()) {
          LayoutOffset = cur().Offset;
          L = parseLayout();
          break;
        }
        size_t DimOffset = cur().Offset;
        int64_t D = parseInt64("a tile dimension");
        if (D <= 0)
          failAt(DimOffset, 1, "tile dimensions must be positive");
        if (D > (int64_t(1) << 40) / Elements)
          failAt(DimOffset, 1, "tile is too large");
        Elements *= D;
        Dims.push_back(D);
      } while (consumeIf(Tok::Comma));
      expect(Tok::Greater, "'>' after the tile dimensions");
      T = Type::getTile(T, Dims, L);
      if (L) {
        std::string Msg = checkLayoutOf(T);
        if (!Msg.empty())
          failAt(LayoutOffset, 1, Msg);
      }
      if (cur().Kind == Tok::Star)
        fail("pointers to tiles are not types; write a tile of pointers such as 'f32*<32>'");
    }
    if (T->isVoid() && !AllowVoid)
      failAt(Start, 4, "'void' is not allowed here");
    return T;
  }

  /// The GPU types: shared buffers and tensor descriptors.
  const Type *parseGpuType() {
    bool IsSmem = isIdent("smem");
    advance();
    expect(Tok::Less, IsSmem ? "'<' after 'smem'" : "'<' after 'tdesc'");
    int64_t Slots = 1;
    if (IsSmem && cur().Kind == Tok::Int) {
      size_t Offset = cur().Offset;
      Slots = parseInt64("the number of slots");
      if (Slots < 1 || Slots > 64)
        failAt(Offset, 1, "a shared buffer has 1 to 64 slots");
      if (!isIdent("x"))
        fail("expected 'x' after the number of slots, found " + describe(cur()));
      advance();
    }
    size_t TileOffset = cur().Offset;
    const Type *Tile = parseType();
    if (!Tile->isTile() || Tile->getLayout())
      failAt(TileOffset, 1,
             std::string("expected a layout-free tile type such as 'f16<64,32>' in '") +
                 (IsSmem ? "smem" : "tdesc") + "<...>'");
    const Layout *L = nullptr;
    size_t LayoutOffset = cur().Offset;
    if (IsSmem && consumeIf(Tok::Comma)) {
      LayoutOffset = cur().Offset;
      L = parseLayout();
    }
    expect(Tok::Greater, "'>'");
    if (!IsSmem)
      return Type::getTensorDesc(Tile->getScalarType(), Tile->getShape());
    const Type *T = Type::getSharedBuffer(Tile->getScalarType(), Tile->getShape(), L, Slots);
    std::string Msg = checkLayoutOf(T);
    if (!Msg.empty())
      failAt(LayoutOffset, 1, Msg);
    return T;
  }

  //===--------------------------------------------------------------------===//
  // Layouts
  //===--------------------------------------------------------------------===//

  /// '#' ALIAS '=' LAYOUT at module level.
  void parseLayoutAlias() {
    Token Name = cur();
    if (isLayoutKind(Name.Text))
      fail("'#" + Name.Text + "' is a layout kind; an alias needs another name");
    if (LayoutAliases.count(Name.Text))
      fail("redefinition of layout alias '#" + Name.Text + "'");
    advance();
    expect(Tok::Equal, "'=' after the layout alias");
    LayoutAliases[Name.Text] = parseLayout();
  }

  static bool isLayoutKind(const std::string &S) {
    return S == "blocked" || S == "mma" || S == "wgmma" || S == "slice" || S == "dot_op" ||
           S == "shared" || S == "linear";
  }

  /// LAYOUT := '#' ALIAS | '#' KIND '<' (KEY '=' (INT | '[' INT* ']' | LAYOUT))* '>'
  const Layout *parseLayout() {
    if (cur().Kind != Tok::AttrName)
      fail("expected a layout ('#name' or '#kind<...>'), found " + describe(cur()));
    Token KindTok = cur();
    advance();
    if (!isLayoutKind(KindTok.Text) || cur().Kind != Tok::Less) {
      auto It = LayoutAliases.find(KindTok.Text);
      if (It == LayoutAliases.end())
        failAt(KindTok.Offset, KindTok.Length + 1,
               "undefined layout '#" + KindTok.Text + "' (declare '#" + KindTok.Text +
                   " = #kind<...>' before the functions)");
      return It->second;
    }
    advance();
    struct Field {
      std::vector<int64_t> Ints;
      bool IsList = false;
      /// A list of lists ('[[0,1],[2,0]]', #linear's bases).
      std::vector<std::vector<int64_t>> Lists;
      const Layout *Nested = nullptr;
      size_t Offset = 0;
    };
    std::unordered_map<std::string, Field> Fields;
    if (cur().Kind != Tok::Greater) {
      do {
        if (cur().Kind != Tok::Ident)
          fail("expected a layout parameter name, found " + describe(cur()));
        std::string Key = cur().Text;
        Field F;
        F.Offset = cur().Offset;
        if (Fields.count(Key))
          fail("layout parameter '" + Key + "' given twice");
        advance();
        expect(Tok::Equal, "'=' after the layout parameter");
        if (cur().Kind == Tok::AttrName) {
          F.Nested = parseLayout();
        } else if (consumeIf(Tok::LBracket)) {
          F.IsList = true;
          if (cur().Kind == Tok::LBracket) {
            do {
              expect(Tok::LBracket, "'['");
              F.Lists.emplace_back();
              if (cur().Kind != Tok::RBracket)
                do
                  F.Lists.back().push_back(parseInt64("an integer"));
                while (consumeIf(Tok::Comma));
              expect(Tok::RBracket, "']'");
            } while (consumeIf(Tok::Comma));
          } else if (cur().Kind != Tok::RBracket) {
            do
              F.Ints.push_back(parseInt64("an integer"));
            while (consumeIf(Tok::Comma));
          }
          expect(Tok::RBracket, "']'");
        } else {
          F.Ints.push_back(parseInt64("an integer, a list '[...]' or a layout"));
        }
        Fields[Key] = F;
      } while (consumeIf(Tok::Comma));
    }
    size_t CloseOffset = cur().Offset;
    expect(Tok::Greater, "'>' at the end of the layout");

    const std::string &Kind = KindTok.Text;
    std::vector<std::string> Used;
    auto Get = [&](const char *Key, bool Optional = false) -> const Field * {
      auto It = Fields.find(Key);
      if (It == Fields.end()) {
        if (Optional)
          return nullptr;
        failAt(CloseOffset, 1, "#" + Kind + " needs parameter '" + Key + "'");
      }
      Used.push_back(Key);
      return &It->second;
    };
    auto List = [&](const char *Key) {
      const Field *F = Get(Key);
      if (!F->IsList)
        failAt(F->Offset, std::string(Key).size(), std::string("'") + Key + "' must be a list");
      std::vector<int32_t> V;
      for (int64_t X : F->Ints) {
        if (X < 0 || X > (int64_t(1) << 20))
          failAt(F->Offset, std::string(Key).size(),
                 std::string("'") + Key + "' has an out-of-range value");
        V.push_back(static_cast<int32_t>(X));
      }
      return V;
    };
    auto Bases = [&](const char *Key) {
      const Field *F = Get(Key);
      if (!F->IsList || !F->Ints.empty())
        failAt(F->Offset, std::string(Key).size(),
               std::string("'") + Key + "' must be a list of bases '[[...],...]'");
      std::vector<std::vector<int32_t>> V;
      for (const std::vector<int64_t> &B : F->Lists) {
        V.emplace_back();
        for (int64_t X : B) {
          if (X < 0 || X > (int64_t(1) << 20))
            failAt(F->Offset, std::string(Key).size(),
                   std::string("'") + Key + "' has an out-of-range value");
          V.back().push_back(static_cast<int32_t>(X));
        }
      }
      return V;
    };
    auto OrderList = [&](const char *Key) {
      std::vector<int32_t> V = List(Key);
      return std::vector<unsigned>(V.begin(), V.end());
    };
    auto Int = [&](const char *Key) -> int32_t {
      const Field *F = Get(Key);
      if (F->IsList || F->Nested || F->Ints.size() != 1 || F->Ints[0] < -1 ||
          F->Ints[0] > (int64_t(1) << 20))
        failAt(F->Offset, std::string(Key).size(),
               std::string("'") + Key + "' must be a small integer");
      return static_cast<int32_t>(F->Ints[0]);
    };
    auto Nested = [&](const char *Key) {
      const Field *F = Get(Key);
      if (!F->Nested)
        failAt(F->Offset, std::string(Key).size(), std::string("'") + Key + "' must be a layout");
      return F->Nested;
    };
    const Layout *L;
    if (Kind == "blocked")
      L = Layout::getBlocked(List("size_per_thread"), List("threads_per_warp"),
                             List("warps_per_cta"), OrderList("order"));
    else if (Kind == "linear") {
      auto Registers = Bases("register"), Lanes = Bases("lane");
      L = Layout::getLinear(std::move(Registers), std::move(Lanes), Bases("warp"));
    } else if (Kind == "mma")
      L = Layout::getMma(List("warps_per_cta"), List("instr_shape"));
    else if (Kind == "wgmma")
      L = Layout::getWgmma(List("warps_per_cta"), List("instr_shape"));
    else if (Kind == "slice") {
      int32_t Dim = Int("dim");
      L = Layout::getSlice(Dim, Nested("parent"));
    } else if (Kind == "dot_op") {
      int32_t Operand = Int("operand");
      const Layout *Parent = Nested("parent");
      L = Layout::getDotOperand(Operand, Parent, Int("k_width"));
    } else if (Get("swizzle", true)) {
      int32_t Bytes = Int("swizzle");
      L = Layout::getSharedSwizzle(Bytes, OrderList("order"));
    } else {
      int32_t Vec = Int("vec"), PerPhase = Int("per_phase"), MaxPhase = Int("max_phase");
      L = Layout::getShared(Vec, PerPhase, MaxPhase, OrderList("order"));
    }
    for (auto &[Key, F] : Fields)
      if (std::find(Used.begin(), Used.end(), Key) == Used.end())
        failAt(F.Offset, Key.size(), "unknown parameter '" + Key + "' of #" + Kind);
    std::string Msg = checkLayout(*L);
    if (!Msg.empty())
      failAt(KindTok.Offset, KindTok.Length + 1, Msg);
    return L;
  }

  //===--------------------------------------------------------------------===//
  // Values and blocks
  //===--------------------------------------------------------------------===//

  static std::string hintFor(const std::string &Name) { return isAllDigits(Name) ? "" : Name; }

  /// Records a definition of %Name; resolves forward references to it.
  void defineValue(const std::string &Name, Value *V, size_t Offset, size_t Length) {
    if (Values.count(Name))
      failAt(Offset, Length, "redefinition of value '%" + Name + "'");
    Values[Name] = V;
    V->setName(hintFor(Name));
    auto It = Forward.find(Name);
    if (It != Forward.end()) {
      It->second.Placeholder->replaceAllUsesWith(V);
      Forward.erase(It);
    }
  }

  Value *useValue(const Token &T) {
    auto It = Values.find(T.Text);
    if (It != Values.end())
      return It->second;
    auto FIt = Forward.find(T.Text);
    if (FIt != Forward.end())
      return FIt->second.Placeholder;
    // The placeholder's type is void: type rules are checked only after the
    // function's forward references are resolved.
    Placeholders.push_back(Instruction::create(Opcode::Phi, Type::getVoid(), {}));
    Forward[T.Text] = {Placeholders.back().get(), T.Offset};
    ForwardOrder.push_back(T.Text);
    return Placeholders.back().get();
  }

  BasicBlock *getBlock(const std::string &Name, size_t Offset) {
    auto It = Blocks.find(Name);
    if (It != Blocks.end())
      return It->second.BB;
    BasicBlock *BB = F->createBlock(Name);
    Blocks[Name] = {BB, false, Offset, std::prev(F->blocks().end())};
    BlockOrder.push_back(Name);
    return BB;
  }

  BasicBlock *parseBlockRef() {
    if (cur().Kind != Tok::BlockRef)
      fail("expected a block reference '^name', found " + describe(cur()));
    BasicBlock *BB = getBlock(cur().Text, cur().Offset);
    advance();
    return BB;
  }

  /// OPERAND := '%'name | TYPE LITERAL
  Value *parseOperand() {
    if (cur().Kind == Tok::LocalName) {
      Value *V = useValue(cur());
      advance();
      return V;
    }
    if (!atType())
      fail("expected an operand ('%name' or a typed constant such as 'i32 0'), found " +
           describe(cur()));
    size_t TypeOffset = cur().Offset;
    const Type *T = parseType();
    if (T->isTile())
      failAt(TypeOffset, 1, "constants are scalars; splat a scalar constant to get a tile");
    if (isIdent("undef")) {
      advance();
      return M->getUndef(T);
    }
    switch (T->getKind()) {
    case TypeKind::Int:
      return parseIntLiteral(T);
    case TypeKind::Float:
      return parseFloatLiteral(T);
    default:
      if (!isIdent("null"))
        fail("expected 'null' or 'undef' after pointer type " + T->str() + ", found " +
             describe(cur()));
      advance();
      return M->getNullPointer(T);
    }
  }

  Value *parseIntLiteral(const Type *T) {
    if (cur().Kind == Tok::Ident && T->getIntBits() == 1 &&
        (cur().Text == "true" || cur().Text == "false")) {
      bool B = cur().Text == "true";
      advance();
      return M->getBool(B);
    }
    if (cur().Kind != Tok::Int)
      fail("expected an integer literal for " + T->str() + ", found " + describe(cur()));
    const std::string &S = cur().Text;
    bool Neg = S[0] == '-';
    uint64_t Mag = 0;
    const char *B = S.data() + (Neg ? 1 : 0), *E = S.data() + S.size();
    auto R = std::from_chars(B, E, Mag);
    unsigned Bits = T->getIntBits();
    // Accept the signed and the unsigned range of the width.
    uint64_t MaxUnsigned = Bits == 64 ? ~uint64_t(0) : (uint64_t(1) << Bits) - 1;
    uint64_t MaxNegMag = uint64_t(1) << (Bits - 1);
    if (R.ec != std::errc() || R.ptr != E || (Neg ? Mag > MaxNegMag : Mag > MaxUnsigned))
      fail("integer literal '" + S + "' does not fit in " + T->str());
    int64_t V = Neg ? static_cast<int64_t>(0 - Mag) : static_cast<int64_t>(Mag);
    advance();
    return M->getInt(T, V);
  }

  Value *parseFloatLiteral(const Type *T) {
    size_t Offset = cur().Offset;
    bool Neg = consumeIf(Tok::Minus);
    if (cur().Kind == Tok::Ident && (cur().Text == "inf" || cur().Text == "nan")) {
      double V = cur().Text == "inf" ? std::numeric_limits<double>::infinity()
                                     : std::numeric_limits<double>::quiet_NaN();
      advance();
      return M->getFloat(T, Neg ? -V : V);
    }
    if (Neg || (cur().Kind != Tok::Int && cur().Kind != Tok::Float))
      fail("expected a floating-point literal for " + T->str() + ", found " + describe(cur()));
    const std::string &S = cur().Text;
    const char *B = S.data(), *E = S.data() + S.size();
    double V = 0;
    std::from_chars_result R;
    if (T->getFloatKind() == FloatKind::F32) {
      // Read f32 literals as float directly: reading a double and rounding
      // again could round twice.
      float FV = 0;
      R = std::from_chars(B, E, FV);
      V = FV;
    } else {
      R = std::from_chars(B, E, V);
    }
    if (R.ec != std::errc() || R.ptr != E)
      failAt(Offset, S.size(),
             "floating-point literal '" + S + "' is out of range for " + T->str());
    advance();
    return M->getFloat(T, V);
  }

  //===--------------------------------------------------------------------===//
  // Functions
  //===--------------------------------------------------------------------===//

  void parseArgAttributes(ArgAttributes &A, const Type *ArgType) {
    while (cur().Kind == Tok::Ident) {
      const Token &T = cur();
      if (T.Text == "noalias") {
        A.NoAlias = true;
      } else if (T.Text == "readonly") {
        A.ReadOnly = true;
      } else if (T.Text == "writeonly") {
        A.WriteOnly = true;
      } else if (T.Text == "nonnegative") {
        // A sign is a fact about signed integers (an i1 is 0 or -1).
        if (ArgType->getKind() != TypeKind::Int || ArgType->getIntBits() < 2)
          fail("nonnegative applies to integer arguments, not " + ArgType->str());
        A.NonNegative = true;
      } else if (T.Text == "evict_first" || T.Text == "evict_last") {
        EvictionPolicy P = T.Text == "evict_first" ? EvictionPolicy::First : EvictionPolicy::Last;
        if (A.Eviction != EvictionPolicy::Normal && A.Eviction != P)
          fail("an argument takes evict_first or evict_last, not both");
        A.Eviction = P;
      } else if (T.Text == "aligned" || T.Text == "multipleof") {
        bool Aligned = T.Text == "aligned";
        advance();
        expect(Tok::LParen, "'('");
        size_t Offset = cur().Offset;
        int64_t N = parseInt64("an integer");
        if (N <= 0)
          failAt(Offset, 1,
                 std::string(Aligned ? "aligned" : "multipleof") + " needs a positive integer");
        expect(Tok::RParen, "')'");
        (Aligned ? A.Aligned : A.MultipleOf) = N;
        continue;
      } else {
        fail("unknown argument attribute '" + T.Text + "'");
      }
      advance();
    }
  }

  void parseFunction() {
    if (!isIdent("define"))
      fail("expected 'define', found " + describe(cur()));
    advance();
    bool IsKernel = false;
    if (isIdent("kernel")) {
      IsKernel = true;
      advance();
    }
    const Type *RetTy = parseType(/*AllowVoid=*/true);
    if (cur().Kind != Tok::GlobalName)
      fail("expected a function name '@name', found " + describe(cur()));
    Token NameTok = cur();
    if (M->getFunction(NameTok.Text))
      fail("redefinition of function '@" + NameTok.Text + "'");
    advance();
    expect(Tok::LParen, "'('");

    struct ArgInfo {
      const Type *Ty;
      Token Name;
      ArgAttributes Attrs;
    };
    std::vector<ArgInfo> Args;
    if (cur().Kind != Tok::RParen) {
      do {
        ArgInfo A;
        A.Ty = parseType();
        if (cur().Kind != Tok::LocalName)
          fail("expected an argument name '%name', found " + describe(cur()));
        A.Name = cur();
        advance();
        parseArgAttributes(A.Attrs, A.Ty);
        Args.push_back(A);
      } while (consumeIf(Tok::Comma));
    }
    expect(Tok::RParen, "')' after the arguments");

    std::vector<const Type *> ArgTypes;
    for (auto &A : Args)
      ArgTypes.push_back(A.Ty);
    F = M->createFunction(NameTok.Text, RetTy, ArgTypes);
    F->attrs().IsKernel = IsKernel;
    Values.clear();
    Forward.clear();
    ForwardOrder.clear();
    Blocks.clear();
    BlockOrder.clear();
    CurBB = nullptr;
    for (unsigned I = 0; I < Args.size(); ++I) {
      F->getArg(I)->attrs() = Args[I].Attrs;
      defineValue(Args[I].Name.Text, F->getArg(I), Args[I].Name.Offset, Args[I].Name.Length);
    }

    expect(Tok::LBrace, "'{' to start the function body");
    while (cur().Kind != Tok::RBrace) {
      if (cur().Kind == Tok::Eof || cur().Kind == Tok::Error)
        fail("expected '}' at the end of function '@" + NameTok.Text + "', found " +
             describe(cur()));
      if ((cur().Kind == Tok::Ident || cur().Kind == Tok::Int) && peek().Kind == Tok::Colon) {
        parseLabel();
        continue;
      }
      if (!CurBB)
        fail("expected a block label ('name:') before the first instruction");
      parseInstruction();
    }
    size_t CloseOffset = cur().Offset;
    advance();
    finishFunction(CloseOffset);
  }

  void parseLabel() {
    const Token &T = cur();
    auto It = Blocks.find(T.Text);
    if (It != Blocks.end() && It->second.Defined)
      fail("redefinition of block '" + T.Text + "'");
    BasicBlock *BB = getBlock(T.Text, T.Offset);
    BlockInfo &Info = Blocks[T.Text];
    Info.Defined = true;
    Info.Offset = T.Offset;
    // Blocks created by forward references move to their definition's place.
    F->blocks().splice(F->blocks().end(), F->blocks(), Info.Position);
    CurBB = BB;
    advance();
    advance();
  }

  void finishFunction(size_t CloseOffset) {
    for (const std::string &Name : ForwardOrder) {
      auto It = Forward.find(Name);
      if (It != Forward.end())
        failAt(It->second.Offset, Name.size() + 1, "use of undefined value '%" + Name + "'");
    }
    for (const std::string &Name : BlockOrder)
      if (!Blocks[Name].Defined)
        failAt(Blocks[Name].Offset, Name.size() + 1, "use of undefined block '^" + Name + "'");
    if (F->blocks().empty())
      failAt(CloseOffset, 1, "function '@" + F->getName() + "' has no blocks");
    // Now every operand is known: check the type rules of each instruction.
    bool Failed = false;
    for (auto &BB : F->blocks())
      for (auto &I : BB->instructions()) {
        std::string Msg = checkInstructionTypes(*I);
        if (Msg.empty())
          continue;
        Diags.error(SourceRange(I->Loc), Msg);
        Failed = true;
      }
    if (Failed)
      throw ParseFailure();
  }

  //===--------------------------------------------------------------------===//
  // Instructions
  //===--------------------------------------------------------------------===//

  void parseInstruction() {
    size_t StartOffset = cur().Offset;
    Token ResultTok;
    bool HasResult = false;
    if (cur().Kind == Tok::LocalName) {
      ResultTok = cur();
      HasResult = true;
      advance();
      expect(Tok::Equal, "'=' after the result name");
    }
    if (cur().Kind != Tok::Ident)
      fail("expected an opcode, found " + describe(cur()));
    Token OpTok = cur();
    Opcode Op;
    if (!lookupOpcode(OpTok.Text, Op))
      fail("unknown opcode '" + OpTok.Text + "'");
    if (HasResult && isVoidOpcode(Op))
      fail("'" + OpTok.Text + "' produces no value; remove '%" + ResultTok.Text + " ='");
    if (!HasResult && !isVoidOpcode(Op))
      fail("'" + OpTok.Text + "' produces a value; write '%name = " + OpTok.Text + " ...'");
    advance();

    auto I = Instruction::create(Op, Type::getVoid(), {});
    I->Loc = locAt(StartOffset);
    switch (Op) {
    case Opcode::ICmp:
    case Opcode::FCmp: {
      CmpPredicate P;
      bool IsInt = Op == Opcode::ICmp;
      if (cur().Kind != Tok::Ident || !lookupPredicate(cur().Text, P) ||
          (IsInt != (P <= CmpPredicate::UGE)))
        fail(std::string("expected an ") + OpTok.Text + " predicate (" +
             (IsInt ? "eq ne slt sle sgt sge ult ule ugt uge" : "oeq one olt ole ogt oge une") +
             "), found " + describe(cur()));
      I->Predicate = P;
      advance();
      parseOperandList(*I);
      break;
    }
    case Opcode::Reduce:
    case Opcode::AtomicRMW: {
      ReduceKind K;
      bool IsReduce = Op == Opcode::Reduce;
      bool Ok = cur().Kind == Tok::Ident && lookupReduceKind(cur().Text, K);
      if (Ok && IsReduce)
        Ok = K != ReduceKind::And && K != ReduceKind::Or && K != ReduceKind::Xor &&
             K != ReduceKind::Xchg;
      if (Ok && !IsReduce)
        Ok = K != ReduceKind::FMax && K != ReduceKind::FMin;
      if (!Ok)
        fail(std::string("expected a ") + OpTok.Text + " kind (" +
             (IsReduce ? "add fadd smax smin umax umin fmax fmin"
                       : "add fadd smax smin umax umin and or xor xchg") +
             "), found " + describe(cur()));
      I->Reduction = K;
      advance();
      if (IsReduce) {
        I->addOperand(parseOperand());
        expect(Tok::Comma, "',' before the reduction axis");
        I->Axis = parseInt64("the reduction axis");
      } else {
        parseOperandList(*I);
      }
      break;
    }
    case Opcode::MakeRange:
      I->RangeStart = parseInt64("the range start");
      expect(Tok::Comma, "','");
      I->RangeEnd = parseInt64("the range end");
      break;
    case Opcode::GetProgramId:
    case Opcode::GetNumPrograms:
      I->Axis = parseInt64("the axis (0, 1 or 2)");
      break;
    case Opcode::Print:
    case Opcode::Assert:
      if (cur().Kind != Tok::String)
        fail(std::string("expected the ") + (Op == Opcode::Print ? "format" : "message") +
             " string, found " + describe(cur()));
      I->Text = cur().Text;
      advance();
      if (consumeIf(Tok::Comma))
        parseOperandList(*I);
      break;
    case Opcode::Phi:
      if (cur().Kind == Tok::LBracket) {
        do {
          expect(Tok::LBracket, "'['");
          Value *V = parseOperand();
          expect(Tok::Comma, "','");
          BasicBlock *From = parseBlockRef();
          expect(Tok::RBracket, "']'");
          I->addIncoming(V, From);
        } while (consumeIf(Tok::Comma));
      }
      break;
    case Opcode::Br:
    case Opcode::WarpJoin:
      I->addSuccessor(parseBlockRef());
      break;
    case Opcode::WarpSpecialize:
      // ^block warps(W) [registers(R)], one per partition.
      do {
        I->addSuccessor(parseBlockRef());
        WarpPartition P;
        if (!isIdent("warps"))
          fail("expected 'warps(N)' after the partition's block, found " + describe(cur()));
        advance();
        P.Warps = parseParenthesizedCount("the partition's warp count");
        if (isIdent("registers")) {
          advance();
          P.Registers = parseParenthesizedCount("the partition's register budget");
        }
        I->Partitions.push_back(P);
      } while (consumeIf(Tok::Comma));
      break;
    case Opcode::CondBr:
      I->addOperand(parseOperand());
      expect(Tok::Comma, "','");
      I->addSuccessor(parseBlockRef());
      expect(Tok::Comma, "','");
      I->addSuccessor(parseBlockRef());
      break;
    case Opcode::SmemAlloc:
    case Opcode::CpAsyncCommit:
    case Opcode::WgmmaFence:
    case Opcode::WgmmaCommit:
    case Opcode::FenceProxyAsync:
    case Opcode::FenceProxyAsyncGlobal:
    case Opcode::Barrier:
      break;
    case Opcode::CpAsyncWait:
    case Opcode::TmaStoreWait:
    case Opcode::WgmmaWait:
      I->Count = parseCount("the number of groups left in flight");
      if (Op == Opcode::TmaStoreWait && isIdent("writes") && lineOf(cur()) == lineOf(OpTok)) {
        advance();
        I->WaitsForWrites = true;
      }
      break;
    case Opcode::MbarrierArrive:
      parseOperandList(*I);
      if (isIdent("per_warp") && lineOf(cur()) == lineOf(OpTok)) {
        advance();
        I->PerWarp = true;
      }
      break;
    case Opcode::MbarrierInit:
    case Opcode::MbarrierExpectTx:
      I->addOperand(parseOperand());
      expect(Tok::Comma, "','");
      I->Count = parseCount(Op == Opcode::MbarrierInit ? "the arrival count" : "the byte count");
      break;
    case Opcode::MakeTensorDesc:
      I->addOperand(parseOperand());
      expect(Tok::Comma, "','");
      parseBracketedOperands(*I);
      expect(Tok::Comma, "','");
      parseBracketedOperands(*I);
      if (consumeIf(Tok::Comma)) // traversal strides
        parseBracketedOperands(*I);
      break;
    case Opcode::TmaLoad:
    case Opcode::TmaStore:
      I->addOperand(parseOperand());
      expect(Tok::Comma, "','");
      parseBracketedOperands(*I);
      expect(Tok::Comma, "','");
      I->addOperand(parseOperand());
      if (Op == Opcode::TmaLoad) {
        expect(Tok::Comma, "',' before the mbarrier");
        I->addOperand(parseOperand());
      }
      break;
    case Opcode::DescLoad:
    case Opcode::DescStore:
      I->addOperand(parseOperand());
      expect(Tok::Comma, "','");
      parseBracketedOperands(*I);
      if (Op == Opcode::DescStore) {
        expect(Tok::Comma, "',' before the stored value");
        I->addOperand(parseOperand());
      }
      break;
    case Opcode::Ret:
      // The operand, if any, is on the same line: the next line may start
      // with an instruction such as '%x = ...'.
      if (cur().Kind != Tok::RBrace && cur().Kind != Tok::Eof && lineOf(cur()) == lineOf(OpTok) &&
          !(peek().Kind == Tok::Colon))
        I->addOperand(parseOperand());
      break;
    default:
      parseOperandList(*I);
      break;
    }

    if (HasResult) {
      expect(Tok::Colon, "':' and the result type");
      I->mutateType(parseType());
      if (isIdent("multipleof")) {
        advance();
        expect(Tok::LParen, "'('");
        I->MultipleOf = parseInt64("an integer");
        if (I->MultipleOf <= 0)
          fail("multipleof needs a positive integer");
        expect(Tok::RParen, "')'");
      }
      if (Op == Opcode::SmemAlloc && isIdent("offset")) {
        advance();
        I->SharedOffset = parseParenthesizedCount("the shared-memory offset");
      }
    }
    Instruction *Raw = CurBB->append(std::move(I));
    if (HasResult)
      defineValue(ResultTok.Text, Raw, ResultTok.Offset, ResultTok.Length + 1);
  }

  /// A non-negative count attribute (groups, arrivals, bytes).
  int64_t parseCount(const char *What) {
    size_t Offset = cur().Offset;
    int64_t N = parseInt64(What);
    if (N < 0 || N > (int64_t(1) << 31))
      failAt(Offset, 1, std::string(What) + " must be between 0 and 2^31");
    return N;
  }

  /// '(' COUNT ')'
  int64_t parseParenthesizedCount(const char *What) {
    expect(Tok::LParen, "'('");
    int64_t N = parseCount(What);
    expect(Tok::RParen, "')'");
    return N;
  }

  /// '[' OPERAND (',' OPERAND)* ']'
  void parseBracketedOperands(Instruction &I) {
    expect(Tok::LBracket, "'['");
    parseOperandList(I);
    expect(Tok::RBracket, "']'");
  }

  void parseOperandList(Instruction &I) {
    do
      I.addOperand(parseOperand());
    while (consumeIf(Tok::Comma));
  }
};

} // namespace

std::unique_ptr<Module> parseIR(SourceManager &SM, FileId File, DiagnosticEngine &Diags) {
  try {
    Parser P(SM, File, Diags);
    return P.parse();
  } catch (const InternalError &E) {
    Diags.internal(E.what());
    return nullptr;
  }
}

} // namespace tritonc::ir
