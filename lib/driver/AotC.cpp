//===- AotC.cpp - Ahead-of-time C launchers for compiled kernels -----------===//
//
// The generated source is table-driven: each tensor map is a constant
// description (base parameter, data type, box, swizzle, and the extents and
// strides as polynomials over the integer parameters, flattened into
// {coef, n, index...} runs), and one generic function per file evaluates and
// encodes them at launch. The checks are those of runtime::planTensorMap; a
// launch whose arguments fail them returns CUDA_ERROR_INVALID_VALUE.
//
//===----------------------------------------------------------------------===//

#include "tritonc/driver/AotC.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

namespace tritonc::driver {

namespace {

/// The C type a launcher parameter of this kind takes.
const char *cType(runtime::ArgKind K) {
  switch (K) {
  case runtime::ArgKind::Pointer:
    return "CUdeviceptr";
  case runtime::ArgKind::Int1:
    return "uint8_t";
  case runtime::ArgKind::Int8:
    return "int8_t";
  case runtime::ArgKind::Int16:
    return "int16_t";
  case runtime::ArgKind::Int32:
    return "int32_t";
  case runtime::ArgKind::Int64:
    return "int64_t";
  case runtime::ArgKind::F16:
  case runtime::ArgKind::BF16:
    return "uint16_t"; // the bits of the 16-bit float
  case runtime::ArgKind::F32:
    return "float";
  case runtime::ArgKind::F64:
    return "double";
  }
  return "int";
}

bool isInteger(runtime::ArgKind K) {
  return K == runtime::ArgKind::Int1 || K == runtime::ArgKind::Int8 ||
         K == runtime::ArgKind::Int16 || K == runtime::ArgKind::Int32 ||
         K == runtime::ArgKind::Int64;
}

/// The C name of parameter I: its own when it is a C identifier, else pI.
std::string paramName(const runtime::KernelSignature &Sig, size_t I) {
  const std::string &N = Sig.Params[I].Name;
  return isCIdentifier(N) && N != "stream" && N.rfind("grid_", 0) != 0 ? N
                                                                       : "p" + std::to_string(I);
}

/// "CUdeviceptr A, CUdeviceptr B, int32_t M".
std::string parameterList(const runtime::KernelSignature &Sig) {
  std::string S;
  for (size_t I = 0; I < Sig.Params.size(); ++I)
    S += ", " + std::string(cType(Sig.Params[I].Kind)) + " " + paramName(Sig, I);
  return S;
}

/// {coef, n, index...} per term, as C initializer text; Terms gets the
/// number of terms.
std::string polyTable(const ParamPoly &P, size_t &Terms) {
  std::string S;
  Terms = P.size();
  for (const ParamTerm &T : P) {
    S += std::to_string(T.Coef) + "LL, " + std::to_string(T.Params.size());
    for (unsigned I : T.Params)
      S += ", " + std::to_string(I);
    S += ", ";
  }
  return S.empty() ? "0" : S;
}

/// The cubin as rows of hex bytes.
std::string byteArray(const std::string &Bytes) {
  std::string S;
  char Buf[8];
  for (size_t I = 0; I < Bytes.size(); ++I) {
    std::snprintf(Buf, sizeof(Buf), "0x%02x,", static_cast<unsigned char>(Bytes[I]));
    S += (I % 16 == 0 ? "\n  " : " ") + std::string(Buf);
  }
  return S;
}

/// The shared part of every generated source: evaluating a flattened
/// polynomial and encoding one map, as runtime::planTensorMap does.
const char *EncoderTemplate = R"(
/* Sum over terms of coef * product(args[index]); 0 on overflow. */
static int @_poly(const int64_t *t, int terms, const int64_t *args, int64_t *out) {
  int64_t sum = 0;
  for (int i = 0; i < terms; ++i) {
    int64_t v = *t++, n = *t++;
    for (int64_t k = 0; k < n; ++k)
      if (__builtin_mul_overflow(v, args[*t++], &v))
        return 0;
    if (__builtin_add_overflow(sum, v, &sum))
      return 0;
  }
  *out = sum;
  return 1;
}

struct @_map_spec {
  unsigned base, data_type, elem_bytes, rank, swizzle;
  int bounded[5];
  const int64_t *dims[5];
  int dim_terms[5];
  const int64_t *strides[4];
  int stride_terms[4];
  cuuint32_t box[5];
};

static CUdeviceptr @_zero_block; /* 16 zero bytes: the memory of a map with nothing in bounds */

static CUresult @_encode(CUtensorMap *map, const struct @_map_spec *s, const int64_t *args,
                         CUdeviceptr base) {
  cuuint64_t dims[5], strides[4];
  const cuuint32_t element_strides[5] = {1, 1, 1, 1, 1};
  int zero = 0;
  for (unsigned d = 0; d < s->rank; ++d) {
    int64_t v = 0x7FFFFE00LL; /* unbounded: TensorMapUnboundedDim */
    if (s->bounded[d] && !@_poly(s->dims[d], s->dim_terms[d], args, &v))
      return CUDA_ERROR_INVALID_VALUE;
    if (v > 0x7FFFFE00LL)
      return CUDA_ERROR_INVALID_VALUE;
    if (v <= 0)
      zero = 1;
    dims[d] = (cuuint64_t)v;
  }
  if (zero) {
    /* Every element is out of bounds: a map over zeros. */
    if (!@_zero_block) {
      CUresult r = cuMemAlloc(&@_zero_block, 16);
      if (r != CUDA_SUCCESS || (r = cuMemsetD8(@_zero_block, 0, 16)) != CUDA_SUCCESS)
        return r;
    }
    base = @_zero_block;
    for (unsigned d = 0; d < s->rank; ++d)
      dims[d] = 1;
    for (unsigned d = 0; d + 1 < s->rank; ++d)
      strides[d] = 16;
  } else {
    for (unsigned d = 1; d < s->rank; ++d) {
      int64_t v = 0, bytes = 0;
      if (!@_poly(s->strides[d - 1], s->stride_terms[d - 1], args, &v) ||
          __builtin_mul_overflow(v, (int64_t)s->elem_bytes, &bytes) || bytes < 0 ||
          bytes % 16 != 0 || bytes >= (1LL << 40))
        return CUDA_ERROR_INVALID_VALUE;
      strides[d - 1] = (cuuint64_t)bytes;
    }
    if (base % 16 != 0)
      return CUDA_ERROR_INVALID_VALUE;
  }
  return cuTensorMapEncodeTiled(map, (CUtensorMapDataType)s->data_type, s->rank,
                                (void *)(uintptr_t)base, dims, strides, s->box, element_strides,
                                CU_TENSOR_MAP_INTERLEAVE_NONE, (CUtensorMapSwizzle)s->swizzle,
                                CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}
)";

/// Replaces every '@' of a template with the function name.
std::string instantiate(const char *Template, const std::string &Name) {
  std::string S;
  for (const char *C = Template; *C; ++C)
    if (*C == '@')
      S += Name;
    else
      S += *C;
  return S;
}

unsigned swizzleEnum(unsigned Bytes) {
  return Bytes == 32 ? 1 : Bytes == 64 ? 2 : Bytes == 128 ? 3 : 0;
}

/// The map descriptions: polynomial tables and one struct per map.
std::string mapTables(const std::string &N, const runtime::KernelSignature &Sig) {
  std::string S;
  for (size_t M = 0; M < Sig.TensorMaps.size(); ++M) {
    const TensorMapSpec &T = Sig.TensorMaps[M];
    std::string Id = N + "_map" + std::to_string(M);
    std::vector<size_t> DimTerms(T.rank(), 0), StrideTerms(T.Strides.size(), 0);
    for (unsigned D = 0; D < T.rank(); ++D)
      if (T.Dims[D])
        S += "static const int64_t " + Id + "_dim" + std::to_string(D) + "[] = {" +
             polyTable(*T.Dims[D], DimTerms[D]) + "};\n";
    for (size_t D = 0; D < T.Strides.size(); ++D)
      S += "static const int64_t " + Id + "_stride" + std::to_string(D + 1) + "[] = {" +
           polyTable(T.Strides[D], StrideTerms[D]) + "};\n";
    S += "static const struct " + N + "_map_spec " + Id + " = {\n";
    S += "  " + std::to_string(T.BaseParam) + ", " + std::to_string(T.DataType) + ", " +
         std::to_string(T.ElemBytes) + ", " + std::to_string(T.rank()) + ", " +
         std::to_string(swizzleEnum(T.SwizzleBytes)) + ",\n  {";
    for (unsigned D = 0; D < T.rank(); ++D)
      S += std::string(D ? ", " : "") + (T.Dims[D] ? "1" : "0");
    S += "},\n  {";
    for (unsigned D = 0; D < T.rank(); ++D)
      S += std::string(D ? ", " : "") +
           (T.Dims[D] ? Id + "_dim" + std::to_string(D) : std::string("0"));
    S += "},\n  {";
    for (unsigned D = 0; D < T.rank(); ++D)
      S += std::string(D ? ", " : "") + std::to_string(DimTerms[D]);
    S += "},\n  {";
    for (size_t D = 0; D < T.Strides.size(); ++D)
      S += std::string(D ? ", " : "") + Id + "_stride" + std::to_string(D + 1);
    S += std::string(T.Strides.empty() ? "0" : "") + "},\n  {";
    for (size_t D = 0; D < T.Strides.size(); ++D)
      S += std::string(D ? ", " : "") + std::to_string(StrideTerms[D]);
    S += std::string(T.Strides.empty() ? "0" : "") + "},\n  {";
    for (unsigned D = 0; D < T.rank(); ++D)
      S += std::string(D ? ", " : "") + std::to_string(T.Box[D]);
    S += "}};\n";
  }
  return S;
}

} // namespace

runtime::Status writeAotFiles(const std::string &OutPath, const std::string &SourceName,
                              const DeviceCompileResult &Kernel, const std::string &Cubin,
                              ptx::Arch Arch) {
  std::filesystem::path C(OutPath);
  if (C.extension() != ".c")
    return runtime::makeError("--emit=c writes a .c file and its .h: -o must name NAME.c, not '" +
                              OutPath + "'");
  AotInput In;
  In.FunctionName = C.stem().string();
  if (!isCIdentifier(In.FunctionName))
    return runtime::makeError("--emit=c: the launcher is named after the output file, and '" +
                              In.FunctionName + "' is not a C identifier");
  std::filesystem::path H = C;
  H.replace_extension(".h");
  In.HeaderName = H.filename().string();
  In.SourceName = SourceName;
  In.Kernel = &Kernel;
  In.Cubin = Cubin;
  In.Arch = Arch;
  for (const auto &[Path, Text] : {std::pair{H, emitAotHeader(In)}, {C, emitAotSource(In)}}) {
    std::ofstream F(Path, std::ios::binary | std::ios::trunc);
    F << Text;
    F.close();
    if (!F)
      return runtime::makeError("cannot write '" + Path.string() + "'");
  }
  return runtime::Status::ok();
}

bool isCIdentifier(const std::string &Name) {
  if (Name.empty() || std::isdigit(static_cast<unsigned char>(Name[0])))
    return false;
  for (char C : Name)
    if (!std::isalnum(static_cast<unsigned char>(C)) && C != '_')
      return false;
  return true;
}

std::string emitAotHeader(const AotInput &In) {
  const std::string &N = In.FunctionName;
  const DeviceCompileResult &K = *In.Kernel;
  std::string Guard = N + "_H";
  for (char &C : Guard)
    C = char(std::toupper(static_cast<unsigned char>(C)));
  std::string S = "/* Generated by tritonc " TRITONC_VERSION " from " + In.SourceName +
                  ": kernel " + K.Info.Name + " for " + ptx::archName(In.Arch) + ", " +
                  std::to_string(K.Info.NumWarps) + " warps, " +
                  std::to_string(K.Info.SharedMemBytes) + " bytes of dynamic shared memory" +
                  (K.Specialization.empty() ? "" : ", specialization " + K.Specialization) +
                  ".\n   Signature: " + K.Signature.str() +
                  "\n   Needs only cuda.h and libcuda (-lcuda); compile with GCC or Clang. */\n";
  S += "#ifndef " + Guard + "\n#define " + Guard + "\n\n#include <cuda.h>\n#include <stdint.h>\n\n";
  S += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  S += "/* Loads the kernel into the calling thread's current context; the first launch does it\n"
       "   too. Not thread-safe: call it once before launching from several threads. */\n";
  S += "CUresult " + N + "_load(void);\n";
  S += "/* Unloads it (the next launch loads it again). */\n";
  S += "CUresult " + N + "_unload(void);\n";
  S += "/* Launches grid_x * grid_y * grid_z programs of " + std::to_string(K.Info.NumWarps * 32) +
       " threads on stream. 16-bit float scalars are\n"
       "   passed as their bits. CUDA_ERROR_INVALID_VALUE: the arguments break what the kernel\n"
       "   was compiled for (alignment, tensor map extents and strides). */\n";
  S += "CUresult " + N + "(CUstream stream, unsigned grid_x, unsigned grid_y, unsigned grid_z" +
       parameterList(K.Signature) + ");\n\n";
  S += "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " + Guard + " */\n";
  return S;
}

std::string emitAotSource(const AotInput &In) {
  const std::string &N = In.FunctionName;
  const DeviceCompileResult &K = *In.Kernel;
  const runtime::KernelSignature &Sig = K.Signature;
  bool Maps = !Sig.TensorMaps.empty();
  std::string S = "/* Generated by tritonc " TRITONC_VERSION " from " + In.SourceName + " (see " +
                  In.HeaderName + "). */\n#include \"" + In.HeaderName + "\"\n\n";
  S += "static const unsigned char " + N + "_cubin[" + std::to_string(In.Cubin.size()) +
       "] __attribute__((aligned(16))) = {" + byteArray(In.Cubin) + "\n};\n\n";
  S += "static CUcontext " + N + "_context;\nstatic CUmodule " + N +
       "_module;\nstatic CUfunction " + N + "_function;\n";
  if (Maps)
    S += instantiate(EncoderTemplate, N) + "\n" + mapTables(N, Sig);
  S += "\nCUresult " + N +
       "_load(void) {\n  CUcontext ctx = 0;\n"
       "  CUresult r = cuCtxGetCurrent(&ctx);\n  if (r != CUDA_SUCCESS)\n    return r;\n"
       "  if (!ctx)\n    return CUDA_ERROR_INVALID_CONTEXT;\n  if (" +
       N + "_module && " + N + "_context == ctx)\n    return CUDA_SUCCESS;\n";
  S += "  if ((r = cuModuleLoadData(&" + N + "_module, " + N +
       "_cubin)) != CUDA_SUCCESS)\n"
       "    return r;\n";
  S += "  if ((r = cuModuleGetFunction(&" + N + "_function, " + N + "_module, \"" + Sig.Name +
       "\")) != CUDA_SUCCESS)\n    return r;\n";
  if (K.Info.SharedMemBytes > 0) {
    // Above the 48 KB a launch gets by default, the function must opt in.
    S += "  if ((r = cuFuncSetAttribute(" + N +
         "_function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, " +
         std::to_string(K.Info.SharedMemBytes) + ")) != CUDA_SUCCESS)\n    return r;\n";
  }
  S += "  " + N + "_context = ctx;\n  return CUDA_SUCCESS;\n}\n\n";
  S += "CUresult " + N + "_unload(void) {\n  CUresult r = CUDA_SUCCESS;\n  if (" + N +
       "_module)\n    r = cuModuleUnload(" + N + "_module);\n  " + N + "_module = 0;\n  " + N +
       "_context = 0;\n  return r;\n}\n\n";

  S += "CUresult " + N + "(CUstream stream, unsigned grid_x, unsigned grid_y, unsigned grid_z" +
       parameterList(Sig) + ") {\n";
  S += "  CUresult r = " + N + "_load();\n  if (r != CUDA_SUCCESS)\n    return r;\n";
  // What the specialization assumed: 'D' is a multiple of 16 (bytes for a pointer).
  for (size_t I = 0; I < K.Specialization.size() && I < Sig.Params.size(); ++I)
    if (K.Specialization[I] == 'D')
      S += "  if ((" + paramName(Sig, I) + ") % 16 != 0)\n    return CUDA_ERROR_INVALID_VALUE;\n";
  if (Maps) {
    S += "  const int64_t args[" + std::to_string(Sig.Params.size()) + "] = {";
    for (size_t I = 0; I < Sig.Params.size(); ++I)
      S += std::string(I ? ", " : "") +
           (isInteger(Sig.Params[I].Kind) ? "(int64_t)" + paramName(Sig, I) : std::string("0"));
    S += "};\n  CUtensorMap maps[" + std::to_string(Sig.TensorMaps.size()) + "];\n";
    for (size_t M = 0; M < Sig.TensorMaps.size(); ++M)
      S += "  if ((r = " + N + "_encode(&maps[" + std::to_string(M) + "], &" + N + "_map" +
           std::to_string(M) + ", args, " + paramName(Sig, Sig.TensorMaps[M].BaseParam) +
           ")) != CUDA_SUCCESS)\n    return r;\n";
  }
  // The user's parameters, then the tensor maps (hidden parameters).
  std::vector<std::string> Params;
  for (size_t I = 0; I < Sig.Params.size(); ++I)
    Params.push_back("&" + paramName(Sig, I));
  for (size_t M = 0; M < Sig.TensorMaps.size(); ++M)
    Params.push_back("&maps[" + std::to_string(M) + "]");
  S += "  void *params[] = {";
  for (size_t I = 0; I < Params.size(); ++I)
    S += (I ? ", " : "") + Params[I];
  S += std::string(Params.empty() ? "0" : "") + "};\n";
  S += "  return cuLaunchKernel(" + N + "_function, grid_x, grid_y, grid_z, " +
       std::to_string(K.Info.NumWarps * 32) + ", 1, 1, " + std::to_string(K.Info.SharedMemBytes) +
       ", stream, params, 0);\n}\n";
  return S;
}

} // namespace tritonc::driver
