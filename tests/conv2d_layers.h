// The conv2d layers of ../shared/workloads/conv2d.json (batch 1) as named shapes, for the tests that
// check every operator variant on them: ResNet-18's twelve and MobileNet's depthwise ones.
#pragma once

#include <string>
#include <vector>

namespace tf::testing_support {

inline const std::vector<std::string> kResnet18Layers = {
    "c=3,h=224,w=224,k=64,r=7,s=7,stride=2,pad=3",
    "c=64,h=56,w=56,k=64,r=3,s=3,pad=1",
    "c=64,h=56,w=56,k=64,r=1,s=1",
    "c=64,h=56,w=56,k=128,r=3,s=3,stride=2,pad=1",
    "c=64,h=56,w=56,k=128,r=1,s=1,stride=2",
    "c=128,h=28,w=28,k=128,r=3,s=3,pad=1",
    "c=128,h=28,w=28,k=256,r=3,s=3,stride=2,pad=1",
    "c=128,h=28,w=28,k=256,r=1,s=1,stride=2",
    "c=256,h=14,w=14,k=256,r=3,s=3,pad=1",
    "c=256,h=14,w=14,k=512,r=3,s=3,stride=2,pad=1",
    "c=256,h=14,w=14,k=512,r=1,s=1,stride=2",
    "c=512,h=7,w=7,k=512,r=3,s=3,pad=1",
};

inline const std::vector<std::string> kMobilenetDepthwiseLayers = {
    "c=32,h=112,w=112,k=32,r=3,s=3,pad=1,groups=32",
    "c=64,h=112,w=112,k=64,r=3,s=3,stride=2,pad=1,groups=64",
    "c=512,h=14,w=14,k=512,r=3,s=3,pad=1,groups=512",
};

}  // namespace tf::testing_support
