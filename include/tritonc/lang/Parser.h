//===- Parser.h - Triton-C parser -------------------------------*- C++ -*-===//
//
// Recursive-descent parser from preprocessed tokens to the AST of AST.h.
//
// Grammar notes that differ from C:
//  * `@` (matrix product) has the precedence of `*`.
//  * `^x` in prefix position is a transpose; `a ^ b` stays exclusive-or.
//  * `*?(mask) p` is a masked dereference at the level of unary operators.
//  * `lo ... hi` binds tighter than `*` and `+` but looser than unary
//    operators and casts, and does not chain: `pid * TM + 0 ... TM` is
//    `(pid * TM) + (0 ... TM)` and `-1 ... N` is `(-1) ... N`.
//  * Tile declarators `name[e1, e2]` and subscripts made of `:`, `newaxis`
//    and reductions (`+`, `max`, `min`).
//  * Every `*` of a declaration statement belongs to its declarator:
//    `int *p, q;` declares one pointer. The parser leaves
//    DeclStmt::Type.PointerDepth at 0 and records the stars in
//    Declarator::ExtraPointerDepth.
//  * A `restrict` qualifier on a pointer (`float *restrict p`) or after a
//    parameter name sets TypeSpec::IsRestrict and adds a Restrict attribute.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/lang/AST.h"
#include "tritonc/lang/Token.h"
#include "tritonc/support/Diagnostics.h"

#include <memory>
#include <string>
#include <vector>

namespace tritonc {

/// Parses a whole translation unit. Never returns null; on errors the tree is
/// partial and Diags has errors. Parsing stops early once the error limit of
/// Diags is reached. Tokens normally end with an eof token (one is assumed if
/// missing).
std::unique_ptr<ast::TranslationUnit> parseTranslationUnit(const std::vector<Token> &Tokens,
                                                           DiagnosticEngine &Diags);

/// Renders the tree as deterministic S-expression-like text: one line per
/// statement (indented by nesting), expressions inline in prefix form, e.g.
/// `(decl int (var rm [TM] = (+ (* pid TM) (... 0 TM))))`.
std::string dumpAST(const ast::TranslationUnit &TU);

/// Renders one expression the way dumpAST does (for tests and debugging).
std::string dumpExpr(const ast::Expr &E);

/// The spelling of a parameter attribute: "__aligned(16)", "restrict".
std::string attributeSpelling(const ast::Attribute &A);

/// The C spelling of a type specifier: "const float*", "unsigned int".
std::string typeSpecToString(const ast::TypeSpec &T);

} // namespace tritonc
