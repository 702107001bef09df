// Small ONNX models written in the test itself (protobuf messages), for the importer's refusals and
// edge cases: one node at a time, with the opset chosen.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace tf::graph::testing {

class OnnxModelBuilder {
 public:
  explicit OnnxModelBuilder(int64_t opset = 13) {
    model_.set_ir_version(8);
    model_.set_producer_name("tunefarm test");
    auto* o = model_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    model_.mutable_graph()->set_name("test");
  }

  // An input (float unless told); an extent of -1 is symbolic (named "N" for the first, "S" otherwise).
  OnnxModelBuilder& input(const std::string& name, const std::vector<int64_t>& shape,
                          int elem_type = onnx::TensorProto::FLOAT) {
    auto* v = model_.mutable_graph()->add_input();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem_type);
    auto* s = t->mutable_shape();
    for (size_t i = 0; i < shape.size(); ++i) {
      auto* d = s->add_dim();
      if (shape[i] >= 0)
        d->set_dim_value(shape[i]);
      else
        d->set_dim_param(i == 0 ? "N" : "S");
    }
    return *this;
  }

  // An input with its extents as a model declares them: digits are static, anything else a
  // symbolic extent of that name ("" unnamed).
  OnnxModelBuilder& input_dims(const std::string& name, const std::vector<std::string>& dims,
                               int elem_type = onnx::TensorProto::FLOAT) {
    auto* v = model_.mutable_graph()->add_input();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(elem_type);
    auto* s = t->mutable_shape();
    for (const auto& d : dims) {
      auto* dim = s->add_dim();
      if (!d.empty() && d.find_first_not_of("0123456789") == std::string::npos)
        dim->set_dim_value(std::stoll(d));
      else if (!d.empty())
        dim->set_dim_param(d);
    }
    return *this;
  }

  OnnxModelBuilder& output(const std::string& name) {
    model_.mutable_graph()->add_output()->set_name(name);
    return *this;
  }

  OnnxModelBuilder& floats(const std::string& name, const std::vector<int64_t>& shape, const std::vector<float>& data) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : shape) t->add_dims(d);
    for (float f : data) t->add_float_data(f);
    return *this;
  }

  OnnxModelBuilder& ints(const std::string& name, const std::vector<int64_t>& shape, const std::vector<int64_t>& data) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : shape) t->add_dims(d);
    for (int64_t v : data) t->add_int64_data(v);
    return *this;
  }

  // An initializer of any element type, its data left to the caller.
  onnx::TensorProto& initializer(const std::string& name, int elem_type, const std::vector<int64_t>& shape) {
    auto* t = model_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(elem_type);
    for (int64_t d : shape) t->add_dims(d);
    return *t;
  }

  onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& name = "") {
    auto* n = model_.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + "_" + std::to_string(model_.graph().node_size()) : name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
  }

  static void attr(onnx::NodeProto& n, const std::string& name, int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void attr(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  static void float_attr(onnx::NodeProto& n, const std::string& name, float v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  static void attr(onnx::NodeProto& n, const std::string& name, const std::string& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(v);
  }

  std::string bytes() const { return model_.SerializeAsString(); }

 private:
  onnx::ModelProto model_;
};

}  // namespace tf::graph::testing
