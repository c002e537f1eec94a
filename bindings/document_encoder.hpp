// The Python DocumentEncoder class: one document fed in pieces, with
// bounded memory (snaptok::DocumentEncoder).
#pragma once

#include "results.hpp"

namespace snaptok_python {

namespace nb = nanobind;
using namespace nb::literals;

// DocumentEncoder for Python: one call at a time (a second thread gets an
// error rather than a data race), the GIL released while it encodes.
class PyDocumentEncoder {
 public:
  PyDocumentEncoder(const snaptok::Pipeline& tok, bool add_special_tokens, unsigned num_threads,
                    std::size_t part_bytes)
      : encoder_(tok, add_special_tokens, num_threads, part_bytes) {}

  template <class Call>
  std::vector<std::uint32_t> run(const char* name, Call&& call) {
    std::unique_lock lock(mu_, std::try_to_lock);
    if (!lock.owns_lock()) {
      throw snaptok::Error(std::string("DocumentEncoder.") + name +
                           ": already running in another thread");
    }
    std::vector<std::uint32_t> ids;
    call(encoder_, ids);
    return ids;
  }
  const snaptok::DocumentEncoder& encoder() const noexcept { return encoder_; }

 private:
  std::mutex mu_;
  snaptok::DocumentEncoder encoder_;
};


// Adds the DocumentEncoder class to `m`.
inline void bind_document_encoder(nb::module_& m) {
  nb::class_<PyDocumentEncoder>(
      m, "DocumentEncoder",
      "Encodes one document given in pieces of any size with bounded memory (from\n"
      "Tokenizer.document_encoder): feed() returns the ids that are final so far, finish()\n"
      "the rest; all of them concatenated equal encoding the whole document at once.\n\n"
      "    >>> d = tok.document_encoder()\n"
      "    >>> np.concatenate([d.feed(\"Hello wor\"), d.feed(\"ld, again\"), d.finish()])\n"
      "    array([15496,   995,    11,   757], dtype=uint32)")
      .def(
          "feed",
          [](PyDocumentEncoder& self, nb::handle chunk) {
            BytesView bytes(chunk, "chunk");
            std::vector<std::uint32_t> ids;
            {
              GilReleaseFor release(bytes.get().size());
              ids = self.run("feed", [&](snaptok::DocumentEncoder& e, std::vector<std::uint32_t>& out) {
                e.feed(bytes.get(), out);
              });
            }
            return to_numpy(std::move(ids));
          },
          "chunk"_a,
          "Adds the next bytes of the document (str, bytes or bytes-like; may end inside a\n"
          "UTF-8 char); returns the uint32 ids that are now final (often empty). Text after\n"
          "the last cut point is held back.\n\n"
          "    >>> d = tok.document_encoder()\n"
          "    >>> d.feed(\"Hello wor\")  # fewer than part_bytes: all held back\n"
          "    array([], dtype=uint32)\n"
          "    >>> d.pending_bytes\n"
          "    9")
      .def(
          "finish",
          [](PyDocumentEncoder& self) {
            std::vector<std::uint32_t> ids;
            {
              nb::gil_scoped_release release;
              ids = self.run("finish", [](snaptok::DocumentEncoder& e, std::vector<std::uint32_t>& out) {
                e.finish(out);
              });
            }
            return to_numpy(std::move(ids));
          },
          "Returns the ids of the text held back, with what the post-processor puts after\n"
          "the document (e.g. EOS). The encoder is spent afterwards.\n\n"
          "    >>> d = t5.document_encoder()\n"
          "    >>> _ = d.feed(\"Hello world\")\n"
          "    >>> d.finish()  # ends with </s> = 2\n"
          "    array([151,  88,  21, 887,   2], dtype=uint32)")
      .def_prop_ro("bytes_fed", [](const PyDocumentEncoder& self) { return self.encoder().bytes_fed(); },
                   "Bytes given to feed() so far.")
      .def_prop_ro("pending_bytes",
                   [](const PyDocumentEncoder& self) { return self.encoder().pending_bytes(); },
                   "Bytes held back, not encoded yet.")
      .def_prop_ro("finished", [](const PyDocumentEncoder& self) { return self.encoder().finished(); },
                   "True once finish() ran or a call failed.\n\n"
                   "    >>> d = tok.document_encoder()\n"
                   "    >>> _ = d.finish()\n"
                   "    >>> d.finished\n"
                   "    True");
}

}  // namespace snaptok_python
