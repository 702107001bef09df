// TEMPORARY lead stub; replaced by the codegen branch's thread pool at merge.
#pragma once
namespace tf::runtime { void set_num_threads(int n); int num_threads(); }
