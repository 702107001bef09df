#include "runtime/kernel_abi.h"

extern "C" const char* tf_kernel_status_str(int32_t status) {
  switch (status) {
    case TF_OK: return "ok";
    case TF_ERR_NUM_ARGS: return "wrong number of arguments";
    case TF_ERR_NDIM: return "an argument has the wrong number of dimensions";
    case TF_ERR_SHAPE: return "an argument has the wrong shape";
    case TF_ERR_DTYPE: return "an argument has the wrong element type";
    case TF_ERR_ALIGNMENT: return "a data pointer is null or not 64-byte aligned";
    case TF_ERR_ALLOC: return "the kernel could not allocate scratch memory";
    case TF_ERR_PARALLEL: return "the parallel launcher failed or is not installed";
    default: return "unknown kernel status";
  }
}
