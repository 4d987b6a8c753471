//===- LexerTest.cpp - Triton-C lexer tests -------------------------------===//
#include "tritonc/lang/Lexer.h"

#include <gtest/gtest.h>

using namespace tritonc;

namespace {

class LexerTest : public ::testing::Test {
protected:
  SourceManager SM;
  DiagnosticEngine Diags{SM};

  std::vector<Token> lex(const std::string &Text, const std::string &Name = "t.tc") {
    FileId F = SM.addBuffer(Name, Text);
    return Lexer::lexAll(SM, F, Diags);
  }
  /// Kinds of all tokens except the final eof.
  std::vector<TokenKind> kinds(const std::vector<Token> &Toks) {
    std::vector<TokenKind> K;
    for (const Token &T : Toks)
      if (T.isNot(TokenKind::eof))
        K.push_back(T.Kind);
    return K;
  }
  std::vector<std::string> texts(const std::vector<Token> &Toks) {
    std::vector<std::string> S;
    for (const Token &T : Toks)
      if (T.isNot(TokenKind::eof))
        S.push_back(T.Text);
    return S;
  }
  /// The first line of the first diagnostic ("t.tc:1:2: error: ...").
  std::string firstDiag() {
    if (Diags.diagnostics().empty())
      return "";
    std::string S = Diags.format(Diags.diagnostics().front());
    return S.substr(0, S.find('\n'));
  }
};

using K = TokenKind;

TEST_F(LexerTest, IdentifiersAndKeywords) {
  auto T = lex("int foo __global__ _x1 newaxis __multipleof half bfloat16 __noalias");
  EXPECT_EQ(kinds(T),
            (std::vector<K>{K::kw_int, K::identifier, K::kw_global, K::identifier, K::kw_newaxis,
                            K::kw_multipleof, K::kw_half, K::kw_bfloat16, K::kw_noalias}));
  EXPECT_EQ(T[1].Text, "foo");
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(LexerTest, EveryPunctuatorLexesAlone) {
  struct P {
    const char *S;
    TokenKind Kind;
  };
  const P All[] = {
#define PUNCT(Name, Spelling) {Spelling, TokenKind::Name},
#include "tritonc/lang/TokenKinds.def"
  };
  for (const P &Punct : All) {
    auto T = lex(Punct.S);
    ASSERT_EQ(T.size(), 2u) << Punct.S;
    EXPECT_EQ(T[0].Kind, Punct.Kind) << Punct.S;
    EXPECT_EQ(T[0].Text, Punct.S);
  }
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(LexerTest, EveryKeywordLexesAlone) {
  struct P {
    const char *S;
    TokenKind Kind;
  };
  const P All[] = {
#define KEYWORD(Name, Spelling) {Spelling, TokenKind::kw_##Name},
#include "tritonc/lang/TokenKinds.def"
  };
  for (const P &Kw : All) {
    auto T = lex(Kw.S);
    ASSERT_EQ(T.size(), 2u) << Kw.S;
    EXPECT_EQ(T[0].Kind, Kw.Kind) << Kw.S;
  }
}

TEST_F(LexerTest, LongestPunctuatorWins) {
  auto T = lex("a<<=b>>=c->d...e..f##g#h+++i");
  EXPECT_EQ(texts(T),
            (std::vector<std::string>{"a", "<<=", "b", ">>=", "c", "->", "d", "...", "e", ".", ".",
                                      "f", "##", "g", "#", "h", "++", "+", "i"}));
}

TEST_F(LexerTest, IntegerLiterals) {
  auto T = lex("0 42 0x2A 0X2a 017 42u 42U 42l 42ul 42LU 42ll 42ull 7LLU");
  for (const Token &Tok : T) {
    if (Tok.isNot(K::eof)) {
      EXPECT_EQ(Tok.Kind, K::int_literal) << Tok.Text;
    }
  }
  EXPECT_EQ(texts(T), (std::vector<std::string>{"0", "42", "0x2A", "0X2a", "017", "42u", "42U",
                                                "42l", "42ul", "42LU", "42ll", "42ull", "7LLU"}));
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(LexerTest, FloatLiterals) {
  auto T = lex("1.0 .5 1e-3 1.0f 2.f 1E+5 3.e2 2.5e10F 7.");
  for (const Token &Tok : T) {
    if (Tok.isNot(K::eof)) {
      EXPECT_EQ(Tok.Kind, K::float_literal) << Tok.Text;
    }
  }
  EXPECT_EQ(texts(T), (std::vector<std::string>{"1.0", ".5", "1e-3", "1.0f", "2.f", "1E+5", "3.e2",
                                                "2.5e10F", "7."}));
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(LexerTest, RangeIsIntEllipsisIdentifier) {
  for (const char *Src : {"0 ... TM", "0...TM", "0 ...TM", "0... TM"}) {
    auto T = lex(Src);
    EXPECT_EQ(kinds(T), (std::vector<K>{K::int_literal, K::ellipsis, K::identifier})) << Src;
    EXPECT_EQ(T[0].Text, "0");
    EXPECT_EQ(T[2].Text, "TM");
  }
  auto T = lex("int rm[TM] = pm * TM + 0 ... TM;");
  EXPECT_EQ(kinds(T),
            (std::vector<K>{K::kw_int, K::identifier, K::l_square, K::identifier, K::r_square,
                            K::equal, K::identifier, K::star, K::identifier, K::plus,
                            K::int_literal, K::ellipsis, K::identifier, K::semi}));
  auto T2 = lex("16...32");
  EXPECT_EQ(texts(T2), (std::vector<std::string>{"16", "...", "32"}));
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(LexerTest, CharAndStringLiterals) {
  auto T = lex(R"('a' '\n' '\'' '\\' '\x41' '\0' "f.h" "a\"b")");
  EXPECT_EQ(kinds(T), (std::vector<K>{K::char_literal, K::char_literal, K::char_literal,
                                      K::char_literal, K::char_literal, K::char_literal,
                                      K::string_literal, K::string_literal}));
  EXPECT_EQ(T[0].Text, "'a'");
  EXPECT_EQ(T[6].Text, "\"f.h\"");
  EXPECT_EQ(T[7].Text, R"("a\"b")");
  EXPECT_EQ(charLiteralValue(T[0].Text), 97u);
  EXPECT_EQ(charLiteralValue(T[1].Text), 10u);
  EXPECT_EQ(charLiteralValue(T[2].Text), 39u);
  EXPECT_EQ(charLiteralValue(T[3].Text), 92u);
  EXPECT_EQ(charLiteralValue(T[4].Text), 65u);
  EXPECT_EQ(charLiteralValue(T[5].Text), 0u);
  EXPECT_EQ(charLiteralValue("'ab'"), std::nullopt);
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(LexerTest, HeaderNameAfterInclude) {
  auto T = lex("#include <dir/a-b.h>\n# include \"q.h\"\na < b > c\n#include<x.h>");
  EXPECT_EQ(texts(T),
            (std::vector<std::string>{"#", "include", "<dir/a-b.h>", "#", "include", "\"q.h\"", "a",
                                      "<", "b", ">", "c", "#", "include", "<x.h>"}));
  EXPECT_EQ(T[2].Kind, K::string_literal);
  EXPECT_EQ(T[7].Kind, K::less);
}

TEST_F(LexerTest, CommentsAreWhitespace) {
  auto T = lex("a// line comment\nb/* block\n comment */c /**/d");
  EXPECT_EQ(texts(T), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_TRUE(T[1].AtStartOfLine);
  EXPECT_FALSE(T[1].HasLeadingSpace);
  // A block comment spanning lines does not start a new line.
  EXPECT_FALSE(T[2].AtStartOfLine);
  EXPECT_TRUE(T[2].HasLeadingSpace);
  EXPECT_TRUE(T[3].HasLeadingSpace);
  EXPECT_EQ(T[3].Loc.Line, 3u);
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(LexerTest, LineContinuation) {
  auto T = lex("in\\\nt x = 1 \\\n + 2;\n// comment \\\n still comment\ny");
  EXPECT_EQ(texts(T), (std::vector<std::string>{"int", "x", "=", "1", "+", "2", ";", "y"}));
  EXPECT_EQ(T[0].Kind, K::kw_int);
  EXPECT_FALSE(T[4].AtStartOfLine);
  EXPECT_EQ(T[4].Loc.Line, 3u);
  EXPECT_EQ(T[4].Loc.Col, 2u);
  EXPECT_TRUE(T[7].AtStartOfLine);
  EXPECT_EQ(T[7].Loc.Line, 6u);
  // Windows line endings continue lines too.
  auto W = lex("a \\\r\n b\r\nc");
  EXPECT_FALSE(W[1].AtStartOfLine);
  EXPECT_TRUE(W[2].AtStartOfLine);
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(LexerTest, LocationsAndFlags) {
  auto T = lex("int a;\n  \tfoo(b)\n\n x");
  ASSERT_EQ(T.size(), 9u);
  EXPECT_EQ(T[0].Loc.Line, 1u);
  EXPECT_EQ(T[0].Loc.Col, 1u);
  EXPECT_TRUE(T[0].AtStartOfLine);
  EXPECT_FALSE(T[0].HasLeadingSpace);
  EXPECT_EQ(T[1].Loc.Col, 5u);
  EXPECT_TRUE(T[1].HasLeadingSpace);
  EXPECT_FALSE(T[1].AtStartOfLine);
  EXPECT_EQ(T[2].Loc.Col, 6u);
  EXPECT_FALSE(T[2].HasLeadingSpace);
  EXPECT_EQ(T[3].Text, "foo");
  EXPECT_EQ(T[3].Loc.Line, 2u);
  EXPECT_EQ(T[3].Loc.Col, 4u); // a tab counts as one column
  EXPECT_TRUE(T[3].AtStartOfLine);
  EXPECT_TRUE(T[3].HasLeadingSpace);
  EXPECT_EQ(T[4].Loc.Col, 7u);
  EXPECT_EQ(T[7].Text, "x");
  EXPECT_EQ(T[7].Loc.Line, 4u);
  EXPECT_EQ(T[7].Loc.Col, 2u);
  EXPECT_EQ(T[8].Kind, K::eof);
  EXPECT_EQ(SM.getName(T[7].Loc.File), "t.tc");
}

struct LexErrorCase {
  const char *Source;
  const char *Expected;    ///< First line of the first diagnostic.
  const char *TokensAfter; ///< Spellings of the tokens, space-separated.
};

class LexerErrorTest : public LexerTest, public ::testing::WithParamInterface<LexErrorCase> {};

TEST_P(LexerErrorTest, ReportsAndContinues) {
  const LexErrorCase &C = GetParam();
  auto T = lex(C.Source);
  EXPECT_EQ(firstDiag(), C.Expected);
  EXPECT_EQ(Diags.numErrors(), 1u) << Diags.formatAll();
  std::string Joined;
  for (const std::string &S : texts(T))
    Joined += (Joined.empty() ? "" : " ") + S;
  EXPECT_EQ(Joined, C.TokensAfter);
}

INSTANTIATE_TEST_SUITE_P(
    Errors, LexerErrorTest,
    ::testing::Values(
        LexErrorCase{"a $ b", "t.tc:1:3: error: invalid character '$' in source", "a b"},
        LexErrorCase{"x = `y;", "t.tc:1:5: error: invalid character '`' in source", "x = y ;"},
        LexErrorCase{"a \\ b", "t.tc:1:3: error: invalid character '\\' in source", "a b"},
        LexErrorCase{"a \x01 b", "t.tc:1:3: error: invalid character '\\x01' in source", "a b"},
        LexErrorCase{"a \xc3\xa9 b", "t.tc:1:3: error: non-ASCII character in source", "a b"},
        LexErrorCase{"a /* never closed\n b", "t.tc:1:3: error: unterminated /* comment", "a"},
        LexErrorCase{"c = 'a;\nd", "t.tc:1:5: error: unterminated character literal",
                     "c = '\\0' d"},
        LexErrorCase{"c = '';", "t.tc:1:5: error: empty character literal", "c = '\\0' ;"},
        LexErrorCase{"c = 'ab';",
                     "t.tc:1:5: error: character literal must contain exactly one character",
                     "c = '\\0' ;"},
        LexErrorCase{"c = '\\q';",
                     "t.tc:1:5: error: unknown escape sequence '\\q' in character literal",
                     "c = '\\0' ;"},
        LexErrorCase{"s = \"abc\nx", "t.tc:1:5: error: unterminated string literal",
                     "s = \"abc\" x"},
        LexErrorCase{"n = 0x;", "t.tc:1:5: error: hexadecimal literal has no digits", "n = 0 ;"},
        LexErrorCase{"n = 1e;", "t.tc:1:6: error: exponent has no digits", "n = 0.0 ;"},
        LexErrorCase{"n = 1e+;", "t.tc:1:6: error: exponent has no digits", "n = 0.0 ;"},
        LexErrorCase{"n = 09;", "t.tc:1:5: error: invalid digit '9' in octal literal", "n = 0 ;"},
        LexErrorCase{"n = 12abc;", "t.tc:1:7: error: invalid suffix 'abc' on integer literal",
                     "n = 0 ;"},
        LexErrorCase{"n = 1.5q;", "t.tc:1:8: error: invalid suffix 'q' on floating-point literal",
                     "n = 0.0 ;"}));

TEST_F(LexerTest, ErrorRangesUnderlineTheLiteral) {
  lex("n = 0x;");
  EXPECT_EQ(Diags.formatAll(), "t.tc:1:5: error: hexadecimal literal has no digits\n"
                               "  n = 0x;\n"
                               "      ^~\n");
}

TEST_F(LexerTest, SeveralErrorsInOneBuffer) {
  auto T = lex("a $ b\n` c 0x\n");
  EXPECT_EQ(Diags.numErrors(), 3u);
  EXPECT_EQ(texts(T), (std::vector<std::string>{"a", "b", "c", "0"}));
}

TEST_F(LexerTest, DiagnosticsCanBeSwitchedOff) {
  FileId F = SM.addBuffer("t.tc", "$ x");
  Lexer L(SM, F, &Diags);
  L.setDiagnosticsEnabled(false);
  EXPECT_EQ(L.lex().Text, "x");
  EXPECT_TRUE(L.hadError());
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(LexerTest, RestOfLineHelpers) {
  FileId F = SM.addBuffer("t.tc", "a b /* x\n y */ c\nd e\nf // g\nh");
  Lexer L(SM, F, &Diags);
  EXPECT_EQ(L.lex().Text, "a");
  auto Rest = L.lexRestOfLine();
  ASSERT_EQ(Rest.size(), 2u); // the block comment does not end the line
  EXPECT_EQ(Rest[1].Text, "c");
  EXPECT_TRUE(L.atStartOfLineOrEnd());
  EXPECT_EQ(L.lex().Text, "d");
  EXPECT_EQ(L.readRestOfLineRaw(), "e");
  Token Fx = L.lex();
  EXPECT_EQ(Fx.Text, "f");
  EXPECT_TRUE(Fx.AtStartOfLine);
  EXPECT_EQ(L.readRestOfLineRaw(), "");
  Token H = L.lex();
  EXPECT_EQ(H.Text, "h");
  EXPECT_TRUE(H.AtStartOfLine);
  EXPECT_TRUE(L.lex().is(K::eof));
}

TEST_F(LexerTest, SingleTokenCheck) {
  Token T;
  EXPECT_TRUE(Lexer::lexSingleToken("ab", T));
  EXPECT_EQ(T.Kind, K::identifier);
  EXPECT_TRUE(Lexer::lexSingleToken("+=", T));
  EXPECT_EQ(T.Kind, K::plusequal);
  EXPECT_TRUE(Lexer::lexSingleToken("12u", T));
  EXPECT_FALSE(Lexer::lexSingleToken("a+", T));
  EXPECT_FALSE(Lexer::lexSingleToken("//", T));
  EXPECT_FALSE(Lexer::lexSingleToken("", T));
  EXPECT_FALSE(Lexer::lexSingleToken("0x", T));
}

TEST_F(LexerTest, ParseIntegerLiteral) {
  bool U = false;
  EXPECT_EQ(parseIntegerLiteral("42"), 42u);
  EXPECT_EQ(parseIntegerLiteral("0x2A"), 42u);
  EXPECT_EQ(parseIntegerLiteral("052"), 42u);
  EXPECT_EQ(parseIntegerLiteral("0"), 0u);
  EXPECT_EQ(parseIntegerLiteral("42ul", &U), 42u);
  EXPECT_TRUE(U);
  EXPECT_EQ(parseIntegerLiteral("42l", &U), 42u);
  EXPECT_FALSE(U);
  EXPECT_EQ(parseIntegerLiteral("18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(parseIntegerLiteral("18446744073709551616"), std::nullopt);
  EXPECT_EQ(parseIntegerLiteral("0x"), std::nullopt);
  EXPECT_EQ(parseIntegerLiteral("09"), std::nullopt);
}

TEST(TokenKindNameTest, Names) {
  EXPECT_STREQ(tokenKindName(TokenKind::identifier), "identifier");
  EXPECT_STREQ(tokenKindName(TokenKind::eof), "end of file");
  EXPECT_STREQ(tokenKindName(TokenKind::int_literal), "integer literal");
  EXPECT_STREQ(tokenKindName(TokenKind::kw_for), "'for'");
  EXPECT_STREQ(tokenKindName(TokenKind::kw_global), "'__global__'");
  EXPECT_STREQ(tokenKindName(TokenKind::plusequal), "'+='");
  EXPECT_STREQ(tokenKindName(TokenKind::ellipsis), "'...'");
}

} // namespace
