// Text placed in XML (the SVG charts, JUnit reports): the five special characters as entities, and
// control characters XML 1.0 cannot hold as spaces.
#pragma once

#include <string>

namespace tf {

std::string xml_escape(const std::string& s);

}  // namespace tf
