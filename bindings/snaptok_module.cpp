// snaptok._core: the nanobind module behind the `snaptok` Python package.
// A thin layer: argument conversion (arguments.hpp), GIL release around
// encoding and zero-copy NumPy output (results.hpp), one header per class.
// All behaviour lives in the C++ headers. One translation unit: the engine
// is compiled once.
#include <snaptok/simd/dispatch.hpp>

#include "added_token.hpp"
#include "arguments.hpp"
#include "components.hpp"
#include "decode_stream.hpp"
#include "document_encoder.hpp"
#include "encoding.hpp"
#include "results.hpp"
#include "tokenizer.hpp"

namespace nb = nanobind;

NB_MODULE(_core, m) {
  using namespace snaptok_python;
#ifdef SNAPTOK_VERSION
  m.attr("__version__") = SNAPTOK_VERSION;
#else
#error "build the module through CMake, which defines SNAPTOK_VERSION"
#endif
  m.doc() = "snaptok: exact, fast Hugging Face tokenizers";

  nb::exception<snaptok::Error> snaptok_error(m, "SnaptokError", PyExc_ValueError);
  snaptok_error.attr("__doc__") =
      "The error snaptok raises when loading, encoding or decoding fails (a ValueError):\n"
      "the message names what failed and where.\n\n"
      "    >>> snaptok.Tokenizer.from_str(\"{}\")\n"
      "    Traceback (most recent call last):\n"
      "        ...\n"
      "    snaptok._core.SnaptokError: tokenizer.json: missing field \"model\"\n"
      "    >>> issubclass(snaptok.SnaptokError, ValueError)\n"
      "    True";
  bind_encoding(m);
  bind_added_token(m);
  bind_document_encoder(m);
  bind_decode_stream(m);
  bind_components(m);
  bind_tokenizer(m);

  // SIMD target (snaptok/simd/dispatch.hpp); SNAPTOK_SIMD caps it.
  m.def(
      "simd_target", [] { return std::string(snaptok::simd_target()); },
      "Returns the name of the SIMD target the kernels run on, e.g. 'AVX2' "
      "(capped by the SNAPTOK_SIMD environment variable: scalar, sse4, avx2 "
      "or avx3 on x86; scalar, neon, sve or sve2 on Arm), or 'none (built without Highway)'.\n\n"
      "    >>> snaptok.simd_target()  # e.g. 'AVX2', 'AVX3', 'NEON'\n"
      "    '...'");
  m.def(
      "_kept_id_buffers", [] { return IdBufferPool::instance().kept(); },
      "For the tests: (buffers, bytes) of the dropped id arrays kept for the next batch call.");
}
