//===- AST.cpp - Spellings of AST enumerations ----------------------------===//
#include "tritonc/lang/AST.h"

namespace tritonc::ast {

const char *baseTypeName(BaseType B) {
  switch (B) {
  case BaseType::Void:
    return "void";
  case BaseType::Bool:
    return "bool";
  case BaseType::Char:
    return "char";
  case BaseType::UChar:
    return "unsigned char";
  case BaseType::Short:
    return "short";
  case BaseType::UShort:
    return "unsigned short";
  case BaseType::Int:
    return "int";
  case BaseType::UInt:
    return "unsigned int";
  case BaseType::Long:
    return "long";
  case BaseType::ULong:
    return "unsigned long";
  case BaseType::Half:
    return "half";
  case BaseType::BFloat16:
    return "bfloat16";
  case BaseType::Float:
    return "float";
  case BaseType::Double:
    return "double";
  }
  return "?";
}

const char *binaryOpSpelling(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::Rem:
    return "%";
  case BinaryOp::Dot:
    return "@";
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Shl:
    return "<<";
  case BinaryOp::Shr:
    return ">>";
  case BinaryOp::LT:
    return "<";
  case BinaryOp::GT:
    return ">";
  case BinaryOp::LE:
    return "<=";
  case BinaryOp::GE:
    return ">=";
  case BinaryOp::EQ:
    return "==";
  case BinaryOp::NE:
    return "!=";
  case BinaryOp::BitAnd:
    return "&";
  case BinaryOp::BitXor:
    return "^";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::LogicalAnd:
    return "&&";
  case BinaryOp::LogicalOr:
    return "||";
  case BinaryOp::Comma:
    return ",";
  }
  return "?";
}

} // namespace tritonc::ast
