// Fuzz target: the seed-003 text scene reader (.springs through tc_scene_load) on arbitrary bytes. Any input must give a
// scene or a clear error; a crash, leak, hang or sanitizer report is a bug.
#include "fuzz_util.h"

#include "tactus/tactus.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const char* path = tc_fuzz_write_temp(data, size, ".springs");
    if (!path) return 0;
    tc_error error;
    tc_scene* scene = tc_scene_load(path, &error);
    if (scene) {
        // a loaded scene must also survive a couple of steps (or fail them with an error); big
        // generated scenes are legal but would make each input slow, and the loader is the target
        int steps = tc_world_get_body_count(tc_scene_world(scene)) <= 500 ? 2 : 0;
        for (int i = 0; i < steps; ++i)
            if (tc_scene_step(scene, &error) != TC_RESULT_OK) break;
        tc_scene_destroy(scene);
    } else if (!error.message[0]) {
        fprintf(stderr, "scene load failed without a message\n");
        abort();
    }
    remove(path);
    return 0;
}
