#include "rest/json_out.h"

#include <charconv>
#include <cmath>

namespace gantry::rest {
namespace {

// `value` in decimal (std::to_chars: the shortest text that reads back the same).
template <typename Number>
void AppendNumber(std::string& out, Number value) {
  char buffer[32];
  const char* end = std::to_chars(buffer, buffer + sizeof(buffer), value).ptr;
  out.append(buffer, static_cast<size_t>(end - buffer));
}

}  // namespace

void JsonOut::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

JsonOut& JsonOut::BeginObject() {
  BeforeValue();
  out_ += '{';
  first_.push_back(true);
  return *this;
}

JsonOut& JsonOut::EndObject() {
  out_ += '}';
  first_.pop_back();
  return *this;
}

JsonOut& JsonOut::BeginList() {
  first_.push_back(true);
  return *this;
}

void JsonOut::Splice(std::string piece) {
  done_.push_back(std::move(out_));
  out_ = std::string();
  done_.push_back(std::move(piece));
}

std::string JsonOut::Take() {
  if (done_.empty()) return std::move(out_);
  std::string all;
  for (const std::string& piece : done_) all += piece;
  all += out_;
  done_.clear();
  out_.clear();
  return all;
}

std::vector<std::string> JsonOut::TakePieces() {
  std::vector<std::string> pieces = std::move(done_);
  pieces.push_back(std::move(out_));
  done_.clear();
  out_.clear();
  return pieces;
}

JsonOut& JsonOut::BeginArray() {
  BeforeValue();
  out_ += '[';
  first_.push_back(true);
  return *this;
}

JsonOut& JsonOut::EndArray() {
  out_ += ']';
  first_.pop_back();
  return *this;
}

JsonOut& JsonOut::Key(std::string_view name) {
  BeforeValue();
  Quoted(name);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonOut& JsonOut::String(std::string_view value) {
  BeforeValue();
  Quoted(value);
  return *this;
}

void JsonOut::Quoted(std::string_view value) {
  out_ += '"';
  size_t plain = 0;  // start of the run of bytes that need no escape
  for (size_t i = 0; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out_.append(value.data() + plain, i - plain);
    plain = i + 1;
    switch (c) {
      case '"':
        out_ += "\\\"";
        break;
      case '\\':
        out_ += "\\\\";
        break;
      case '\n':
        out_ += "\\n";
        break;
      case '\t':
        out_ += "\\t";
        break;
      case '\r':
        out_ += "\\r";
        break;
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        out_ += "\\u00";
        out_ += kHex[c >> 4];
        out_ += kHex[c & 15];
      }
    }
  }
  out_.append(value.data() + plain, value.size() - plain);
  out_ += '"';
}

JsonOut& JsonOut::Int(int64_t value) {
  BeforeValue();
  AppendNumber(out_, value);
  return *this;
}

JsonOut& JsonOut::Uint(uint64_t value) {
  BeforeValue();
  AppendNumber(out_, value);
  return *this;
}

JsonOut& JsonOut::Double(double value) {
  BeforeValue();
  if (!std::isfinite(value)) {
    out_ += "null";
    return *this;
  }
  AppendNumber(out_, value);
  return *this;
}

JsonOut& JsonOut::Bool(bool value) {
  BeforeValue();
  out_ += value ? "true" : "false";
  return *this;
}

JsonOut& JsonOut::Null() {
  BeforeValue();
  out_ += "null";
  return *this;
}

JsonOut& JsonOut::Raw(std::string_view json) {
  BeforeValue();
  out_ += json;
  return *this;
}

JsonOut& JsonOut::NoValNumber(int64_t number) {
  BeforeValue();
  out_ += R"({"set":true,"infinite":false,"number":)";
  AppendNumber(out_, number);
  out_ += '}';
  return *this;
}

JsonOut& JsonOut::NoValUnset() { return Raw(R"({"set":false,"infinite":false,"number":0})"); }

JsonOut& JsonOut::NoValInfinite() { return Raw(R"({"set":false,"infinite":true,"number":0})"); }

JsonOut& JsonOut::NoValDouble(double number) {
  if (std::isnan(number)) return NoValUnset();
  if (std::isinf(number)) return NoValInfinite();
  BeginObject().MemberBool("set", true).MemberBool("infinite", false).Key("number");
  return Double(number).EndObject();
}

JsonOut& JsonOut::MemberCsvArray(std::string_view name, std::string_view csv) {
  Key(name).BeginArray();
  while (!csv.empty()) {
    const size_t comma = csv.find(',');
    String(csv.substr(0, comma));
    if (comma == std::string_view::npos) break;
    csv.remove_prefix(comma + 1);
  }
  return EndArray();
}

}  // namespace gantry::rest
