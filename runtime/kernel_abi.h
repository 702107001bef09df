/* The C ABI between a generated kernel and whoever calls it: the JIT in the compiler, or a board
 * that dlopen()s a shared library and never links LLVM. Plain C so any language can call a kernel. */
#ifndef TUNEFARM_RUNTIME_KERNEL_ABI_H_
#define TUNEFARM_RUNTIME_KERNEL_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum TFDTypeCode { TF_DTYPE_INT = 0, TF_DTYPE_UINT = 1, TF_DTYPE_FLOAT = 2 };

/* One tensor argument. `data` must be aligned to TF_BUFFER_ALIGNMENT bytes; `shape` has `ndim`
 * extents, row-major, dense. */
typedef struct TFBuffer {
  void* data;
  const int64_t* shape;
  int32_t ndim;
  int32_t dtype_code; /* TFDTypeCode */
  int32_t dtype_bits;
  int32_t reserved;
} TFBuffer;

#define TF_BUFFER_ALIGNMENT 64

/* Every kernel entry point has this type. Arguments come in the order of the lowered function's
 * args (inputs, then outputs). Returns TF_OK or one of the errors below; a kernel checks its
 * arguments before touching memory, so a caller's mistake never becomes a wild write. */
typedef int32_t (*TFKernelFn)(const TFBuffer* args, int32_t num_args);

enum TFKernelStatus {
  TF_OK = 0,
  TF_ERR_NUM_ARGS = 1,  /* wrong number of arguments */
  TF_ERR_NDIM = 2,      /* an argument has the wrong rank */
  TF_ERR_SHAPE = 3,     /* an argument has the wrong extents */
  TF_ERR_DTYPE = 4,     /* an argument has the wrong element type */
  TF_ERR_ALIGNMENT = 5, /* a data pointer is null or not TF_BUFFER_ALIGNMENT-aligned */
  TF_ERR_ALLOC = 6,     /* the kernel could not allocate its scratch memory */
  TF_ERR_PARALLEL = 7   /* the runtime's parallel launcher failed or was not installed */
};

const char* tf_kernel_status_str(int32_t status);

/* Parallel loops are outlined into a body called once per task, task in [0, num_tasks). */
typedef void (*TFParallelBody)(int64_t task, void* closure);
typedef int32_t (*TFParallelForFn)(int64_t num_tasks, TFParallelBody body, void* closure);

/* Each kernel module defines a global variable with this name and type TFParallelForFn, null until
 * the loader stores the runtime's launcher in it. A function pointer, rather than an undefined
 * symbol, so the module links and loads the same in a JIT and in a process that exports nothing. */
#define TF_PARALLEL_FOR_SYMBOL "__tf_parallel_for"

/* The runtime's launcher: runs body over [0, num_tasks) on the process-wide thread pool. */
int32_t tf_runtime_parallel_for(int64_t num_tasks, TFParallelBody body, void* closure);

/* Heap workspaces (a packed operand) come from the loader's allocator when it installs one in these
 * slots (function pointers, like the launcher), else from aligned_alloc/free. The runtime's keeps
 * freed blocks for the next call: a fresh process that gave a 4 MB block back to the OS on every
 * call faulted it in again each time, which halved gemm-1024's speed on a VM. */
typedef void* (*TFWorkspaceAllocFn)(int64_t bytes);
typedef void (*TFWorkspaceFreeFn)(void* p);
#define TF_WORKSPACE_ALLOC_SYMBOL "__tf_workspace_alloc"
#define TF_WORKSPACE_FREE_SYMBOL "__tf_workspace_free"

/* The runtime's workspace allocator: TF_BUFFER_ALIGNMENT-aligned blocks, reused by size. */
void* tf_runtime_workspace_alloc(int64_t bytes);
void tf_runtime_workspace_free(void* p);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TUNEFARM_RUNTIME_KERNEL_ABI_H_ */
