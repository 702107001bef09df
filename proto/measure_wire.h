// The measurement protocol's types (runtime/measure.h) in their wire form, for the tracker that
// sends work and the boards that measure it.
#pragma once

#include <cstdint>

#include "proto/tunefarm.pb.h"
#include "runtime/measure.h"

namespace tf::fleet {

namespace v1 = ::tunefarm::v1;

v1::Reference to_wire(const runtime::WorkloadSetup& setup, uint64_t reference_id);
// Throws std::invalid_argument for a reference whose sizes do not add up.
runtime::WorkloadSetup from_wire(const v1::Reference& ref);

v1::TensorSpec to_wire(const runtime::TensorSpec& t);
runtime::TensorSpec from_wire(const v1::TensorSpec& t);

// Zero fields of the wire form take the protocol's defaults.
v1::MeasureOptions to_wire(const runtime::MeasureOptions& o);
runtime::MeasureOptions from_wire(const v1::MeasureOptions& o);

// UNSPECIFIED is OFF; a value no version knows stays one measure_options_error refuses.
v1::ColdInputs to_wire(runtime::ColdInputs c);
runtime::ColdInputs from_wire(v1::ColdInputs c);

v1::MeasureStatus to_wire(runtime::MeasureStatus s);
runtime::MeasureStatus from_wire(v1::MeasureStatus s);

}  // namespace tf::fleet
