#include "gl_api.h"

#include <string.h>

bool tc_gl_load(tc_gl* gl, tc_gl_loader* load) {
    memset(gl, 0, sizeof *gl);
    bool ok = true;
    // a data pointer to function pointer conversion is how every GL loader works (POSIX dlsym)
#define TC_GL_LOAD_(ret, name, args)                                       \
    {                                                                      \
        void* p = load("gl" #name);                                        \
        memcpy(&gl->name, &p, sizeof p);                                   \
        ok = ok && p != NULL;                                              \
    }
    TC_GL_FUNCTIONS(TC_GL_LOAD_)
#undef TC_GL_LOAD_
    return ok;
}
