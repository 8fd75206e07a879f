#include "layers.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char* name;
    size_t offset;
} k_layers[] = {
    {"shapes", offsetof(tc_debug_draw, draw_shapes)},         {"contacts", offsetof(tc_debug_draw, draw_contacts)},
    {"penetration", offsetof(tc_debug_draw, draw_penetration)}, {"tractions", offsetof(tc_debug_draw, draw_tractions)},
    {"points", offsetof(tc_debug_draw, draw_points)},         {"tets", offsetof(tc_debug_draw, draw_tets)},
    {"springs", offsetof(tc_debug_draw, draw_springs)},       {"aabbs", offsetof(tc_debug_draw, draw_aabbs)},
};

int tc_layer_count(void) { return (int)(sizeof k_layers / sizeof k_layers[0]); }
const char* tc_layer_name(int i) { return k_layers[i].name; }
bool* tc_layer_flag(tc_debug_draw* d, int i) { return (bool*)((char*)d + k_layers[i].offset); }

bool tc_layers_parse(const char* list, tc_debug_draw* d) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char* tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int found = -1;
        for (int i = 0; i < tc_layer_count(); ++i)
            if (strcmp(tok, k_layers[i].name) == 0) found = i;
        if (found < 0) {
            fprintf(stderr, "tactus: unknown layer '%s' (layers:", tok);
            for (int i = 0; i < tc_layer_count(); ++i) fprintf(stderr, " %s", k_layers[i].name);
            fprintf(stderr, ")\n");
            return false;
        }
        *tc_layer_flag(d, found) = true;
    }
    return true;
}
