// The Python AddedToken class, and the tokens add_tokens and
// add_special_tokens take (snaptok's AddedToken, HF's, or a str).
#pragma once

#include "arguments.hpp"

namespace snaptok_python {

namespace nb = nanobind;
using namespace nb::literals;

// HF's Python AddedToken: a `normalized` left unset follows `special` (a
// special token is matched on the raw text), also after the `special`
// setter or add_special_tokens has changed it.
struct PyAddedToken {
  snaptok::AddedToken flags;
  bool normalized_given = true;

  snaptok::AddedToken token() const {
    snaptok::AddedToken t = flags;
    if (!normalized_given) t.normalized = !t.special;
    return t;
  }
};

// The tokens of add_tokens / add_special_tokens (`special`): each a str
// (normalized unless special) or an AddedToken (snaptok's or HF's), which
// add_special_tokens marks special in place, as HF does.
inline std::vector<snaptok::AddedToken> added_tokens_arg(nb::handle tokens, bool special) {
  std::vector<snaptok::AddedToken> out;
  for (nb::handle item : items_of(tokens, "tokens")) {
    if (nb::isinstance<nb::str>(item)) {
      out.push_back({.content = nb::cast<std::string>(item), .normalized = !special, .special = special});
    } else if (nb::isinstance<PyAddedToken>(item)) {
      PyAddedToken& token = nb::cast<PyAddedToken&>(item);
      if (special) token.flags.special = true;
      out.push_back(token.token());
    } else if (nb::hasattr(item, "content") && nb::hasattr(item, "normalized")) {
      // Another library's AddedToken (tokenizers.AddedToken, which
      // transformers passes), read through its attributes.
      if (special) nb::setattr(item, "special", nb::bool_(true));
      auto flag = [&](const char* name) { return nb::cast<bool>(item.attr(name)); };
      out.push_back({nb::cast<std::string>(item.attr("content")), flag("single_word"), flag("lstrip"),
                     flag("rstrip"), flag("normalized"), flag("special")});
    } else {
      throw nb::type_error("Input must be a List[Union[str, AddedToken]]");
    }
  }
  return out;
}


// Adds the AddedToken class to `m`.
inline void bind_added_token(nb::module_& m) {
  nb::class_<PyAddedToken>(m, "AddedToken",
                           "A token matched in the text before the model runs (HF AddedToken).\n\n"
                           "    >>> t = snaptok.AddedToken(\"<tool>\", special=True)\n"
                           "    >>> (t.content, t.normalized, t.special)\n"
                           "    ('<tool>', False, True)")
      .def(
          "__init__",
          [](PyAddedToken* t, std::string content, bool single_word, bool lstrip, bool rstrip,
             std::optional<bool> normalized, bool special) {
            new (t) PyAddedToken{{std::move(content), single_word, lstrip, rstrip, normalized.value_or(true), special},
                                 normalized.has_value()};
          },
          "content"_a = "", "single_word"_a = false, "lstrip"_a = false, "rstrip"_a = false,
          "normalized"_a = nb::none(), "special"_a = false,
          "`normalized` left out follows `special`: a special token is matched on the raw text.")
      .def_prop_rw(
          "content", [](const PyAddedToken& t) { return t.flags.content; },
          [](PyAddedToken& t, std::string content) { t.flags.content = std::move(content); },
          "The token's text.")
      .def_prop_ro("single_word", [](const PyAddedToken& t) { return t.flags.single_word; },
                   "True when the token is matched only as a whole word, never inside one.")
      .def_prop_ro("lstrip", [](const PyAddedToken& t) { return t.flags.lstrip; },
                   "True when a match takes in the whitespace on its left.")
      .def_prop_ro("rstrip", [](const PyAddedToken& t) { return t.flags.rstrip; },
                   "True when a match takes in the whitespace on its right.")
      .def_prop_ro("normalized", [](const PyAddedToken& t) { return t.token().normalized; },
                   "True when the token is matched in the normalized text, False in the raw input;\n"
                   "left unset, it is the opposite of `special`.\n\n"
                   "    >>> [snaptok.AddedToken(\"<x>\", special=s).normalized for s in (False, True)]\n"
                   "    [True, False]")
      .def_prop_rw(
          "special", [](const PyAddedToken& t) { return t.flags.special; },
          [](PyAddedToken& t, bool special) { t.flags.special = special; },
          "True for a special token, which decode leaves out with skip_special_tokens=True.")
      .def("__str__", [](const PyAddedToken& t) { return t.flags.content; })
      .def("__repr__",
           [](const PyAddedToken& pt) {
             const snaptok::AddedToken t = pt.token();
             auto flag = [](bool b) { return b ? "True" : "False"; };
             return std::string("AddedToken(\"") + t.content + "\", rstrip=" + flag(t.rstrip) + ", lstrip=" + flag(t.lstrip) + ", single_word=" +
                    flag(t.single_word) + ", normalized=" + flag(t.normalized) + ", special=" + flag(t.special) +
                    ")";
           })
      .def("__eq__", [](const PyAddedToken& a, const PyAddedToken& b) { return a.token() == b.token(); })
      .def("__hash__", [](const PyAddedToken& t) { return nb::hash(nb::str(t.flags.content.data(), t.flags.content.size())); })
      .def("__getstate__",
           [](const PyAddedToken& pt) {
             const snaptok::AddedToken t = pt.token();
             nb::dict d;
             d["content"] = t.content;
             d["single_word"] = t.single_word;
             d["lstrip"] = t.lstrip;
             d["rstrip"] = t.rstrip;
             d["normalized"] = t.normalized;
             d["special"] = t.special;
             return d;
           })
      .def("__setstate__", [](PyAddedToken& t, nb::dict d) {
        new (&t) PyAddedToken{{nb::cast<std::string>(d["content"]), nb::cast<bool>(d["single_word"]),
                               nb::cast<bool>(d["lstrip"]), nb::cast<bool>(d["rstrip"]),
                               nb::cast<bool>(d["normalized"]), nb::cast<bool>(d["special"])},
                              true};
      });
}

}  // namespace snaptok_python
