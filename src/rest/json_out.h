// A JSON writer that appends to one string: what gantry-restd answers with. A listing of 100k
// jobs is ~10 million values; building a DOM for it first (nlohmann::json) cost seconds, this
// costs a pass over the records.
//
// Calls must nest properly (Begin/End pairs, Key before each member's value); the writer adds
// the commas and escapes strings (", \, control characters as \uXXXX; other bytes as they are,
// so a record's non-UTF-8 bytes pass through as Slurm's json output lets them).
// Also writes slurmrestd's "no value" struct, {"set":b,"infinite":b,"number":n}.
// Thread-compatible.
#ifndef GANTRY_REST_JSON_OUT_H_
#define GANTRY_REST_JSON_OUT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gantry::rest {

class JsonOut {
 public:
  JsonOut() { first_.reserve(16); }

  JsonOut& BeginObject();
  JsonOut& EndObject();
  JsonOut& BeginArray();
  JsonOut& EndArray();
  JsonOut& Key(std::string_view name);
  // The elements of an array whose brackets someone else writes: commas only (a part of a
  // listing made on its own thread, spliced between the brackets later).
  JsonOut& BeginList();
  JsonOut& EndList() {
    first_.pop_back();
    return *this;
  }

  JsonOut& String(std::string_view value);
  JsonOut& Int(int64_t value);
  JsonOut& Uint(uint64_t value);
  JsonOut& Double(double value);
  JsonOut& Bool(bool value);
  JsonOut& Null();
  // Text that already is one JSON value, written as it is.
  JsonOut& Raw(std::string_view json);
  // The buffer, for a caller that writes one JSON value into it directly (large values made
  // elsewhere, joined without another copy).
  std::string& RawValue() {
    BeforeValue();
    return out_;
  }

  // {"set":true,"infinite":false,"number":n}; unset: set false, number 0; infinite: infinite
  // true, number 0.
  JsonOut& NoValNumber(int64_t number);
  JsonOut& NoValUnset();
  JsonOut& NoValInfinite();
  JsonOut& NoValDouble(double number);  // NaN: unset; an infinity: infinite

  // Key(name) and the value, for the common members.
  JsonOut& Member(std::string_view name, std::string_view value) { return Key(name).String(value); }
  JsonOut& MemberInt(std::string_view name, int64_t value) { return Key(name).Int(value); }
  JsonOut& MemberBool(std::string_view name, bool value) { return Key(name).Bool(value); }
  // A no-value struct member: number when `set`, else unset.
  JsonOut& MemberNoVal(std::string_view name, int64_t number, bool set = true) {
    Key(name);
    return set ? NoValNumber(number) : NoValUnset();
  }
  // A string array member from a comma-separated list ("" gives []).
  JsonOut& MemberCsvArray(std::string_view name, std::string_view csv);

  // Ends the current piece of text and adds `piece` (JSON text made elsewhere, e.g. another
  // JsonOut's) as the next one, without copying it; writing goes on in a new piece.
  void Splice(std::string piece);

  // The text written since the last Splice.
  std::string& text() { return out_; }
  // All the text, in one string (copies pieces spliced in) or as its pieces (copies nothing).
  std::string Take();
  std::vector<std::string> TakePieces();
  void Reserve(size_t bytes) { out_.reserve(bytes); }

 private:
  void BeforeValue();
  void Quoted(std::string_view value);  // the escaped string in quotes

  std::vector<std::string> done_;  // pieces before out_
  std::string out_;
  std::vector<bool> first_;  // per open container: nothing written in it yet
  bool after_key_ = false;
};

}  // namespace gantry::rest

#endif  // GANTRY_REST_JSON_OUT_H_
