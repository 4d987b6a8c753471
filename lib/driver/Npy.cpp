//===- Npy.cpp - Reading and writing NumPy .npy files ---------------------===//
//
// Format (numpy/lib/format.py documents it): the magic "\x93NUMPY", a major
// and a minor version byte, the header length (2 bytes little-endian for
// 1.0, 4 bytes for 2.0 and 3.0), then the header: a Python dict literal with
// the keys 'descr', 'fortran_order' and 'shape', padded with spaces and a
// newline; then the raw element bytes.
//
//===----------------------------------------------------------------------===//

#include "tritonc/driver/Npy.h"

#include "tritonc/support/FileIO.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>

namespace tritonc::driver {

namespace {

struct DTypeInfo {
  DType Type;
  const char *Name;
  const char *Descr;
  char Kind; ///< NumPy kind character: 'f', 'i', 'u' or 'b'.
  size_t Size;
};

constexpr DTypeInfo DTypeTable[] = {
    {DType::F16, "float16", "<f2", 'f', 2}, {DType::F32, "float32", "<f4", 'f', 4},
    {DType::F64, "float64", "<f8", 'f', 8}, {DType::I8, "int8", "|i1", 'i', 1},
    {DType::I16, "int16", "<i2", 'i', 2},   {DType::I32, "int32", "<i4", 'i', 4},
    {DType::I64, "int64", "<i8", 'i', 8},   {DType::U8, "uint8", "|u1", 'u', 1},
    {DType::U16, "uint16", "<u2", 'u', 2},  {DType::U32, "uint32", "<u4", 'u', 4},
    {DType::U64, "uint64", "<u8", 'u', 8},  {DType::Bool, "bool", "|b1", 'b', 1},
};

const DTypeInfo &info(DType T) { return DTypeTable[static_cast<size_t>(T)]; }

constexpr char Magic[] = "\x93NUMPY";
constexpr size_t MagicLen = 6;
/// numpy aligns the start of the data to this many bytes.
constexpr size_t HeaderAlign = 64;

/// Header text for a message: bytes outside printable ASCII become \xNN so
/// that a corrupt file cannot put control bytes or invalid UTF-8 on the
/// user's terminal.
std::string printable(std::string_view S) {
  static const char Hex[] = "0123456789abcdef";
  std::string Out;
  for (char C : S) {
    auto U = static_cast<unsigned char>(C);
    if (U >= 0x20 && U < 0x7f) {
      Out += C;
    } else {
      Out += "\\x";
      Out += Hex[U >> 4];
      Out += Hex[U & 15];
    }
  }
  return Out;
}

/// A value of the header dict: a string, a bool or a tuple of integers.
struct HeaderValue {
  enum Kind { String, Bool, Tuple, Other } K = Other;
  std::string Str;
  bool B = false;
  std::vector<int64_t> Ints;
};

/// Parses the Python dict literal of a .npy header. Only the subset numpy
/// writes is accepted; anything else (a structured dtype's list, say) is
/// reported as unsupported rather than misread.
class HeaderParser {
public:
  explicit HeaderParser(std::string_view Text) : Text(Text) {}

  bool parse(std::map<std::string, HeaderValue> &Out, std::string &Error) {
    skipSpace();
    if (!consume('{'))
      return fail("header is not a Python dict", Error);
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::string Key;
      if (!parseString(Key))
        return fail("header dict has a key that is not a string", Error);
      skipSpace();
      if (!consume(':'))
        return fail("header dict is missing ':' after '" + printable(Key) + "'", Error);
      skipSpace();
      HeaderValue V;
      if (!parseValue(V, Error)) {
        if (Error.empty())
          Error = "header has an unsupported value for '" + printable(Key) + "'";
        return false;
      }
      if (Out.count(Key))
        return fail("header repeats the key '" + printable(Key) + "'", Error);
      Out[Key] = std::move(V);
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume('}'))
        break;
      return fail("header dict is malformed", Error);
    }
    skipSpace();
    if (Pos != Text.size())
      return fail("header has text after the dict", Error);
    return true;
  }

private:
  bool fail(const std::string &Msg, std::string &Error) {
    Error = Msg;
    return false;
  }
  void skipSpace() {
    while (Pos < Text.size() && std::isspace(static_cast<unsigned char>(Text[Pos])))
      ++Pos;
  }
  bool consume(char C) {
    if (Pos < Text.size() && Text[Pos] == C) {
      ++Pos;
      return true;
    }
    return false;
  }
  bool parseString(std::string &Out) {
    if (Pos >= Text.size() || (Text[Pos] != '\'' && Text[Pos] != '"'))
      return false;
    char Quote = Text[Pos++];
    while (Pos < Text.size() && Text[Pos] != Quote) {
      // numpy never escapes anything in the keys and dtypes we accept.
      if (Text[Pos] == '\\')
        return false;
      Out += Text[Pos++];
    }
    return consume(Quote);
  }
  bool parseInt(int64_t &Out) {
    size_t Start = Pos;
    uint64_t V = 0;
    while (Pos < Text.size() && std::isdigit(static_cast<unsigned char>(Text[Pos]))) {
      unsigned D = static_cast<unsigned>(Text[Pos] - '0');
      if (V > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - D) / 10)
        return false;
      V = V * 10 + D;
      ++Pos;
    }
    if (Pos == Start)
      return false;
    // Python 2 wrote long integers with an L suffix.
    consume('L');
    Out = static_cast<int64_t>(V);
    return true;
  }
  bool parseValue(HeaderValue &V, std::string &Error) {
    if (Pos < Text.size() && (Text[Pos] == '\'' || Text[Pos] == '"')) {
      V.K = HeaderValue::String;
      return parseString(V.Str);
    }
    if (Text.substr(Pos, 4) == "True") {
      Pos += 4;
      V.K = HeaderValue::Bool;
      V.B = true;
      return true;
    }
    if (Text.substr(Pos, 5) == "False") {
      Pos += 5;
      V.K = HeaderValue::Bool;
      V.B = false;
      return true;
    }
    if (consume('(')) {
      V.K = HeaderValue::Tuple;
      while (true) {
        skipSpace();
        if (consume(')'))
          return true;
        int64_t I;
        if (!parseInt(I)) {
          Error = "header has a shape that is not a tuple of non-negative integers";
          return false;
        }
        V.Ints.push_back(I);
        skipSpace();
        if (consume(','))
          continue;
        skipSpace();
        if (consume(')'))
          return true;
        Error = "header has a malformed shape tuple";
        return false;
      }
    }
    if (Pos < Text.size() && Text[Pos] == '[') {
      Error = "structured dtypes are not supported";
      return false;
    }
    return false;
  }

  std::string_view Text;
  size_t Pos = 0;
};

std::string supportedList() {
  std::string S;
  for (const DTypeInfo &I : DTypeTable) {
    if (!S.empty())
      S += ' ';
    S += I.Descr;
  }
  return S;
}

/// Maps a descriptor ('<f4', '|b1', '?', ...) to a dtype.
bool parseDescr(const std::string &Descr, DType &Out, std::string &Error) {
  if (Descr == "?" || Descr == "b1") {
    Out = DType::Bool;
    return true;
  }
  std::string_view D = Descr;
  char Order = '=';
  if (!D.empty() && std::strchr("<>|=", D[0])) {
    Order = D[0];
    D.remove_prefix(1);
  }
  if (D == "?")
    D = "b1";
  if (D.size() >= 2) {
    char Kind = D[0];
    std::string_view SizeText = D.substr(1);
    for (const DTypeInfo &I : DTypeTable) {
      if (I.Kind != Kind || SizeText != std::to_string(I.Size))
        continue;
      // Single-byte types have no byte order; '=' is native, and this
      // reader only runs on little-endian hosts (x86-64, AArch64).
      if (Order == '>' && I.Size > 1) {
        Error = "big-endian dtype '" + printable(Descr) +
                "' is not supported; convert it with arr.astype('" + I.Descr + "')";
        return false;
      }
      Out = I.Type;
      return true;
    }
  }
  Error = "unsupported dtype '" + printable(Descr) + "' (supported: " + supportedList() + ")";
  return false;
}

uint32_t readLE(std::string_view Bytes, size_t Offset, size_t N) {
  uint32_t V = 0;
  for (size_t I = 0; I < N; ++I)
    V |= static_cast<uint32_t>(static_cast<unsigned char>(Bytes[Offset + I])) << (8 * I);
  return V;
}

} // namespace

const char *dtypeName(DType T) { return info(T).Name; }
const char *dtypeDescr(DType T) { return info(T).Descr; }
size_t dtypeSize(DType T) { return info(T).Size; }

bool lookupDTypeName(std::string_view Name, DType &Out) {
  for (const DTypeInfo &I : DTypeTable) {
    if (Name == I.Name) {
      Out = I.Type;
      return true;
    }
  }
  return false;
}

size_t NpyArray::numElements() const {
  size_t N = 1;
  for (int64_t D : Shape)
    N *= static_cast<size_t>(D);
  return N;
}

std::string NpyArray::shapeString() const {
  std::string S = "(";
  for (size_t I = 0; I < Shape.size(); ++I) {
    if (I)
      S += ", ";
    S += std::to_string(Shape[I]);
  }
  if (Shape.size() == 1)
    S += ",";
  return S + ")";
}

namespace {
/// What a .npy header declares: the element type and shape, where the data
/// starts and how many bytes it takes.
struct NpyLayout {
  DType Type;
  std::vector<int64_t> Shape;
  size_t DataStart = 0;
  size_t NumBytes = 0;
};

/// The bytes before the header text: magic, version, header length.
constexpr size_t MaxPrefixLen = MagicLen + 2 + 4;

/// Parses the prefix and header at the start of Bytes (the data may be
/// missing: readNpyFile checks the declared size before reading it).
bool parseNpyLayout(std::string_view Bytes, NpyLayout &L, std::string &Error) {
  if (Bytes.size() < MagicLen || Bytes.substr(0, MagicLen) != std::string_view(Magic, MagicLen)) {
    Error = "not a .npy file (bad magic string)";
    return false;
  }
  if (Bytes.size() < MagicLen + 2) {
    Error = "truncated .npy file (no version)";
    return false;
  }
  unsigned Major = static_cast<unsigned char>(Bytes[MagicLen]);
  unsigned Minor = static_cast<unsigned char>(Bytes[MagicLen + 1]);
  if (Major < 1 || Major > 3 || Minor != 0) {
    Error = "unsupported .npy format version " + std::to_string(Major) + "." +
            std::to_string(Minor) + " (supported: 1.0, 2.0, 3.0)";
    return false;
  }
  size_t LenBytes = Major == 1 ? 2 : 4;
  size_t HeaderStart = MagicLen + 2 + LenBytes;
  if (Bytes.size() < HeaderStart) {
    Error = "truncated .npy file (no header length)";
    return false;
  }
  size_t HeaderLen = readLE(Bytes, MagicLen + 2, LenBytes);
  if (Bytes.size() - HeaderStart < HeaderLen) {
    Error = "truncated .npy file (header is cut short)";
    return false;
  }
  std::string_view Header = Bytes.substr(HeaderStart, HeaderLen);

  std::map<std::string, HeaderValue> Dict;
  std::string HeaderError;
  if (!HeaderParser(Header).parse(Dict, HeaderError)) {
    Error = "malformed .npy header: " + HeaderError;
    return false;
  }
  for (const auto &[Key, Value] : Dict) {
    if (Key != "descr" && Key != "fortran_order" && Key != "shape") {
      Error = "malformed .npy header: unexpected key '" + printable(Key) + "'";
      return false;
    }
  }
  auto Descr = Dict.find("descr");
  auto Fortran = Dict.find("fortran_order");
  auto ShapeIt = Dict.find("shape");
  if (Descr == Dict.end() || Fortran == Dict.end() || ShapeIt == Dict.end()) {
    Error = "malformed .npy header: it needs the keys 'descr', 'fortran_order' and 'shape'";
    return false;
  }
  if (Descr->second.K != HeaderValue::String) {
    Error = "unsupported dtype: structured dtypes are not supported";
    return false;
  }
  if (Fortran->second.K != HeaderValue::Bool) {
    Error = "malformed .npy header: 'fortran_order' is not True or False";
    return false;
  }
  if (ShapeIt->second.K != HeaderValue::Tuple) {
    Error = "malformed .npy header: 'shape' is not a tuple";
    return false;
  }
  DType Type;
  if (!parseDescr(Descr->second.Str, Type, Error))
    return false;
  if (Fortran->second.B) {
    Error = "arrays in Fortran order are not supported; save a C-order array "
            "(numpy.ascontiguousarray)";
    return false;
  }

  // Checked product: a hostile header must not overflow the size.
  const std::vector<int64_t> &Shape = ShapeIt->second.Ints;
  size_t Size = dtypeSize(Type);
  bool Empty = false;
  for (int64_t D : Shape)
    Empty |= D == 0;
  size_t NumBytes = 0;
  if (!Empty) {
    NumBytes = Size;
    for (int64_t D : Shape) {
      if (static_cast<uint64_t>(D) > std::numeric_limits<size_t>::max() / NumBytes) {
        Error = "array shape " + NpyArray{Type, Shape, {}}.shapeString() + " is too large";
        return false;
      }
      NumBytes *= static_cast<size_t>(D);
    }
  }
  L.Type = Type;
  L.Shape = Shape;
  L.DataStart = HeaderStart + HeaderLen;
  L.NumBytes = NumBytes;
  return true;
}
} // namespace

bool parseNpy(std::string_view Bytes, NpyArray &Out, std::string &Error) {
  NpyLayout L;
  if (!parseNpyLayout(Bytes, L, Error))
    return false;
  DType Type = L.Type;
  const std::vector<int64_t> &Shape = L.Shape;
  size_t DataStart = L.DataStart;
  size_t NumBytes = L.NumBytes;
  size_t Available = Bytes.size() - DataStart;
  if (Available < NumBytes) {
    Error = "truncated .npy file: shape " + NpyArray{Type, Shape, {}}.shapeString() + " of " +
            dtypeName(Type) + " needs " + std::to_string(NumBytes) + " data bytes, found " +
            std::to_string(Available);
    return false;
  }
  if (Available > NumBytes) {
    Error = "malformed .npy file: " + std::to_string(Available - NumBytes) +
            " bytes of unexpected data after the array";
    return false;
  }
  Out.Type = Type;
  Out.Shape = Shape;
  Out.Data.assign(Bytes.begin() + static_cast<std::ptrdiff_t>(DataStart), Bytes.end());
  return true;
}

std::string serializeNpy(const NpyArray &A) {
  std::string Dict = std::string("{'descr': '") + dtypeDescr(A.Type) +
                     "', 'fortran_order': False, 'shape': " + A.shapeString() + ", }";
  // Version 1.0 stores the header length in 2 bytes; fall back to 2.0 for
  // a header that does not fit (only conceivable for absurd ranks).
  bool V1 = Dict.size() + 1 + MagicLen + 4 + HeaderAlign <= 0xffff;
  size_t Prefix = MagicLen + 2 + (V1 ? 2 : 4);
  size_t Total = Prefix + Dict.size() + 1;
  size_t Padded = (Total + HeaderAlign - 1) / HeaderAlign * HeaderAlign;
  std::string Header = Dict + std::string(Padded - Total, ' ') + "\n";

  std::string Out(Magic, MagicLen);
  Out += static_cast<char>(V1 ? 1 : 2);
  Out += '\0';
  size_t Len = Header.size();
  for (size_t I = 0; I < (V1 ? 2u : 4u); ++I)
    Out += static_cast<char>((Len >> (8 * I)) & 0xff);
  Out += Header;
  Out.append(reinterpret_cast<const char *>(A.Data.data()), A.Data.size());
  return Out;
}

bool readNpyFile(const std::string &Path, NpyArray &Out, std::string &Error) {
  // The header comes first: the data size it declares is checked against
  // the limit before any data is read (a device such as /dev/zero, a
  // huge file or a header that declares a huge shape is refused at once).
  BoundedFileReader In;
  if (!In.open(Path, Error))
    return false;
  std::string Bytes;
  std::string Why;
  if (!In.read(MaxPrefixLen, Bytes, Error))
    return false;
  unsigned Major = Bytes.size() > MagicLen ? static_cast<unsigned char>(Bytes[MagicLen]) : 0;
  if (Bytes.size() == MaxPrefixLen && Bytes.compare(0, MagicLen, Magic) == 0 && Major >= 1 &&
      Major <= 3) {
    // The prefix is sound: read the header it announces (bounded) too.
    size_t LenBytes = Major == 1 ? 2 : 4;
    size_t HeaderLen = readLE(Bytes, MagicLen + 2, LenBytes);
    if (HeaderLen > MaxNpyHeaderBytes) {
      Error = "'" + Path + "': the .npy header is larger than the limit of " +
              formatByteCount(MaxNpyHeaderBytes);
      return false;
    }
    size_t Need = MagicLen + 2 + LenBytes + HeaderLen;
    if (Need > Bytes.size() && !In.read(Need - Bytes.size(), Bytes, Error))
      return false;
    NpyLayout L;
    if (parseNpyLayout(Bytes, L, Why)) {
      if (L.NumBytes > MaxNpyDataBytes) {
        Error = "'" + Path + "': the array (" + std::to_string(L.NumBytes) +
                " bytes) is larger than the limit of " + formatByteCount(MaxNpyDataBytes);
        return false;
      }
      // One byte more than declared shows trailing data to parseNpy.
      size_t Want = L.DataStart + L.NumBytes + 1;
      if (Want > Bytes.size() && !In.read(Want - Bytes.size(), Bytes, Error))
        return false;
      if (Bytes.size() >= Want) {
        long long Size = In.regularFileSize();
        long long Extra = Size >= 0 ? Size - static_cast<long long>(Want - 1) : -1;
        Error = "'" + Path + "': malformed .npy file: " +
                (Extra > 0 ? std::to_string(Extra) + " bytes of unexpected data"
                           : std::string("unexpected data")) +
                " after the array";
        return false;
      }
    }
  }
  if (!parseNpy(Bytes, Out, Why)) {
    Error = "'" + Path + "': " + Why;
    return false;
  }
  return true;
}

bool writeNpyFile(const std::string &Path, const NpyArray &A, std::string &Error) {
  return writeFileAtomically(Path, serializeNpy(A), Error);
}

} // namespace tritonc::driver
