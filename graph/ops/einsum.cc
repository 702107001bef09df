// Einsum of one or two operands, as matmul-like equations are written ("bij,bjk->bik",
// "bhqd,bhkd->bhqk", "ij->ji", "ij->i"): rewritten into ReduceSum (letters only one operand has and
// the output lacks), Transpose, Reshape and one batched MatMul, so it runs on the tuned dense
// kernels. Each letter is one extent; an operand that repeats a letter (a diagonal), an ellipsis
// and three or more operands are refused by name.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "graph/ops/registry.h"
#include "graph/ops/rules.h"

namespace tf::graph {
namespace {

using rules::fail;

struct Equation {
  std::vector<std::string> terms;  // one per operand
  std::string out;
};

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

Equation parse(const Node& n, size_t operands) {
  std::string text;
  for (char c : n.attr_string("equation", "")) {
    if (c != ' ') text += c;
  }
  const std::string shown = "equation '" + text + "'";
  if (text.find("...") != std::string::npos) fail(n, shown + ": an ellipsis is not supported (name every axis)");
  Equation e;
  const auto arrow = text.find("->");
  const std::string lhs = text.substr(0, arrow);
  size_t at = 0;
  while (true) {
    const auto comma = lhs.find(',', at);
    e.terms.push_back(lhs.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (e.terms.size() != operands)
    fail(n, shown + " has " + std::to_string(e.terms.size()) + " terms for " + std::to_string(operands) + " inputs");
  std::map<char, int> count;
  for (const auto& t : e.terms) {
    for (char c : t) {
      if (!is_letter(c)) fail(n, shown + ": '" + std::string(1, c) + "' is not a letter");
      if (std::count(t.begin(), t.end(), c) > 1)
        fail(n, shown + ": letter '" + std::string(1, c) + "' repeats in one operand (a diagonal is not supported)");
      ++count[c];
    }
  }
  if (arrow != std::string::npos) {
    e.out = text.substr(arrow + 2);
    for (char c : e.out) {
      if (!count.count(c)) fail(n, shown + ": output letter '" + std::string(1, c) + "' is in no input");
      if (std::count(e.out.begin(), e.out.end(), c) > 1)
        fail(n, shown + ": output letter '" + std::string(1, c) + "' repeats");
    }
  } else {
    for (const auto& [c, k] : count) {  // implicit output: the letters seen once, in alphabetical order
      if (k == 1) e.out += c;
    }
  }
  return e;
}

bool has(const std::string& s, char c) { return s.find(c) != std::string::npos; }

// Emits the canonical nodes of the rewrite, each writing a fresh value, except the last, which
// writes the Einsum's own output.
class Rewrite {
 public:
  Rewrite(Graph& g, const Node& n) : g_(g), n_(n) {}

  std::string node(const std::string& op, std::vector<std::string> inputs, std::map<std::string, Attribute> attrs) {
    Node m;
    m.op = op;
    m.name = g_.unique_name(n_.name + "_" + op);
    m.inputs = std::move(inputs);
    m.attrs = std::move(attrs);
    std::string out = g_.unique_name(n_.name + "_" + op + "_out");
    g_.set_value(Value{out, DType::Float32, {}, nullptr});
    m.outputs = {out};
    nodes_.push_back(std::move(m));
    return out;
  }

  std::string reshape(const std::string& x, const Shape& to) {
    return node("Reshape",
                {x, rules::add_constant(g_, n_.name + "_shape", Tensor::ints({static_cast<int64_t>(to.size())}, to))},
                {});
  }

  // The nodes, the last one writing `out` (an Identity when there are none).
  std::vector<Node> finish(const std::string& last, const std::string& out) {
    if (nodes_.empty()) node("Identity", {last}, {});
    nodes_.back().outputs[0] = out;
    g_.set_value(Value{out, DType::Float32, {}, nullptr});
    return std::move(nodes_);
  }

 private:
  Graph& g_;
  const Node& n_;
  std::vector<Node> nodes_;
};

// The positions in `from` of the letters of `order`.
std::vector<int64_t> permutation(const std::string& from, const std::string& order) {
  std::vector<int64_t> p;
  for (char c : order) p.push_back(static_cast<int64_t>(from.find(c)));
  return p;
}

bool identity(const std::vector<int64_t>& p) {
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// Sums away the letters of `term` that `keep` lacks; returns the remaining letters.
std::string sum_away(Rewrite& r, std::string* value, const std::string& term, const std::string& keep) {
  std::vector<int64_t> axes;
  std::string left;
  for (size_t i = 0; i < term.size(); ++i) {
    if (has(keep, term[i]))
      left += term[i];
    else
      axes.push_back(static_cast<int64_t>(i));
  }
  if (!axes.empty()) *value = r.node("ReduceSum", {*value}, {{"axes", axes}, {"keepdims", int64_t{0}}});
  return left;
}

std::string transposed(Rewrite& r, const std::string& value, const std::string& term, const std::string& order) {
  const std::vector<int64_t> p = permutation(term, order);
  return identity(p) ? value : r.node("Transpose", {value}, {{"perm", p}});
}

int64_t product(const std::string& letters, const std::map<char, int64_t>& extent) {
  int64_t p = 1;
  for (char c : letters) p *= extent.at(c);
  return p;
}

std::vector<Node> normalize_einsum(Graph& g, Node n, const OpVersion&) {
  if (n.inputs.empty() || n.inputs.size() > 2)
    fail(n, "Einsum of " + std::to_string(n.inputs.size()) + " operands is not supported (1 or 2)");
  const Equation e = parse(n, n.inputs.size());
  std::map<char, int64_t> extent;
  for (size_t i = 0; i < e.terms.size(); ++i) {
    const Value& v = rules::in(g, n, i);
    if (v.dtype != DType::Float32)
      fail(n, "input '" + v.name + "' is " + dtype_name(v.dtype) + "; Einsum takes float32");
    if (v.shape.size() != e.terms[i].size()) {
      fail(n, "term '" + e.terms[i] + "' names " + std::to_string(e.terms[i].size()) + " axes of '" + v.name +
                  "', which has shape " + shape_str(v.shape));
    }
    for (size_t k = 0; k < v.shape.size(); ++k) {
      const auto [it, fresh] = extent.emplace(e.terms[i][k], v.shape[k]);
      if (!fresh && it->second != v.shape[k]) {
        fail(n, "letter '" + std::string(1, e.terms[i][k]) + "' is " + std::to_string(it->second) +
                    " in one place and " + std::to_string(v.shape[k]) + " in another");
      }
    }
  }
  Rewrite r(g, n);
  std::string a = n.inputs[0];
  if (e.terms.size() == 1) {
    const std::string left = sum_away(r, &a, e.terms[0], e.out);
    return r.finish(transposed(r, a, left, e.out), n.outputs.at(0));
  }
  std::string b = n.inputs[1];
  const std::string ta = sum_away(r, &a, e.terms[0], e.out + e.terms[1]);
  const std::string tb = sum_away(r, &b, e.terms[1], e.out + ta);
  std::string batch, contracted, a_free, b_free;
  for (char c : e.out) {
    if (has(ta, c) && has(tb, c))
      batch += c;
    else if (has(ta, c))
      a_free += c;
    else
      b_free += c;
  }
  for (char c : ta) {
    if (has(tb, c) && !has(e.out, c)) contracted += c;
  }
  a = transposed(r, a, ta, batch + a_free + contracted);
  b = transposed(r, b, tb, batch + contracted + b_free);
  const int64_t pb = product(batch, extent), pm = product(a_free, extent), pk = product(contracted, extent),
                pn = product(b_free, extent);
  std::string product_value = r.node("MatMul", {r.reshape(a, {pb, pm, pk}), r.reshape(b, {pb, pk, pn})}, {});
  Shape unflat;
  for (char c : batch + a_free + b_free) unflat.push_back(extent.at(c));
  product_value = r.reshape(product_value, unflat);
  return r.finish(transposed(r, product_value, batch + a_free + b_free, e.out), n.outputs.at(0));
}

}  // namespace

void add_einsum_ops(std::vector<OpDef>& ops) {
  OpDef d;
  d.name = "Einsum";
  d.versions = {12};
  d.attributes = {"equation"};
  d.check = [](const Node& n, const OpVersion&) -> std::optional<std::string> {
    if (!n.has("equation")) return "attribute 'equation' is required";
    return std::nullopt;
  };
  d.normalize = normalize_einsum;
  ops.push_back(d);
}

}  // namespace tf::graph
