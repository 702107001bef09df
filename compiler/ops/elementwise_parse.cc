// Reads ElementwiseExpr::text() back.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "compiler/error.h"
#include "compiler/ops/elementwise_expr.h"
#include "compiler/ops/elementwise_kinds.h"
#include "compiler/ops/tensor_dtype.h"

namespace tf::ops {
namespace {

using Kind = ElementwiseKind;

class Parser {
 public:
  explicit Parser(const std::string& text) : t_(text) {}

  ElementwiseExprPtr whole() {
    ElementwiseExprPtr e = expr();
    if (pos_ != t_.size()) fail("unexpected '" + t_.substr(pos_, 1) + "'");
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw CompileError("elementwise expression '" + t_ + "' at position " + std::to_string(pos_) + ": " + what);
  }
  void expect(char c) {
    if (pos_ >= t_.size() || t_[pos_] != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  bool at_number() const {
    return pos_ < t_.size() &&
           (std::isdigit(static_cast<unsigned char>(t_[pos_])) || t_[pos_] == '-' || t_[pos_] == '.');
  }
  double number() {
    const char* start = t_.c_str() + pos_;
    char* end = nullptr;
    const double v = std::strtod(start, &end);
    if (end == start) fail("expected a number");
    pos_ += static_cast<size_t>(end - start);
    if (!std::isfinite(v)) fail("a constant must be finite");
    return v;
  }
  ElementwiseExprPtr expr() {
    if (at_number()) return ew_constant(number());
    size_t start = pos_;
    while (pos_ < t_.size() && std::isalnum(static_cast<unsigned char>(t_[pos_]))) ++pos_;
    const std::string word = t_.substr(start, pos_ - start);
    if (word.empty()) fail("expected an input, a constant or an op");
    if (word[0] == 'x' && word.size() > 1 && std::all_of(word.begin() + 1, word.end(), ::isdigit)) {
      if (word.size() > 3) fail("input " + word + " is out of range");
      return ew_input(std::stoi(word.substr(1)));
    }
    const detail::KindInfo* info = detail::kind_info(word);
    if (!info) {
      pos_ = start;
      fail("unknown op '" + word + "'");
    }
    expect('(');
    std::vector<ElementwiseExprPtr> operands;
    for (int i = 0; i < info->arity; ++i) {
      if (i) expect(',');
      operands.push_back(expr());
    }
    ElementwiseExprPtr e = constants_after(info->kind, operands);
    expect(')');
    return e;
  }
  // The node, reading what follows the operands: pow's exponent (a number, or an expression for a
  // computed one) and clip's bounds.
  ElementwiseExprPtr constants_after(Kind kind, const std::vector<ElementwiseExprPtr>& operands) {
    switch (kind) {
      case Kind::Pow:
        expect(',');
        return at_number() ? ew_pow(operands[0], number()) : ew_binary(Kind::Pow, operands[0], expr());
      case Kind::Cast: {
        expect(',');
        const size_t at = pos_;
        while (pos_ < t_.size() && std::isalnum(static_cast<unsigned char>(t_[pos_]))) ++pos_;
        const auto to = dtype_from_name(t_.substr(at, pos_ - at));
        if (!to) {
          pos_ = at;
          fail("expected a dtype (float32, int64, int32, bool, float64, int8, uint8)");
        }
        return ew_cast(operands[0], *to);
      }
      case Kind::Clip: {
        expect(',');
        const double lo = number();
        expect(',');
        return ew_clip(operands[0], lo, number());
      }
      default: break;
    }
    switch (operands.size()) {
      case 1: return ew_unary(kind, operands[0]);
      case 2: return ew_binary(kind, operands[0], operands[1]);
      default: return ew_where(operands[0], operands[1], operands[2]);
    }
  }

  const std::string& t_;
  size_t pos_ = 0;
};

}  // namespace

ElementwiseExprPtr parse_elementwise(const std::string& text) { return Parser(text).whole(); }

}  // namespace tf::ops
