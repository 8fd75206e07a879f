// Offscreen rendering through OSMesa, opened at run time so the CLI needs no display and no
// GL library at link time (and never mixes OSMesa's and libGL's symbols).
#define _POSIX_C_SOURCE 200809L
#include "viewer.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OSMESA_RGBA_ GL_RGBA

typedef void* osmesa_context;
typedef osmesa_context create_fn(GLenum format, GLint depth, GLint stencil, GLint accum, osmesa_context share);
typedef GLboolean make_current_fn(osmesa_context ctx, void* buffer, GLenum type, GLsizei w, GLsizei h);
typedef void destroy_fn(osmesa_context ctx);
typedef void* proc_fn(const char* name);

struct tc_offscreen {
    void* lib;
    osmesa_context ctx;
    unsigned char* pixels;
    destroy_fn* destroy;
};

static proc_fn* s_get_proc;
static void* osmesa_loader(const char* name) { return s_get_proc(name); }

static void* symbol(void* lib, const char* name) {
    void* p = dlsym(lib, name);
    return p;
}

tc_offscreen* tc_offscreen_create(int w, int h, tc_gl* gl, char* error, size_t error_size) {
    const char* names[] = {"libOSMesa.so.8", "libOSMesa.so.6", "libOSMesa.so"};
    void* lib = NULL;
    for (int i = 0; i < 3 && !lib; ++i) lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(error, error_size, "offscreen rendering needs OSMesa (Debian package libosmesa6): %s", dlerror());
        return NULL;
    }
    create_fn* create;
    make_current_fn* make_current;
    destroy_fn* destroy;
    void *c = symbol(lib, "OSMesaCreateContextExt"), *m = symbol(lib, "OSMesaMakeCurrent"), *d = symbol(lib, "OSMesaDestroyContext"),
         *g = symbol(lib, "OSMesaGetProcAddress");
    memcpy(&create, &c, sizeof c);
    memcpy(&make_current, &m, sizeof m);
    memcpy(&destroy, &d, sizeof d);
    memcpy(&s_get_proc, &g, sizeof g);
    tc_offscreen* o = calloc(1, sizeof *o);
    if (!o || !c || !m || !d || !g) {
        snprintf(error, error_size, "OSMesa is incomplete");
        free(o);
        dlclose(lib);
        return NULL;
    }
    o->lib = lib;
    o->destroy = destroy;
    o->pixels = malloc((size_t)w * (size_t)h * 4);
    o->ctx = create(OSMESA_RGBA_, 24, 0, 0, NULL);
    if (!o->pixels || !o->ctx || !make_current(o->ctx, o->pixels, GL_UNSIGNED_BYTE, w, h) || !tc_gl_load(gl, osmesa_loader)) {
        snprintf(error, error_size, "cannot create an OSMesa context of %d x %d", w, h);
        tc_offscreen_destroy(o);
        return NULL;
    }
    return o;
}

const unsigned char* tc_offscreen_pixels(const tc_offscreen* o) { return o->pixels; }

void tc_offscreen_destroy(tc_offscreen* o) {
    if (!o) return;
    if (o->ctx) o->destroy(o->ctx);
    free(o->pixels);
    // OSMesa stays loaded: Mesa keeps process-lifetime state, and unloading it would hide where
    // that memory came from from the leak checker's suppressions
    free(o);
}
