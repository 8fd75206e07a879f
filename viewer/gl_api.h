// The OpenGL 1.x entry points the renderer uses, loaded through the context's own
// GetProcAddress (GLFW for windows, OSMesa offscreen), so one binary can drive either.
#ifndef TACTUS_VIEWER_GL_API_H
#define TACTUS_VIEWER_GL_API_H

#include <GL/gl.h>
#include <stdbool.h>

#define TC_GL_FUNCTIONS(X)                                                             \
    X(void, Begin, (GLenum mode))                                                      \
    X(void, End, (void))                                                               \
    X(void, Vertex3d, (GLdouble x, GLdouble y, GLdouble z))                            \
    X(void, Vertex2f, (GLfloat x, GLfloat y))                                          \
    X(void, Color4f, (GLfloat r, GLfloat g, GLfloat b, GLfloat a))                     \
    X(void, LineWidth, (GLfloat w))                                                    \
    X(void, PointSize, (GLfloat s))                                                    \
    X(void, MatrixMode, (GLenum mode))                                                 \
    X(void, LoadMatrixd, (const GLdouble* m))                                          \
    X(void, LoadIdentity, (void))                                                      \
    X(void, Ortho, (GLdouble l, GLdouble r, GLdouble b, GLdouble t, GLdouble n, GLdouble f)) \
    X(void, Viewport, (GLint x, GLint y, GLsizei w, GLsizei h))                        \
    X(void, ClearColor, (GLfloat r, GLfloat g, GLfloat b, GLfloat a))                  \
    X(void, Clear, (GLbitfield mask))                                                  \
    X(void, Enable, (GLenum cap))                                                      \
    X(void, Disable, (GLenum cap))                                                     \
    X(void, BlendFunc, (GLenum s, GLenum d))                                           \
    X(void, DepthFunc, (GLenum f))                                                     \
    X(void, PolygonOffset, (GLfloat factor, GLfloat units))                            \
    X(void, ReadPixels, (GLint x, GLint y, GLsizei w, GLsizei h, GLenum f, GLenum t, void* p)) \
    X(void, Finish, (void))

typedef struct tc_gl {
#define TC_GL_MEMBER_(ret, name, args) ret(*name) args;
    TC_GL_FUNCTIONS(TC_GL_MEMBER_)
#undef TC_GL_MEMBER_
} tc_gl;

typedef void* tc_gl_loader(const char* name);

/// Fills gl from the loader; false (naming nothing) if any entry point is missing.
bool tc_gl_load(tc_gl* gl, tc_gl_loader* load);
#endif
