// The state of a `tactus run` in progress: shared by run and resume, and saved inside
// checkpoints so a resumed run continues the same outputs (frames, metrics rows).
#ifndef TACTUS_RUN_STATE_H
#define TACTUS_RUN_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "io/strbuf.h"
#include "tactus/tactus.h"
#include "world/state_io.h"

typedef struct run_state {
    tc_scene* scene;
    char dir[1024];
    char stem[256];
    char checkpoint[1200];
    char** frames;
    tc_real* times;
    int frame_count, frame_capacity;
    tc_strbuf csv;
    bool tty;
    int64_t step, total;
    int every, checkpoint_every;
    double max_pen;
    int64_t heap_early; ///< library heap bytes after the first tenth of the steps (soak check)
} run_state;

/// Steps from s->step to s->total writing frames, metrics rows and checkpoints, then the
/// outputs and the summary. Returns the exit status.
int run_loop(run_state* s, bool hash);
/// Serialises what run_loop needs to continue (not the scene: the checkpoint holds it).
void run_state_save(const run_state* s, tc_state_writer* out);
/// Restores a state saved by run_state_save; false for a blob that does not parse.
bool run_state_load(run_state* s, const void* data, size_t size);
void run_state_free(run_state* s);
#endif
