/// @file checkpoint.h
/// Checkpoints: save a running scene's whole state to a file and resume it later, bit-identical
/// to a run that was never interrupted (same build, same machine kind, same thread count).
#ifndef TACTUS_CHECKPOINT_H
#define TACTUS_CHECKPOINT_H

#include "tactus/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Writes `scene`'s state to `path` atomically (temp file + rename: a crash mid-write leaves the
/// previous file intact). The file holds the scene's JSON text, its directory (for meshes), the
/// world's clock and body table, every body kind's dynamic state and `extra_size` bytes of
/// application data (may be NULL/0; copied). Errors: TC_RESULT_UNSUPPORTED naming the body kind
/// that has no checkpoint support, TC_RESULT_IO, TC_RESULT_OUT_OF_MEMORY.
TC_API tc_result tc_scene_write_checkpoint(const tc_scene* scene, const char* path, const void* extra, size_t extra_size,
                                           tc_error* error);

/// Rebuilds the scene a checkpoint was written from and restores its state. On success returns
/// the scene (free with tc_scene_destroy) and, if `extra` is not NULL, a copy of the application
/// data in *extra / *extra_size (free with tc_checkpoint_free_extra). On failure returns NULL and
/// fills error: "file: field: problem" for a file that is not a checkpoint, truncated, corrupt,
/// from another build, or whose scene no longer loads.
TC_API tc_scene* tc_scene_resume(const char* path, void** extra, size_t* extra_size, tc_error* error);

/// Frees the application data returned by tc_scene_resume.
TC_API void tc_checkpoint_free_extra(void* extra, size_t extra_size);

#ifdef __cplusplus
}
#endif
#endif
