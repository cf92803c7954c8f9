/* The caller slot of caller.h, and what the Go side asks of it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include "caller.h"

__thread void *gompi_caller __attribute__((tls_model("initial-exec"), visibility("hidden")));

__attribute__((visibility("hidden"))) uintptr_t gompi_caller_pc(void) { return (uintptr_t)gompi_caller; }

/* gompi_caller_object finds the object file holding pc: its path, its
 * load address and the nearest symbol below pc (NULL if none). 0 if no
 * object holds pc. */
__attribute__((visibility("hidden"))) int gompi_caller_object(uintptr_t pc, const char **file, uintptr_t *base,
                                                              const char **sym, uintptr_t *symaddr) {
    Dl_info info;
    if (dladdr((void *)pc, &info) == 0)
        return 0;
    *file = info.dli_fname;
    *base = (uintptr_t)info.dli_fbase;
    *sym = info.dli_sname;
    *symaddr = (uintptr_t)info.dli_saddr;
    return 1;
}
